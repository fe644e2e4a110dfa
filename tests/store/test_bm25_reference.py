"""The BM25 of clinqa.store.sparse (as the Qdrant store scores it: our term weights, Qdrant's IDF modifier)
against bm25s, a reference implementation (issue 48, item 6: bm25s checks its BM25 against others).

bm25s's "lucene" method has the same IDF, ``ln(1 + (N - df + 0.5) / (df + 0.5))``, and the same length
normalisation, but Lucene's term-frequency part without the ``(k1 + 1)`` factor (Lucene dropped it in 8.0;
it scales every score alike and leaves the ranking as it is):

    ours:  idf(t) * tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl))
    bm25s: idf(t) * tf            / (tf + k1 * (1 - b + b * dl / avgdl))

so our score is ``(k1 + 1)`` times bm25s's. Both are fed the same tokens (:func:`index_terms`: no stemming
beyond clinqa's plural folding, stop words dropped); a query term counts once, as in clinqa."""

from __future__ import annotations

from collections.abc import Iterator

import bm25s
import numpy as np
import pytest

from clinqa.chunking.base import Chunk
from clinqa.retrieval.filters import Filters
from clinqa.store.qdrant import QdrantStore
from clinqa.store.sparse import K1, B, index_terms

CORPUS = [
    "Warfarin dosing is guided by the INR; the INR target is 2-3 for most patients.",
    "Apixaban 5 mg twice daily; reduce to 2.5 mg twice daily with two of age, weight or creatinine criteria.",
    "Statins after myocardial infarction: high-intensity atorvastatin 80 mg daily.",
    "Warfarin warfarin warfarin: a long note that repeats the drug name to test term frequency saturation.",
    "Community-acquired pneumonia in adults: amoxicillin 500 mg three times daily for 5 days.",
    "Severe pneumonia needs intravenous antibiotics and admission.",
    "Heparin-induced thrombocytopenia: stop heparin and start a non-heparin anticoagulant.",
    "The INR is checked weekly when warfarin is started.",
    "Metformin is first-line therapy in type 2 diabetes unless eGFR is below 30.",
    "Diabetes with heart failure: add an SGLT2 inhibitor such as dapagliflozin 10 mg daily.",
    "Hypertension: start an ACE inhibitor or a calcium channel blocker; target blood pressure below 140/90.",
    "Asthma: inhaled corticosteroids, with a short-acting beta agonist as reliever.",
    "COPD exacerbation: prednisolone 30 mg daily for 5 days and antibiotics if sputum is purulent.",
    "Atrial fibrillation: anticoagulate with apixaban or warfarin when CHA2DS2-VASc is 2 or more.",
    "Sepsis: give antibiotics within one hour and 30 mL/kg of crystalloid for hypotension.",
    "Vancomycin dosing by creatinine clearance: 15 mg/kg every 24 hours at 50-90 mL/min.",
    "Gout flare: colchicine or a non-steroidal anti-inflammatory drug; allopurinol later.",
    "Pregnancy: warfarin is avoided in the first trimester; low molecular weight heparin is preferred.",
    "Children with fever under 3 months need urgent assessment.",
    "Short note.",
]
QUERIES = ["warfarin", "warfarin INR target", "pneumonia antibiotics", "heparin pregnancy",
           "apixaban dose reduction criteria", "diabetes daily mg", "fever children months", "nothing matches zzz"]


@pytest.fixture(scope="module")
def stores() -> Iterator[tuple[QdrantStore, bm25s.BM25]]:
    chunks = [Chunk(chunk_id=f"d{i}#s#0", doc_id=f"d{i}", text=t, body=t) for i, t in enumerate(CORPUS)]
    ours = QdrantStore(":memory:")
    vectors = np.random.default_rng(0).normal(size=(len(chunks), 8)).astype(np.float32)
    ours.replace_documents([c.doc_id for c in chunks], chunks, vectors)  # one write: avgdl is the corpus mean
    reference = bm25s.BM25(method="lucene", k1=K1, b=B)
    reference.index([index_terms(t) for t in CORPUS], show_progress=False)
    yield ours, reference
    ours.close()


def test_same_parameters_and_corpus_length() -> None:
    assert (K1, B) == (1.2, 0.75)
    lengths = [len(index_terms(t)) for t in CORPUS]
    assert min(lengths) == 2 and max(lengths) > 10  # "Short note." vs the long ones: b matters


@pytest.mark.parametrize("query", QUERIES)
def test_scores_equal_bm25s_lucene_times_k1_plus_1(stores: tuple[QdrantStore, bm25s.BM25], query: str) -> None:
    ours, reference = stores
    terms = list(dict.fromkeys(index_terms(query)))  # each distinct query term once, as query_weights
    expected = (K1 + 1) * np.asarray(reference.get_scores(terms), dtype=np.float64)
    hits = ours.bm25_search(query, len(CORPUS), Filters())
    got = {int(h.chunk.doc_id[1:]): h.score for h in hits}
    # every document bm25s scores above 0 is found, with its score; none other is
    assert set(got) == {i for i, s in enumerate(expected) if s > 0}
    for i, score in got.items():
        assert score == pytest.approx(expected[i], abs=1e-5), CORPUS[i]
    assert [h.score for h in hits] == sorted(got.values(), reverse=True)


def test_the_reference_scores_differ_from_ours_only_by_the_factor(stores: tuple[QdrantStore, bm25s.BM25]) -> None:
    """One score by hand: "warfarin" in d7 ("The INR is checked weekly when warfarin is started."; terms
    inr, checked, weekly, when, warfarin, started: dl 6; "the" and "is" are stop words), df(warfarin) = 5 of
    N = 20 (d0, d3, d7, d13, d17)."""
    ours, reference = stores
    lengths = [len(index_terms(t)) for t in CORPUS]
    avgdl = sum(lengths) / len(lengths)
    assert index_terms(CORPUS[7]) == ["inr", "checked", "weekly", "when", "warfarin", "started"]
    assert sum("warfarin" in index_terms(t) for t in CORPUS) == 5
    idf = np.log(1 + (20 - 5 + 0.5) / (5 + 0.5))
    lucene = idf * 1 / (1 + K1 * (1 - B + B * 6 / avgdl))
    assert reference.get_scores(["warfarin"])[7] == pytest.approx(lucene, abs=1e-6)
    hit = next(h for h in ours.bm25_search("warfarin", 20, Filters()) if h.chunk.doc_id == "d7")
    assert hit.score == pytest.approx((K1 + 1) * lucene, abs=1e-5)


def test_the_lancedb_tokenizer_stems_as_its_full_text_index_did():
    """LanceDB's per-scope BM25 (store/bm25_index.py) stems with Snowball English, as LanceDB's own full-text index
    (tantivy's en_stem) did: word forms that index joined stay joined; the Qdrant tokenizer folds plurals only."""
    from clinqa.store.sparse import index_terms, snowball, stemmed_terms

    assert stemmed_terms("Dosing of the treated patients' INR targets") == ["dose", "treat", "patient", "inr", "target"]
    assert index_terms("Dosing of the treated patients' INR targets") == ["dosing", "treated", "patient", "inr",
                                                                           "target"]
    assert [snowball(w) for w in ("standing", "stand", "anticoagulation", "anticoagulant")] == [
        "stand", "stand", "anticoagul", "anticoagul"]
