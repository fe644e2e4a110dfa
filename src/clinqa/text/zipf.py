"""Zipf frequency of a word in general English, from ``wordfreq`` (Speer et al., 'best' English
wordlist), with a start-up shortcut.

``wordfreq.zipf_frequency`` costs about 0.25 s on its first call in a new process (importing
wordfreq with langcodes, ftfy and regex, then decoding its msgpack wordlist into a dict of 321k
words): an eighth of a cold ``clinqa ask``. clinqa only asks about lower-case ASCII words, so
:func:`zipf` reads those from a *table* derived once from the same wordlist (:func:`build_table`:
the words, sorted, and their Zipf values rounded to 0.01 as wordfreq rounds them) and kept in the
cache folder beside the ONNX export (``<cache>/wordfreq/en-best-<wordfreq version>.bin``); any other
word, or a machine where the cache cannot be written, goes to wordfreq itself. The table is
checked to agree with ``wordfreq.zipf_frequency`` word for word in ``tests/text/test_zipf.py``.

Zipf scale (Brysbaert & New 2009, as wordfreq defines it): log10 of occurrences per billion words;
0 for a word wordfreq does not list, about 7.7 for "the".
"""

from __future__ import annotations

import bisect
import contextlib
import math
import os
import struct
from collections.abc import Sequence
from functools import lru_cache
from importlib.metadata import version
from pathlib import Path
from typing import overload

from clinqa.paths import cache_dir
from clinqa.text.words import LETTER_RUN

#: the words the table answers for; anything else goes to wordfreq
TABLE_WORD = LETTER_RUN

_MAGIC = b"clinqa-zipf-1\n"


def table_path() -> Path:
    """Where the table for the installed wordfreq version lives (:func:`clinqa.paths.cache_dir`)."""
    return cache_dir() / "wordfreq" / f"en-best-{version('wordfreq')}.bin"


def build_table() -> tuple[list[str], list[int]]:
    """``(words, centizipf)`` of wordfreq's English 'best' wordlist, restricted to :data:`TABLE_WORD`
    words and sorted: ``centizipf[i]`` is ``round(100 * zipf(words[i]))``."""
    from wordfreq import get_frequency_dict

    freqs = get_frequency_dict("en", wordlist="best")
    pairs = sorted((w, round(100 * (math.log10(f) + 9))) for w, f in freqs.items()
                   if f > 0 and TABLE_WORD.fullmatch(w))
    return [w for w, _ in pairs], [z for _, z in pairs]


def write_table(path: Path, words: list[str], centizipf: list[int]) -> None:
    """Write the table atomically (a temporary file renamed over ``path``); raises ``OSError``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    blob = "\n".join(words).encode("ascii")
    tmp = path.with_suffix(f".tmp{os.getpid()}")
    with open(tmp, "wb") as fh:
        fh.write(_MAGIC + struct.pack("<II", len(words), len(blob)) + blob)
        fh.write(struct.pack(f"={len(centizipf)}H", *centizipf))  # native order: read by memoryview.cast
    os.replace(tmp, path)


class TableWords(Sequence[str]):
    """The table's sorted words, read one at a time from its newline-separated ASCII ``blob`` (what
    :func:`bisect.bisect_left` needs: ``len`` and indexing). Splitting the 290k words into a list took about
    20 ms of a cold ``clinqa ask``; finding the line ends is one NumPy pass (a start-up saving)."""

    def __init__(self, blob: bytes) -> None:
        """``blob``: the words joined by ``\\n``, ASCII, at least one word."""
        import numpy as np

        self._blob = blob
        ends = np.flatnonzero(np.frombuffer(blob, dtype=np.uint8) == ord("\n"))
        self._starts = np.concatenate(([0], ends + 1))
        self._ends = np.concatenate((ends, [len(blob)]))

    def __len__(self) -> int:
        return len(self._starts)

    @overload
    def __getitem__(self, i: int) -> str: ...

    @overload
    def __getitem__(self, i: slice) -> list[str]: ...

    def __getitem__(self, i: int | slice) -> str | list[str]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError("table word index out of range")
        return self._blob[self._starts[i]:self._ends[i]].decode("ascii")

    def __eq__(self, other: object) -> bool:
        """Equal to any sequence of the same words in the same order (a list of them included)."""
        if not isinstance(other, Sequence) or len(self) != len(other):
            return False
        return all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]


def read_table(path: Path) -> tuple[Sequence[str], memoryview] | None:
    """The table at ``path`` (its words as :class:`TableWords`), or None when it is missing, truncated or of
    another format."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    head = len(_MAGIC) + 8
    if not data.startswith(_MAGIC) or len(data) < head:
        return None
    n, size = struct.unpack_from("<II", data, len(_MAGIC))
    if len(data) != head + size + 2 * n:
        return None
    blob = data[head:head + size]
    if not blob.isascii():
        blob.decode("ascii")  # raises, as decoding the words always did
    words: Sequence[str] = TableWords(blob) if n else []
    if len(words) != n:
        return None
    return words, memoryview(data[head + size:]).cast("H")


@lru_cache(maxsize=1)
def _table() -> tuple[Sequence[str], Sequence[int]] | None:
    try:
        path = table_path()
    except Exception:  # wordfreq metadata missing: no shortcut
        return None
    found = read_table(path)
    if found is not None:
        return found
    words, cz = build_table()
    with contextlib.suppress(OSError):  # a read-only cache: answer from memory this time
        write_table(path, words, cz)
    return words, cz


@lru_cache(maxsize=20000)
def zipf(word: str) -> float:
    """Zipf frequency of ``word`` in general English (wordfreq 'best' English wordlist), rounded to
    0.01; 0.0 for a word wordfreq does not list. Same value as ``wordfreq.zipf_frequency(word, "en")``."""
    if TABLE_WORD.fullmatch(word):
        table = _table()
        if table is not None:
            words, cz = table
            i = bisect.bisect_left(words, word)
            return cz[i] / 100 if i < len(words) and words[i] == word else 0.0
    from wordfreq import zipf_frequency

    return float(zipf_frequency(word, "en"))
