"""Lexical coverage: content words, words the corpus never mentions, rare words."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from clinqa.chunking.base import Chunk
from clinqa.evidence.coverage import content_terms, missing_terms, term_counts, unmentioned_in
from clinqa.retrieval.filters import Filters
from clinqa.store import LanceStore


def test_content_terms() -> None:
    assert content_terms("What is the dose of Dexamethasone for bacterial meningitis in adults?") == [
        "dose", "dexamethasone", "bacterial", "meningitis", "adults"]
    assert content_terms("Should a woman with CHA2DS2-VASc of 2 get a beta-blocker?") == [
        "woman", "cha2ds2-vasc", "beta-blocker"]


def _anticoagulation_store(tmp_path: Path) -> LanceStore:
    """A store of 43 chunks of one document: one names women, one beta blockers, one warfarin, and 42 name
    anticoagulation."""
    store = LanceStore(tmp_path / "db")
    texts = ["Women with atrial fibrillation need anticoagulation.", "Beta blockers in surgery.",
             "Anticoagulation with warfarin."] + [f"Anticoagulation note {i}." for i in range(40)]
    chunks = [Chunk(chunk_id=f"d#s#{i}", doc_id="d", text=t, body=t) for i, t in enumerate(texts)]
    store.replace_documents(["d"], chunks, np.ones((len(chunks), 4), dtype=np.float32))
    store.refresh_indexes()
    return store


def test_missing_and_rare_terms(tmp_path: Path) -> None:
    store = _anticoagulation_store(tmp_path)
    q = "Should a woman on warfarin take dexamethasone and a beta-blocker for anticoagulation?"
    # "woman" matches "women" (irregular plural); hyphenated words need every part
    assert missing_terms(store, content_terms(q), Filters()) == ["dexamethasone"]
    counts = term_counts(store, content_terms(q), Filters(), cap=30)
    assert counts == {"woman": 1, "warfarin": 1, "dexamethasone": 0, "beta-blocker": 1, "anticoagulation": 30}
    # a one-letter part is not a word of the index: "T-score" was "never mentioned" beside "T-score <= -2.5"
    # (new-user helper); it counts by "score"
    bone = LanceStore(tmp_path / "bone")
    t = "Osteoporosis: T-score <= -2.5 at the femoral neck."
    bone.replace_documents(["b"], [Chunk(chunk_id="b#s#0", doc_id="b", text=t, body=t)], np.ones((1, 4), np.float32))
    bone.refresh_indexes()
    assert term_counts(bone, content_terms("How is osteoporosis diagnosed by T-score?"), Filters(), cap=30) == {
        "osteoporosis": 1, "diagnosed": 0, "t-score": 1}


def test_unmentioned_in() -> None:
    assert unmentioned_in(["Anticoagulants reduce stroke in Women."], ["anticoagulant", "woman", "warfarin"]) == [
        "warfarin"]


def test_time_words_and_patient_are_not_content_terms() -> None:
    from clinqa.evidence.coverage import content_terms

    # read by the time-intent parser instead; a warning that the corpus "never mentions 'since'" misleads
    assert content_terms("What did guidelines since 2021 say about AKI over the last five years?") == [
        "guidelines", "aki"]
    assert content_terms("What is the patient's latest eGFR?") == ["egfr"]


def test_unmentioned_in_folds_british_spelling() -> None:
    from clinqa.evidence.coverage import unmentioned_in

    assert unmentioned_in(["Acute ischemic stroke: alteplase."], ["ischaemic", "stroke", "haemorrhage"]) == [
        "haemorrhage"]


def test_unmentioned_in_reads_synonyms_and_class_members_with_a_matcher() -> None:
    from clinqa.retrieval.synonyms import term_matches

    texts = ["Reassess A1C every 3 months.", "Start warfarin 5 mg daily."]
    # a false "do not mention 'hba1c'" beside "A1C" and "'anticoagulant'" beside warfarin (new-user helper)
    assert unmentioned_in(texts, ["hba1c", "anticoagulant", "apixaban"]) == ["hba1c", "anticoagulant", "apixaban"]
    assert unmentioned_in(texts, ["hba1c", "anticoagulant", "apixaban"], term_matches) == ["apixaban"]


def test_a_swapped_stop_word_is_a_typo_not_a_missing_word() -> None:
    from clinqa.evidence.coverage import typo_of_stopword

    assert typo_of_stopword("waht") and typo_of_stopword("hwo") and typo_of_stopword("teh")
    assert not typo_of_stopword("what") and not typo_of_stopword("warfarin") and not typo_of_stopword("ckd")


def test_missing_and_rare_read_from_the_question_alone(tmp_path: Path) -> None:
    """The coverage of the question's words is read from its profile and the store alone, before any search
    (issue 48, walk round 6: gathering counts the words first, then searches), in coverage.py: "dexamethasone"
    (no chunk) is missing, "warfarin" (1 chunk of 43, below RARE_BELOW) rare, "anticoagulation" (42) neither;
    the time goes to timings_ms["coverage"]."""
    from clinqa.evidence.coverage import missing_and_rare
    from clinqa.question.profile import QuestionProfile

    store = _anticoagulation_store(tmp_path)
    profile = QuestionProfile.read("Should a woman on warfarin take dexamethasone for anticoagulation?")
    timings: dict[str, float] = {}
    missing, rare = missing_and_rare(store, profile, Filters(), "warn", timings)
    assert (missing, rare) == (["dexamethasone"], ["woman", "warfarin"]) and timings["coverage"] >= 0.0
    assert missing_and_rare(store, profile, Filters(), "ignore", {}) == ([], [])
