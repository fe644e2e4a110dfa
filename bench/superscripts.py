"""How often the bundled corpora hold numbers that look like flattened superscripts (issue 42 item 1).

A report, not a test: the loaders now write ``10^9`` for ``10<sup>9</sup>`` (:mod:`clinqa.text.scripts`),
but text that arrives already flattened ("40 x 109/L" in a JSON corpus or a Markdown file) cannot be
repaired by a loader. This script counts, in the raw files as shipped, the shapes that are likely
flattened superscripts, the Unicode super/subscript characters (which the HTML, JATS, Word and PDF
loaders rewrite as ``^``/joined forms) and the ASCII ``10^n`` form, with a few examples of each.

Patterns (case-sensitive unless noted):

* ``x10 flattened``: a multiplication sign (x, X, ×, *) then "10" then 1-19 glued on ("x 109", "×1012");
  "x 100" is not counted;
* ``10^9|12 per L flattened``: "109/L", "1012/L", "109 /l", "109/litre" (a count per litre);
* ``unit^2|3 flattened``: a number or "/" then mm, cm, m, µm, μm glued to 2 or 3 ("1.73 m2", "/mm3");
* ``unicode superscripts`` (⁰-⁹ ¹ ² ³ ⁺ ⁻), ``unicode subscripts`` (₀-₉ ₊ ₋);
* ``ascii 10^n``: "10^9" already written with a caret;
* ``<sup>/<sub> tags``: markup left in the text (case-insensitive).

Sources: the open-medicine guideline Markdown of the installed package (:func:`clinqa.corpora.guidelines_path`)
and, under ``--data`` (default ``/work/shared/data``): ``raw/guidelines`` (the same package's Markdown as
shipped there), ``raw/medquad`` XML, ``raw/pubmedqa/ori_pqal.json``, ``raw/covid-qa`` (CORD-19 full texts),
``raw/mediqa2019``, and the BEIR corpora ``pubmedqa``, ``bioasq``, ``liveqa-medquad`` (``medquad-selfqa``
shares its corpus). A missing source is reported and skipped.

Usage::

    .venv/bin/python bench/superscripts.py [--data /work/shared/data] [--examples 3] [--json]

Exit 0. Prints one Markdown table (documents = files or JSONL lines; hits = matches) and examples per
pattern and source. About 12 s on one core (150 MB of text).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

PATTERNS: dict[str, re.Pattern[str]] = {
    "x10 flattened": re.compile(r"(?<![\w.])[xX×*]\s?10(?:1[0-9]|[1-9])(?![\d.,])"),
    "10^9|12 per L flattened": re.compile(r"(?<![\d.,^])10(?:9|12)\s?/\s?(?:L|l|litre|liter)\b"),
    "unit^2|3 flattened": re.compile(r"(?:\d\s?|/)(?:mm|cm|m|µm|μm)[23](?![\w])"),
    "unicode superscripts": re.compile(r"[\u2070\u00b9\u00b2\u00b3\u2074-\u2079\u207a\u207b]+"),
    "unicode subscripts": re.compile(r"[\u2080-\u2089\u208a\u208b]+"),
    "ascii 10^n": re.compile(r"10\^[-+]?\d"),
    "<sup>/<sub> tags": re.compile(r"<su[bp]\b", re.I),
}


@dataclass
class Tally:
    """Counts of one pattern in one source: matches, documents with a match, first examples."""

    hits: int = 0
    docs: int = 0
    examples: list[str] = field(default_factory=list)


def _context(text: str, m: re.Match[str], width: int = 35) -> str:
    a, b = max(0, m.start() - width), min(len(text), m.end() + width)
    return " ".join(text[a:b].split())


def _json_strings(value: object) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _json_strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _json_strings(v)


def _documents(kind: str, root: Path) -> Iterator[str]:
    """The texts of one source: files (``md``/``xml``), one JSON file's documents, or JSONL lines."""
    if kind in ("md", "xml"):
        for path in sorted(root.rglob(f"*.{kind}")):
            yield path.read_text(encoding="utf-8", errors="replace")
    elif kind == "json":
        for path in sorted(root.rglob("*.json")):
            data = json.loads(path.read_text(encoding="utf-8", errors="replace"))
            items = data.values() if isinstance(data, dict) else data if isinstance(data, list) else [data]
            if isinstance(data, dict) and "data" in data:  # SQuAD layout: one document per article
                items = data["data"]
            for item in items:
                yield "\n".join(_json_strings(item))
    elif kind == "jsonl":
        with root.open(encoding="utf-8", errors="replace") as fh:
            for line in fh:
                row = json.loads(line)
                yield f"{row.get('title', '')}\n{row.get('text', '')}"


def sources(data: Path) -> list[tuple[str, str, Path | None]]:
    """(name, kind, path) of every source; path None when it cannot be found."""
    try:
        from clinqa.corpora import guidelines_path

        package: Path | None = guidelines_path()
    except Exception:  # the package is optional for this report
        package = None
    rows: list[tuple[str, str, Path | None]] = [
        ("open-medicine (installed package)", "md", package),
        ("raw/guidelines", "md", data / "raw/guidelines"),
        ("raw/medquad", "xml", data / "raw/medquad"),
        ("raw/pubmedqa", "json", data / "raw/pubmedqa"),
        ("raw/covid-qa", "json", data / "raw/covid-qa"),
        ("raw/mediqa2019", "xml", data / "raw/mediqa2019"),
        ("pubmedqa corpus.jsonl", "jsonl", data / "pubmedqa/corpus.jsonl"),
        ("bioasq corpus.jsonl", "jsonl", data / "bioasq/corpus.jsonl"),
        ("liveqa-medquad corpus.jsonl", "jsonl", data / "liveqa-medquad/corpus.jsonl"),
    ]
    return [(name, kind, path if path is not None and path.exists() else None) for name, kind, path in rows]


def scan(data: Path, n_examples: int) -> dict[str, dict[str, object]]:
    """Per source: documents read, seconds, and a :class:`Tally` per pattern (as dicts)."""
    report: dict[str, dict[str, object]] = {}
    for name, kind, path in sources(data):
        if path is None:
            report[name] = {"missing": True}
            continue
        start = time.perf_counter()
        tallies = {p: Tally() for p in PATTERNS}
        n_docs = 0
        for text in _documents(kind, path):
            n_docs += 1
            for pname, pattern in PATTERNS.items():
                found = list(pattern.finditer(text))
                if not found:
                    continue
                tally = tallies[pname]
                tally.hits += len(found)
                tally.docs += 1
                if len(tally.examples) < n_examples:
                    tally.examples.append(_context(text, found[0]))
        report[name] = {"documents": n_docs, "seconds": round(time.perf_counter() - start, 1),
                        "patterns": {p: vars(t) for p, t in tallies.items()}}
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=Path("/work/shared/data"))
    parser.add_argument("--examples", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    report = scan(args.data, args.examples)
    if args.json:
        json.dump(report, sys.stdout, indent=1, ensure_ascii=False)
        print()
        return 0
    names = list(PATTERNS)
    print("| source | documents | " + " | ".join(names) + " |")
    print("|---|---:|" + "---:|" * len(names))
    for source, row in report.items():
        if row.get("missing"):
            print(f"| {source} | missing |" + " |" * len(names))
            continue
        pats = row["patterns"]
        assert isinstance(pats, dict)
        cells = [f"{pats[p]['hits']} ({pats[p]['docs']} docs)" for p in names]
        print(f"| {source} | {row['documents']} | " + " | ".join(cells) + " |")
    print("\nhits (documents with a hit); examples:")
    for source, row in report.items():
        pats = row.get("patterns")
        if not isinstance(pats, dict):
            continue
        for p in names:
            for example in pats[p]["examples"]:
                print(f"- {source} / {p}: ...{example}...")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
