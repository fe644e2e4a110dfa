"""Drug names: brand, British, older and international names of one drug, from the
``drug-named-entity-recognition`` package (Fast Data Science, MIT; its dictionary joins DrugBank, NHS, MeSH,
MedlinePlus and Wikipedia names: "Eliquis" -> apixaban, "frusemide" and "Lasix" -> furosemide, "paracetamol" ->
acetaminophen).

The package's dictionary (``drug_ner_dictionary.pkl.bz2``, variant -> canonical names) is read directly: importing
the package's finder also builds a trigram index for fuzzy matching, which takes 10-20 s here and is not used. The
names clinqa keeps (:func:`clean_name`; a two-drug combination with a hyphen: :func:`combination_name`) are written
once to ``<cache dir>/lexicon/drugs-<version>-<format>.json`` so later processes load them in a fraction of a second.
"""

from __future__ import annotations

import bz2
import importlib.util
import json
import os
import pickle
import re
from functools import lru_cache
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

#: a name clinqa keeps: letters, spaces and hyphens, 3-40 characters, at most three words
_CLEAN = re.compile(r"[a-z][a-z -]{2,39}")
#: a brand or variant that is a common English word is no evidence of a drug ("Focus", "Plan B"): Zipf cut
COMMON_ZIPF = 3.5


def clean_name(name: str) -> bool:
    """Is ``name`` (lower case) a drug name clinqa uses: :data:`_CLEAN`, at most three words?"""
    return _CLEAN.fullmatch(name) is not None and len(name.split()) <= 3


#: the cached table's format: a new one when what :func:`read_package` keeps changes, so a cache is rebuilt
_FORMAT = 2
#: a combination product as the package writes it: two names (one or two words of 4+ letters) joined by "/"
_COMBINATION = re.compile(r"([a-z]{4,}(?: [a-z]{4,})?)/([a-z]{4,}(?: [a-z]{4,})?)")


def combination_name(name: str) -> str:
    """``name`` (lower case) with a two-drug combination written as guidelines write it, joined by a hyphen
    ("trimethoprim/sulfamethoxazole" -> "trimethoprim-sulfamethoxazole", the canonical name of Bactrim and Septra;
    "ampicillin/sulbactam" -> "ampicillin-sulbactam"); any other name as it is. The package writes these with a
    slash, which :func:`clean_name` does not keep, so the brands of every such product were lost."""
    m = _COMBINATION.fullmatch(name)
    return f"{m.group(1)}-{m.group(2)}" if m else name


class DrugNames:
    """``variant -> canonical drug names`` and ``canonical -> variants``, lower case, clean names only."""

    def __init__(self, to_canonical: dict[str, list[str]]) -> None:
        self._canon = to_canonical
        self._variants: dict[str, list[str]] = {}
        for v, cs in to_canonical.items():
            for c in cs:
                self._variants.setdefault(c, []).append(v)

    def canonical(self, name: str) -> tuple[str, ...]:
        """The canonical names of the drug(s) ``name`` names (() when it names none)."""
        return tuple(self._canon.get(name.lower().strip(), ()))

    def is_drug(self, name: str) -> bool:
        """Does ``name`` name a drug (any variant)?"""
        return name.lower().strip() in self._canon

    def names(self, name: str) -> tuple[str, ...]:
        """Every clean name of the drug ``name`` names, its canonical names first, ``name`` left out; a variant
        that is a common English word (Zipf >= :data:`COMMON_ZIPF`) is left out unless it is canonical."""
        from clinqa.text.zipf import zipf

        low = name.lower().strip()
        out: list[str] = []
        for c in self.canonical(low):
            for v in (c, *self._variants.get(c, ())):
                if v != low and v not in out and (v == c or zipf(v) < COMMON_ZIPF):
                    out.append(v)
        return tuple(out)


def _package_dictionary() -> tuple[Path, str]:
    spec = importlib.util.find_spec("drug_named_entity_recognition")
    if spec is None or spec.origin is None:
        raise ModuleNotFoundError("drug-named-entity-recognition is not installed (pip install "
                                  "drug-named-entity-recognition)")
    try:
        ver = version("drug-named-entity-recognition")
    except PackageNotFoundError:
        ver = "unknown"
    return Path(spec.origin).parent / "drug_ner_dictionary.pkl.bz2", ver


def read_package(path: Path) -> dict[str, list[str]]:
    """The clean ``variant -> canonical`` names of the package's dictionary file ``path``. Raises
    FileNotFoundError or ValueError naming the file when it cannot be read."""
    try:
        with bz2.open(path, "rb") as fh:
            raw = pickle.load(fh)  # the package's own shipped data file
        table = raw["drug_variant_to_canonical"]
    except (OSError, EOFError, KeyError, pickle.UnpicklingError) as e:
        raise ValueError(f"{path}: not the drug-named-entity-recognition dictionary ({e})") from e
    out: dict[str, list[str]] = {}
    for v, cs in table.items():
        v = combination_name(v.lower())
        keep = [c for c in (combination_name(c.lower()) for c in cs) if clean_name(c)]
        if clean_name(v) and keep:
            out[v] = keep
    return out


@lru_cache(maxsize=1)
def drug_names() -> DrugNames:
    """The process's :class:`DrugNames`: from the cache file when it matches the installed package's version,
    else read from the package and cached (atomically)."""
    from clinqa.paths import cache_dir

    path, ver = _package_dictionary()
    cached = cache_dir() / "lexicon" / f"drugs-{ver}-{_FORMAT}.json"
    if cached.exists():
        try:
            return DrugNames(json.loads(cached.read_text()))
        except ValueError:
            pass  # a damaged cache file is rebuilt
    table = read_package(path)
    try:
        cached.parent.mkdir(parents=True, exist_ok=True)
        tmp = cached.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(table, separators=(",", ":")))
        os.replace(tmp, cached)
    except OSError:
        pass  # a read-only cache: read the package again next time
    return DrugNames(table)
