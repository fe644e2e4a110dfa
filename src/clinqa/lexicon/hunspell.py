"""An optional system medical word list: Debian's ``hunspell-en-med`` (about 90,000 medical words, GPL-3+).

clinqa never ships it (its licence is not MIT's); when the machine has it, the lexicon reads it as a list of words
that are medical and so never a typo and never "repaired": ``apt-get install hunspell-en-med`` puts it at
:data:`SYSTEM_PATH`. Another Hunspell ``.dic`` file can be named with the environment variable
``CLINQA_MEDICAL_DICTIONARY`` (set to an empty string to ignore the system one). Format (Hunspell ``.dic``): a
first line with the word count, then one word per line, optionally followed by ``/`` and affix flags, which are
ignored (only the stems are read).
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

SYSTEM_PATH = Path("/usr/share/hunspell/en_med_glut.dic")
ENV = "CLINQA_MEDICAL_DICTIONARY"


def dictionary_path() -> Path | None:
    """The word list in force: ``$CLINQA_MEDICAL_DICTIONARY`` when set (None when it is empty), else
    :data:`SYSTEM_PATH` when it exists, else None."""
    named = os.environ.get(ENV)
    if named is not None:
        return Path(named) if named.strip() else None
    return SYSTEM_PATH if SYSTEM_PATH.exists() else None


@lru_cache(maxsize=4)
def read_words(path: Path) -> frozenset[str]:
    """The lower-case words of the Hunspell ``.dic`` file ``path`` (affix flags dropped, the count line skipped).
    Raises ValueError naming the file when it cannot be read."""
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError as e:
        raise ValueError(f"{path}: cannot read the medical word list ({e})") from e
    words = set()
    for i, line in enumerate(lines):
        word = line.split("/", 1)[0].strip().lower()
        if not word or (i == 0 and word.isdigit()):
            continue
        words.add(word)
    return frozenset(words)


def medical_words() -> frozenset[str]:
    """The optional medical word list's words, or an empty set when the machine has none."""
    path = dictionary_path()
    return read_words(path) if path is not None else frozenset()
