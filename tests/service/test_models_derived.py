"""The API's answer models are derived from the answer dataclasses (:func:`clinqa.service.models.fields_of`)."""

from __future__ import annotations

import dataclasses

import pytest

from clinqa.answer.types import Answer, Citation
from clinqa.service.models import AskResponse, CitationModel, fields_of

CITATION = Citation(n=2, chunk_id="g#dosing#0", doc_id="g", title="Guide", section="Dosing", year=2021, source="nice",
                    url="https://x/g.pdf#page=4", score=0.61, quote="Give 5 mg.", also_in=["note 2"], page_start=4)


def test_citation_model_is_the_citation_dataclass() -> None:
    assert list(CitationModel.model_fields) == [f.name for f in dataclasses.fields(Citation)]
    assert CitationModel.model_validate(CITATION.to_dict()).model_dump() == CITATION.to_dict()
    schema = CitationModel.model_json_schema()
    assert schema["required"] == ["n", "chunk_id", "doc_id", "title", "section", "year", "source", "url", "score"]
    assert schema["properties"]["also_in"]["description"] == "Other notes holding the same quoted text."


def test_ask_response_is_the_answer_less_internal_fields() -> None:
    assert list(AskResponse.model_fields) == [
        "query_id", "cache_hit", "question", "refused", "answer", "filters", "citations", "related_topics", "related",
        "missing_terms", "reason", "mode", "gate", "timings_ms", "retrieved", "warnings", "time_filter", "sentences",
        "llm", "identifiers", "query_expansion", "standalone_question", "conversation_id", "conversation_turns",
        "decided_by"]
    answer = Answer(question="q", refused=False, answer="Give 5 mg [2].", filters={}, citations=[CITATION],
                    answerability={"terms": []}, query_repair={"diabetis": "diabetes"})
    body = AskResponse.model_validate({"query_id": None, "cache_hit": True, **answer.to_dict()}).model_dump(mode="json")
    assert body["citations"] == [CITATION.to_dict()]
    assert "answerability" not in body and "query_repair" not in body
    assert body["mode"] == "extractive"
    assert body["gate"] is None  # no decision ({} in --json)
    assert body["filters"] == {"patient_id": None, "year_min": None, "year_max": None, "sources": [],
                               "exclude_levels": ["document"], "doc_ids": [], "keep_undated": False}
    gated = Answer(question="q", refused=True, answer="no", filters={"patient_id": "P1"}, mode="refusal",
                   gate={"answer": False, "signal": 0.2, "threshold": 0.3764, "reason": "below"})
    body = AskResponse.model_validate({"query_id": None, "cache_hit": False, **gated.to_dict()}).model_dump(mode="json")
    assert body["gate"] == {"answer": False, "signal": 0.2, "threshold": 0.3764, "reason": "below",
                            "kind": "dense_cosine", "calibration": ""}
    assert body["filters"]["patient_id"] == "P1"
    schema = AskResponse.model_json_schema()
    assert set(schema["$defs"]["GateModel"]["properties"]) == {"answer", "signal", "threshold", "reason", "kind",
                                                              "calibration"}
    assert AskResponse.model_json_schema()["required"] == ["query_id", "cache_hit", "question", "refused", "answer",
                                                           "filters", "mode"]


def test_fields_of_rejects_unknown_names() -> None:
    with pytest.raises(KeyError, match="Citation has no field nope"):
        fields_of(Citation, descriptions={"nope": "x"})
