"""Synonym expansion in the BM25 query (retrieval.expand_synonyms), on a small hand-made notes store."""

from __future__ import annotations

import json

import pytest

from clinqa.pipeline import Pipeline
from clinqa.retrieval import hybrid_search
from clinqa.settings import Settings

# patient P-C: only N2 answers "What SGLT2 inhibitor ...?", and it never says "SGLT2", "inhibitor" or "started"
NOTES = [
    ("P-C", "N1", "2021-03-02", "HPI:\nType 2 diabetes on metformin.\n\nPLAN:\nMetformin was started at 500 mg.\n"),
    ("P-C", "N2", "2022-06-10", "HPI:\nChronic kidney disease stage 3b. eGFR 38.\n\nPLAN:\nDapagliflozin 10 mg once "
                                "daily added.\n"),
    ("P-C", "N3", "2023-01-15", "HPI:\nAnnual review. Losartan 50 mg daily continued. Blood pressure 126/78.\n"),
    ("P-D", "N1", "2022-06-11", "HPI:\nEmpagliflozin 10 mg daily added for type 2 diabetes.\n"),  # another patient
]
QUESTION = "What SGLT2 inhibitor was started?"
MEMBERS = ["empagliflozin", "dapagliflozin", "canagliflozin", "ertugliflozin"]


@pytest.fixture(scope="module")
def pipe(tmp_path_factory: pytest.TempPathFactory) -> Pipeline:
    src = tmp_path_factory.mktemp("expansion-notes") / "notes.jsonl"
    src.write_text("".join(json.dumps({"patient_id": p, "note_id": n, "date": d, "note_type": "progress",
                                       "author_role": "physician", "text": t}) + "\n" for p, n, d, t in NOTES))
    p = Pipeline(Settings(data_dir=tmp_path_factory.mktemp("expansion-store")))
    assert p.ingest([src], progress=False).failed == []
    return p


def _bm25_docs(p: Pipeline, expand: bool) -> tuple[list[str], dict[str, list[str]]]:
    rs = p.settings.retrieval.model_copy(update={"expand_synonyms": expand})
    res = hybrid_search(p.store, p.encoder, QUESTION, p.filters(patient_id="P-C"), rs)
    assert res.query == QUESTION
    return [h.chunk.doc_id for h in res.bm25], res.expansion


def test_bm25_finds_class_member_only_with_expansion(pipe: Pipeline) -> None:
    on, expansion = _bm25_docs(pipe, True)
    off, none = _bm25_docs(pipe, False)
    assert set(on) == {"note:P-C:N1", "note:P-C:N2"}  # N1 through "started" (both words are as rare)
    assert expansion == {"SGLT2 inhibitor": MEMBERS}
    assert "note:P-C:N2" not in off and none == {}
    assert off == ["note:P-C:N1"]  # "started" alone matches the metformin note
    assert all(d.startswith("note:P-C:") for d in on + off)  # expansion never widens the patient scope


def test_answer_reports_expansion_and_keeps_question(pipe: Pipeline) -> None:
    ans = pipe.ask(QUESTION, pipe.filters(patient_id="P-C")).to_dict()
    assert ans["question"] == QUESTION
    assert ans["query_expansion"] == {"SGLT2 inhibitor": MEMBERS}
    assert "P-D" not in json.dumps(ans)
    plain = pipe.ask("When was metformin started?", pipe.filters(patient_id="P-C")).to_dict()
    assert plain["query_expansion"] == {}


def test_setting_is_described() -> None:
    field = Settings.model_fields["retrieval"].annotation.model_fields["expand_synonyms"]  # type: ignore[union-attr]
    assert field.default is True and "BM25" in (field.description or "")
