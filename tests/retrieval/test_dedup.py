import json
from pathlib import Path

import pytest

from clinqa.chunking import SectionChunker
from clinqa.documents.loaders import load_file
from clinqa.retrieval.dedup import body_text, collapse_near_duplicates, jaccard, shingles

# 40 words, no repeated word trigram (checked below), so shingle counts are easy to reason about.
HPI = (
    "Patient seen today for follow up of atrial fibrillation. She reports occasional palpitations "
    "when climbing stairs but denies chest pain, syncope or dizziness. Warfarin was continued with "
    "INR checks every two weeks at the anticoagulation clinic near her own home."
)
# The same paragraph with one word changed: word 12 (index 11) "occasional" -> "frequent".
HPI_EDITED = HPI.replace("occasional", "frequent")
# Same patient, same topic, different paragraph.
HPI_OTHER = (
    "Atrial fibrillation follow up. INR has been labile over the past three months, so warfarin "
    "was stopped today and apixaban 5 mg twice daily was started. Palpitations are rare and she "
    "denies any bleeding or bruising."
)
MEDS = "Current medications: metformin 1000 mg twice daily and apixaban 5 mg every twelve hours."


def chunk(date: str, body: str, section: str = "HPI") -> str:
    """A chunk text as clinqa.chunking.base.compose writes it for a note with no title."""
    return f"progress note {date} > {section}\n\n{body}"


def test_shingles_and_jaccard_basics() -> None:
    assert shingles("Warfarin, 5 mg!  DAILY", n=2) == {"warfarin 5", "5 mg", "mg daily"}
    assert shingles("INR 2.5; target 2-3", n=3) == {"inr 2.5 target", "2.5 target 2-3"}
    assert shingles("Stable.", n=5) == {"stable"}  # shorter than n: one shingle of all words
    assert shingles("on apixaban", n=5) == {"on apixaban"}
    assert shingles(" -- ", n=3) == set()
    with pytest.raises(ValueError):
        shingles("x", n=0)
    assert jaccard(set(), set()) == 0.0
    assert jaccard({"a"}, set()) == 0.0
    assert jaccard({"a", "b"}, {"b", "c"}) == pytest.approx(1 / 3)


def test_body_text_strips_only_a_one_line_header() -> None:
    assert body_text(chunk("2023-04-01", "line one\nline two\n\npara two")) == "line one\nline two\n\npara two"
    assert body_text("no header at all") == "no header at all"
    # a multi-line first block is not a header (headers are one line): kept whole
    assert body_text("first line\nsecond line\n\nnext paragraph") == "first line\nsecond line\n\nnext paragraph"


def test_body_text_matches_real_chunk_headers(tmp_path: Path) -> None:
    recs = [
        {"patient_id": "P0001", "note_id": "N1", "date": "2023-04-01", "note_type": "progress",
         "text": f"HPI:\n{HPI}\n\n{HPI_OTHER}\n\nMEDICATIONS:\n{MEDS}"},
        {"patient_id": "P0001", "note_id": "N2", "date": "2024-02-11", "note_type": "discharge",
         "title": "Discharge summary", "text": f"HPI:\n{HPI}"},
    ]
    path = tmp_path / "notes.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in recs), encoding="utf-8")
    chunks = [c for doc in load_file(path, "notes") for c in SectionChunker(None).chunk(doc)]
    assert [c.text.split("\n")[0] for c in chunks] == [
        "progress note 2023-04-01 > HPI",
        "progress note 2023-04-01 > MEDICATIONS",
        "Discharge summary (discharge note 2024-02-11) > HPI",
    ]
    for c in chunks:
        assert body_text(c.text) == c.body


def test_exact_copy_collapses() -> None:
    groups = collapse_near_duplicates([HPI, HPI], text_of=lambda t: t)
    assert groups == [(HPI, [HPI])]


def test_one_word_edit_in_40_words_collapses_at_0_8() -> None:
    assert len(HPI.split()) == 40
    a, b = shingles(HPI), shingles(HPI_EDITED)
    # n = 3: a 40-word text has 40 - 3 + 1 = 38 trigrams, all distinct here.
    # Changing word index 11 alters the 3 trigrams starting at indexes 9, 10 and 11,
    # so the two sets share 38 - 3 = 35 and their union is 38 + 3 = 41:
    # J = 35 / 41 = 0.8537 >= 0.8.
    assert len(a) == len(b) == 38
    assert len(a & b) == 35 and len(a | b) == 41
    assert jaccard(a, b) == pytest.approx(35 / 41)
    assert collapse_near_duplicates([HPI, HPI_EDITED], text_of=lambda t: t, threshold=0.8) == [(HPI, [HPI_EDITED])]
    # With 5-word shingles the same edit alters 5 of 36 shingles: J = 31 / 41 = 0.756 < 0.8,
    # which is why the default is n = 3 (see the module docstring).
    a5, b5 = shingles(HPI, n=5), shingles(HPI_EDITED, n=5)
    assert (len(a5), len(a5 & b5), len(a5 | b5)) == (36, 31, 41)
    assert collapse_near_duplicates([HPI, HPI_EDITED], text_of=lambda t: t, n=5) == [(HPI, []), (HPI_EDITED, [])]


def test_different_paragraph_on_same_topic_is_kept() -> None:
    assert jaccard(shingles(HPI), shingles(HPI_OTHER)) < 0.1
    assert collapse_near_duplicates([HPI, HPI_OTHER], text_of=lambda t: t) == [(HPI, []), (HPI_OTHER, [])]


def test_headers_differing_only_in_date_do_not_prevent_collapse() -> None:
    a, b = chunk("2023-04-01", MEDS, "MEDICATIONS"), chunk("2024-02-11", MEDS, "MEDICATIONS")
    # Full texts: 4 header words + 14 body words = 18 words, 16 trigrams each; the 3 trigrams
    # containing the date differ, so J = 13 / 19 = 0.68 and they would not collapse without body_text.
    assert len(shingles(a)) == 16
    assert jaccard(shingles(a), shingles(b)) == pytest.approx(13 / 19)
    assert collapse_near_duplicates([a, b], text_of=lambda t: t) == [(a, [b])]


def test_order_and_grouping_exact() -> None:
    # (rank, text) items; text_of picks the text. Ranks 1..7, best first.
    items = [
        (1, chunk("2024-02-11", HPI)),
        (2, chunk("2024-02-11", MEDS, "MEDICATIONS")),
        (3, chunk("2023-04-01", HPI_OTHER)),
        (4, chunk("2023-04-01", HPI_EDITED)),
        (5, chunk("2022-09-30", MEDS, "MEDICATIONS")),
        (6, chunk("2022-09-30", HPI)),
        (7, chunk("2021-01-05", "Plan: recheck INR in two weeks.", "PLAN")),
    ]
    groups = collapse_near_duplicates(items, text_of=lambda it: it[1])
    assert [(kept[0], [d[0] for d in dups]) for kept, dups in groups] == [
        (1, [4, 6]),
        (2, [5]),
        (3, []),
        (7, []),
    ]
    assert collapse_near_duplicates([], text_of=str) == []


def test_joins_first_matching_kept_item_and_does_not_chain() -> None:
    base = " ".join(f"w{i}" for i in range(40))
    one = base.replace("w20", "x20")  # J(base, one) = 35/41
    two = one.replace("w30", "x30")  # J(one, two) = 35/41, J(base, two) = 32/44 < 0.8
    assert jaccard(shingles(base), shingles(two)) == pytest.approx(32 / 44)
    # "one" joins "base"; "two" is compared with kept items only (base), so it starts a group.
    assert collapse_near_duplicates([base, one, two], text_of=lambda t: t) == [(base, [one]), (two, [])]
    # an item similar to two kept items joins the first (best-ranked) of them
    assert collapse_near_duplicates([two, base, one], text_of=lambda t: t) == [(two, [one]), (base, [])]
