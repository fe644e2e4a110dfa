"""What the web page's empty state reads: ``GET /examples`` (example questions from the headings of the
ingested guidelines, never a patient's note, answered by the service) and the ``years`` of ``GET /stats``."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from service_data import headers, settings_for

from clinqa.pipeline import Pipeline
from clinqa.service.app import Service, _example_for, example_candidates


def test_examples_need_a_key_and_are_the_same_for_every_key(client: TestClient) -> None:
    assert client.get("/examples").status_code == 401
    got = {k: client.get("/examples", headers=headers(k)) for k in ("all", "p1", "none")}
    assert all(r.status_code == 200 for r in got.values())
    examples = got["none"].json()["examples"]
    assert got["all"].json()["examples"] == got["p1"].json()["examples"] == examples
    assert len(examples) == 3 and len({e["doc_id"] for e in examples}) == 3
    assert {e["doc_id"] for e in examples} == {"bronchitis", "otitis", "perioperative"}  # no note, whoever asks
    for e in examples:
        assert e["answered"] and e["question"] == f"What does {e['title']} say about {e['section'].lower()}?"
        a = client.post("/ask", json={"question": e["question"]}, headers=headers("none")).json()
        assert not a["refused"] and a["citations"][0]["doc_id"] == e["doc_id"], (e, a["citations"])


def test_examples_are_kept_until_the_store_changes(service_pipe: Pipeline, tmp_path: Path) -> None:
    svc = Service(service_pipe.settings, service_pipe)
    first = svc.examples()
    asked: list[str] = []
    ask = service_pipe.ask
    service_pipe.ask = lambda q, *a, **k: asked.append(q) or ask(q, *a, **k)  # type: ignore[method-assign]
    try:
        assert svc.examples() is first and asked == []
    finally:
        del service_pipe.ask
    empty = Service(settings_for(tmp_path / "empty"), Pipeline(settings_for(tmp_path / "empty")))
    assert empty.examples() == []


def test_stats_years_count_what_the_key_may_see(client: TestClient) -> None:
    years = {k: client.get("/stats", headers=headers(k)).json()["years"] for k in ("all", "p1", "none")}
    assert years["none"] == {"2014": 1, "2016": 1, "2019": 1}
    assert years["p1"] == {**years["none"], "2023": 1, "2024": 1}  # P1's notes of 2023 and 2024
    assert years["all"] == {"2014": 1, "2016": 1, "2019": 1, "2022": 1, "2023": 2, "2024": 1}


@pytest.mark.parametrize("title,heading,question", [
    ("Acute bronchitis", "Treatment", "What does Acute bronchitis say about treatment?"),
    ("Perioperative care", "Beta-blockers", "What does Perioperative care say about beta-blockers?"),
    ("Gout", "Strong Recommendations to Start ULT", "What does Gout say about Strong Recommendations to Start ULT?"),
    ("Gout", "DAPT duration", "What does Gout say about DAPT duration?"),
    ("Diabetes", "Primary Goal (Recommendation 6.5a, Grade A)", "What does Diabetes say about Primary Goal?"),
    ("Diabetes", "3.2 Insulin dosing", "What does Diabetes say about insulin dosing?"),
    ("Glaucoma", "What are the symptoms of Glaucoma ?", "What are the symptoms of Glaucoma?"),
    ("Rheumatoid arthritis", "Which drug to taper first?", None),  # a question without its subject
    ("Acute bronchitis", "Background", None),
    ("Acute bronchitis", "References", None),
    ("Acute bronchitis", "Table 2", None),
    ("Acute bronchitis", "Acute bronchitis", None),
    ("Acute bronchitis", "2019", None),
])
def test_example_question_of_a_heading(title: str, heading: str, question: str | None) -> None:
    assert _example_for(title, heading) == question


def test_example_candidates_one_per_document_spread_over_sources() -> None:
    def rows(doc_id: str, source: str, *headings: str) -> list[dict[str, object]]:
        return [{"doc_id": doc_id, "title": doc_id.title(), "source": source, "section_path": [doc_id.title(), h]}
                for h in headings]

    blocks = [rows("asthma", "GINA", "Introduction", "Diagnosis", "Treatment"), rows("copd", "GOLD", "Methods"),
              rows("gout", "ACR", "Background", "Flares", "Dosing"), rows("sepsis", "SCCM", "Fluids"),
              rows("angina", "ACR", "Risk factors")]
    table = [r for b in blocks for r in b]
    cands = example_candidates(table)
    assert example_candidates([r for b in reversed(blocks) for r in b]) == cands  # not the store's order
    assert {c["doc_id"] for c in cands} == {"asthma", "gout", "sepsis", "angina"}  # copd: no topic heading
    by_doc = {c["doc_id"]: c for c in cands}
    assert by_doc["asthma"]["question"] == "What does Asthma say about diagnosis?"  # first clinical heading
    assert by_doc["gout"]["section"] == "Dosing"  # a clinical heading before "Flares"
    assert by_doc["sepsis"]["question"] == "What does Sepsis say about fluids?"
    # the two ACR documents are not both before the other sources
    sources = [{"asthma": "GINA", "gout": "ACR", "sepsis": "SCCM", "angina": "ACR"}[c["doc_id"]] for c in cands]
    assert sources[:3].count("ACR") == 1
