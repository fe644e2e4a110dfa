"""Extractive answer units, sentence selection and the cosine gate."""

from __future__ import annotations

import numpy as np

from clinqa.answer import CosineGate, extract_answer, units_of
from clinqa.chunking.base import Chunk
from clinqa.retrieval.filters import Filters
from clinqa.retrieval.hybrid import RetrievalResult, Retrieved
from clinqa.store.base import Hit


def test_units_of_paragraphs_lists_and_tables() -> None:
    body = (
        "Statins should be continued. They reduce events after surgery.\n\n"
        "- Continue aspirin if possible.\n- Restart P2Y12 inhibitors early.\n\n"
        "| Medication | Already Taking | Note |\n|---|---|---|\n| **Statins** | Continue (Class I) | |\n\n"
        "Women:\n\n- CHA2DS2-VASc = 2: OAC may be considered.\n\n- CHA2DS2-VASc >= 3: OAC is recommended.\n\n"
        "Notes:\n\n"
        "1. Patient already on a beta-blocker?\n   - Yes: Continue.\n   - No: go to step 2.\n\n"
        "Is this a question?\n\n"
        "Do not start on the day of surgery. (Class III: Harm, Level of Evidence: B)"
    )
    assert units_of(body) == [
        "Statins should be continued.",
        "They reduce events after surgery.",
        "Continue aspirin if possible.",
        "Restart P2Y12 inhibitors early.",
        "Medication: Statins; Already Taking: Continue (Class I)",
        "Women: CHA2DS2-VASc = 2: OAC may be considered.",
        "Women: CHA2DS2-VASc >= 3: OAC is recommended.",
        "Notes: Patient already on a beta-blocker? Yes: Continue. No: go to step 2.",
        "Do not start on the day of surgery. (Class III: Harm, Level of Evidence: B)",
    ]


class KeywordEncoder:
    """A transparent stand-in for a bi-encoder in unit tests: one dimension per keyword."""

    words = ("heparin", "insulin", "warfarin")
    dim = 3
    model_id = "kw"
    max_tokens = 512

    def encode_passages(self, texts, progress=False):
        v = np.array([[t.lower().count(w) for w in self.words] for t in texts], dtype=np.float32) + 1e-6
        return v / np.linalg.norm(v, axis=1, keepdims=True)

    encode_queries = encode_passages


def hit(cid: str, body: str, rank: int) -> Retrieved:
    chunk = Chunk(chunk_id=cid, doc_id=cid.split("#")[0], text=body, body=body, title=cid, section_path=["Dosing"])
    return Retrieved(chunk, 1 / (60 + rank), rank)


def test_extract_picks_relevant_sentences_and_numbers_citations() -> None:
    enc = KeywordEncoder()
    q = enc.encode_queries(["heparin"])[0]
    hits = [
        hit("d1#a#0", "Insulin is given before meals. Heparin is dosed by weight.", 1),
        hit("d2#a#0", "Heparin needs aPTT monitoring today. Warfarin needs INR checks.", 2),
        hit("d3#a#0", "Insulin pumps are common.", 3),
    ]
    # unit 0.6 * cos(q, unit) + 0.4 * cos(q, chunk): heparin sentences score >= 0.6 + 0.4 * 0.7
    ext = extract_answer(q, hits, enc, max_sentences=4, min_score=0.5)
    assert ext.text == "Dosing: Heparin is dosed by weight. [1]\nDosing: Heparin needs aPTT monitoring today. [2]"
    assert [(c.n, c.chunk_id) for c in ext.citations] == [(1, "d1#a#0"), (2, "d2#a#0")]
    assert ext.citations[0].quote == "Heparin is dosed by weight."


def test_extract_always_quotes_the_best_unit() -> None:
    enc = KeywordEncoder()
    ext = extract_answer(enc.encode_queries(["warfarin"])[0], [hit("d1#a#0", "Insulin is given before meals.", 1)],
                         enc, min_score=0.9)
    assert ext.text == "Dosing: Insulin is given before meals. [1]"


def result(top: float | None) -> RetrievalResult:
    c = Chunk(chunk_id="x#a#0", doc_id="x", text="t", body="t")
    dense = [] if top is None else [Hit(c, top, 1, "cosine")]
    hits = [] if top is None else [Retrieved(c, 0.016, 1)]
    return RetrievalResult("q", Filters(), hits, dense, [], np.zeros(3, dtype=np.float32))


def test_gate() -> None:
    g = CosineGate(0.4)
    assert g.decide(result(0.41)).answer
    d = g.decide(result(0.39))
    assert not d.answer and d.signal == 0.39 and "0.39" in d.reason
    assert not g.decide(result(None)).answer


def test_label_shown_once_per_run_and_section_leads() -> None:
    enc = KeywordEncoder()
    body = "Women:\n\n- heparin rule one applies.\n\n- heparin rule two applies.\n\n- insulin rule three."
    ext = extract_answer(enc.encode_queries(["heparin"])[0], [hit("d1#a#0", body, 1)], enc, min_score=0.5)
    assert ext.text == "Dosing: Women: heparin rule one applies. heparin rule two applies. [1]"
    assert ext.citations[0].quote == "Women: heparin rule one applies. Women: heparin rule two applies."
