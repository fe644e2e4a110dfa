"""The Zipf table (clinqa.text.zipf) against its reference, wordfreq.zipf_frequency."""

from __future__ import annotations

import random

import pytest
from wordfreq import get_frequency_dict, zipf_frequency

from clinqa.text import zipf as zipf_module
from clinqa.text.zipf import build_table, read_table, write_table, zipf


@pytest.fixture
def own_cache(tmp_path, monkeypatch):
    """A fresh cache folder, and the in-process table and word caches emptied before and after."""
    monkeypatch.setenv("CLINQA_CACHE_DIR", str(tmp_path))
    zipf_module._table.cache_clear()
    zipf.cache_clear()
    yield tmp_path
    zipf_module._table.cache_clear()
    zipf.cache_clear()


def test_agrees_with_wordfreq_word_for_word(own_cache):
    listed = [w for w in get_frequency_dict("en", wordlist="best") if w.isascii() and w.isalpha() and w.islower()]
    sample = random.Random(7).sample(listed, 4000)
    clinical = ["cough", "metformin", "erectile", "elective", "the", "preeclampsia", "lithium", "bronchitis",
                "amoxicillin", "xyzzyqq", "wegeners", "efectes", "Cough", "don't", "covid-19", "eGFR", "naïve"]
    for w in sample + clinical:
        assert zipf(w) == pytest.approx(zipf_frequency(w, "en"), abs=1e-9), w
    assert (own_cache / "wordfreq").is_dir()  # the table was written on first use


def test_known_values(own_cache):
    # wordfreq 3.1.1, 'best' English list
    assert zipf("the") == 7.73
    assert zipf("cough") == 3.95
    assert zipf("xyzzyqq") == 0.0


def test_table_round_trip_and_corruption(tmp_path):
    words, cz = ["alpha", "beta", "gamma"], [512, 300, 0]
    path = tmp_path / "t.bin"
    write_table(path, words, cz)
    got = read_table(path)
    assert got is not None
    assert got[0] == words and list(got[1]) == cz
    path.write_bytes(path.read_bytes()[:-1])  # truncated: refused, rebuilt by the caller
    assert read_table(path) is None
    assert read_table(tmp_path / "missing.bin") is None


def test_unwritable_cache_still_answers(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("CLINQA_CACHE_DIR", str(blocker))
    zipf_module._table.cache_clear()
    zipf.cache_clear()
    try:
        assert zipf("cough") == 3.95
    finally:
        zipf_module._table.cache_clear()
        zipf.cache_clear()


def test_build_table_is_sorted_lower_ascii():
    words, cz = build_table()
    assert words == sorted(words)
    assert all(w.isascii() and w.isalpha() and w.islower() for w in words[:1000])
    assert len(words) == len(cz) > 250_000
