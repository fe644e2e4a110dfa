"""Build clinqa's compact WordNet file (``lexicon/data/wordnet.json.gz``) from a WordNet 3.0 database.

Run once by a developer, never at run time: ``python -m clinqa.lexicon.wordnet_build /usr/share/wordnet``
(Debian's ``wordnet-base`` installs the Princeton WordNet 3.0 database there). The output ships inside
clinqa's wheel, so users need neither Debian nor a download; WordNet's licence allows redistribution with its
notice, which ships beside it (``lexicon/data/WORDNET_LICENSE``).

Source: Princeton University, "WordNet 3.0" (Miller 1995, "WordNet: a lexical database for English",
Communications of the ACM 38(11):39-41). File format: ``wndb(5WN)``: each line of ``data.noun|verb|adj|adv`` is
``offset lex_filenum ss_type w_cnt word lex_id [word lex_id ...] p_cnt [pointer_symbol offset pos source/target
...] ... | gloss``; ``lex_filenum`` indexes the 45 lexicographer files that the database's own ``lexnames`` file
lists (``lexnames(5WN)``: ``number name syntactic-category`` a line; :func:`lexnames`).

What is kept (``format`` :data:`FORMAT`), as JSON of integers:

- ``lemmas``: every lemma, lower case, ``_`` read as a space, sorted;
- ``synsets``: per synset ``[lexname, flags, [lemma ids]]``, where ``flags`` is a bit set of :data:`CATEGORIES`
  computed from the hypernym closure (``@`` and ``@i`` pointers) of the synset: a synset under ``drug`` (sense 1:
  "a substance that is used as a medicine or narcotic") is a drug, one under ``ill health``, ``disorder``,
  ``symptom``, ``injury`` or ``pathological state`` a condition, and so on (:data:`ROOTS`);
- ``senses``: per lemma, its synset ids in WordNet's sense order (most frequent first);
- ``derived``: pairs of lemma ids linked by a derivationally related form (``+``) or pertainym (``\\``)
  pointer ("renal" -> "kidney", "anemic" -> "anemia").
"""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

FORMAT = 1
#: category -> (lemma, first words of the gloss) of the synsets whose hyponyms fall under it
ROOTS: dict[str, tuple[tuple[str, str], ...]] = {
    "drug": (("drug", "a substance that is used as a medicine"), ("medicine", "(medicine) something that treats"),
             ("vaccine", "immunogen consisting of")),
    "condition": (("ill_health", "a state in which you are unable"), ("disorder", "a physical condition in which"),
                  ("symptom", "(medicine) any sensation or change"), ("injury", "any physical damage"),
                  ("pathological_state", "a physical condition that is caused by disease"),
                  ("disease", "an impairment of health"), ("infection", "the pathological state resulting")),
    "person": (("person", "a human being"),),
    "procedure": (("medical_procedure", "a procedure employed"), ("medical_care", "the professional treatment"),
                  ("diagnostic_procedure", "a procedure followed"), ("surgery", "a medical procedure involving")),
    "food": (("food", "any substance that can be metabolized"), ("food", "any solid substance"),
             ("beverage", "any liquid suitable")),
    "body": (("body_part", "any part of an organism"),),
    "organism": (("microorganism", "any organism of microscopic size"), ("virus", "(virology) ultramicroscopic")),
    "substance": (("substance", "the real physical matter"),),
    "artifact": (("artifact", "a man-made object"),),
}
#: the categories a synset may fall under, by bit: those of :data:`ROOTS`, in its order
CATEGORIES = tuple(ROOTS)
_POS_FILES = {"n": "noun", "v": "verb", "a": "adj", "r": "adv"}


def lexnames(db: Path) -> tuple[str, ...]:
    """The lexicographer file names of the database folder ``db`` in ``lex_filenum`` order, read from its
    ``lexnames`` file (``00 adj.all 3`` a line; WordNet 3.0 has 45, ``adj.all`` to ``adj.ppl``). Raises
    FileNotFoundError naming the file when it is missing, ValueError naming it when its numbers are not 0, 1, 2 ..."""
    path = db / "lexnames"
    if not path.exists():
        raise FileNotFoundError(f"{path}: not a WordNet 3.0 database folder")
    rows = [line.split() for line in path.read_text(encoding="latin-1").splitlines() if line.strip()]
    if [int(r[0]) for r in rows] != list(range(len(rows))):
        raise ValueError(f"{path}: the file numbers are not 0, 1, 2 ... in order")
    return tuple(r[1] for r in rows)


def _read(db: Path) -> dict[tuple[str, int], dict]:
    """Synsets by (pos letter, offset): ``{"lex": int, "words": [..], "hyper": [keys], "derived": [(word index,
    key, target index)]}``; adjective satellites ``s`` are filed under ``a``."""
    synsets: dict[tuple[str, int], dict] = {}
    for pos, name in _POS_FILES.items():
        for line in (db / f"data.{name}").read_text(encoding="latin-1").splitlines():
            if line.startswith("  "):
                continue  # the licence header
            head, _, gloss = line.partition(" | ")
            f = head.split()
            off, lex, n = int(f[0]), int(f[1]), int(f[3], 16)
            words = [f[4 + 2 * i].lower().replace("_", " ") for i in range(n)]
            words = [w.split("(")[0] if w.endswith(")") else w for w in words]  # "galore(ip)" markers
            i = 4 + 2 * n
            p_cnt = int(f[i])
            i += 1
            hyper, derived = [], []
            for _ in range(p_cnt):
                sym, t_off, t_pos, st = f[i], int(f[i + 1]), f[i + 2], f[i + 3]
                i += 4
                t_pos = "a" if t_pos == "s" else t_pos
                if sym in ("@", "@i"):
                    hyper.append((t_pos, t_off))
                elif sym in ("+", "\\") and st != "0000":
                    derived.append((int(st[:2], 16) - 1, (t_pos, t_off), int(st[2:], 16) - 1))
            synsets[(pos, off)] = {"lex": lex, "words": words, "hyper": hyper, "derived": derived,
                                   "gloss": gloss.strip()}
    return synsets


def _index(db: Path) -> dict[str, list[tuple[str, int]]]:
    """Lemma -> synset keys in sense order (``index.*``: ``lemma pos synset_cnt p_cnt [ptr...] sense_cnt
    tagsense_cnt offset...``)."""
    out: dict[str, list[tuple[str, int]]] = {}
    for pos, name in _POS_FILES.items():
        for line in (db / f"index.{name}").read_text(encoding="latin-1").splitlines():
            if line.startswith("  "):
                continue
            f = line.split()
            lemma, n, p = f[0].replace("_", " "), int(f[2]), int(f[3])
            offs = [int(x) for x in f[4 + p + 2:4 + p + 2 + n]]
            out.setdefault(lemma, []).extend((pos, o) for o in offs)
    return out


def build(db: Path) -> dict:
    """The compact WordNet (module docstring) read from the database folder ``db``. Raises FileNotFoundError
    naming the missing ``data.*`` / ``index.*`` file."""
    for name in _POS_FILES.values():
        for kind in ("data", "index"):
            if not (db / f"{kind}.{name}").exists():
                raise FileNotFoundError(f"{db / f'{kind}.{name}'}: not a WordNet 3.0 database folder")
    names = lexnames(db)
    synsets = _read(db)
    index = _index(db)
    roots: dict[tuple[str, int], int] = {}
    for bit, cat in enumerate(CATEGORIES):
        for lemma, gloss in ROOTS[cat]:
            for key in index.get(lemma.replace("_", " "), []):
                if key[0] == "n" and synsets[key]["gloss"].startswith(gloss):
                    roots[key] = roots.get(key, 0) | (1 << bit)
    memo: dict[tuple[str, int], int] = {}

    def flags(key: tuple[str, int], depth: int = 0) -> int:
        if key in memo:
            return memo[key]
        out = roots.get(key, 0)
        if depth < 40:
            for h in synsets[key]["hyper"]:
                out |= flags(h, depth + 1)
        memo[key] = out
        return out

    lemmas = sorted({w for s in synsets.values() for w in s["words"]} | set(index))
    lid = {w: i for i, w in enumerate(lemmas)}
    keys = sorted(synsets)
    sid = {k: i for i, k in enumerate(keys)}
    out_synsets = [[synsets[k]["lex"], flags(k), [lid[w] for w in synsets[k]["words"]]] for k in keys]
    senses = [[] for _ in lemmas]
    for lemma, ks in index.items():
        senses[lid[lemma]] = [sid[k] for k in ks if k in sid]
    derived: set[tuple[int, int]] = set()
    for k in keys:
        s = synsets[k]
        for src, target, tgt in s["derived"]:
            t = synsets.get(target)
            if t is None or src >= len(s["words"]) or tgt >= len(t["words"]):
                continue
            a, b = lid[s["words"][src]], lid[t["words"][tgt]]
            if a != b:
                derived.add((min(a, b), max(a, b)))
    return {"format": FORMAT, "source": "Princeton WordNet 3.0", "lexnames": list(names),
            "categories": list(CATEGORIES), "lemmas": lemmas, "synsets": out_synsets, "senses": senses,
            "derived": sorted(derived)}


def write(data: dict, path: Path) -> None:
    """Write ``data`` as compact, reproducible gzip JSON (mtime 0)."""
    raw = json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode()
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as fh, gzip.GzipFile(fileobj=fh, mode="wb", compresslevel=9, mtime=0) as gz:
        gz.write(raw)


def main(argv: list[str] | None = None) -> int:
    """``python -m clinqa.lexicon.wordnet_build [DB] [OUT]``: DB defaults to /usr/share/wordnet, OUT to the
    shipped file."""
    args = sys.argv[1:] if argv is None else argv
    db = Path(args[0]) if args else Path("/usr/share/wordnet")
    out = Path(args[1]) if len(args) > 1 else Path(__file__).with_name("data") / "wordnet.json.gz"
    data = build(db)
    write(data, out)
    print(f"{out}: {len(data['lemmas'])} lemmas, {len(data['synsets'])} synsets, {len(data['derived'])} derived pairs, "
          f"{out.stat().st_size / 1e6:.1f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
