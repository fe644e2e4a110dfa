"""Longitudinal patient notes (synthetic, from bench/notes/generate.py): a query scoped to one
patient never sees another's text on any route (search, ask, rerank, refusal hints), copied-
forward paragraphs are folded into one citation that names every note, and time intent in a
question becomes a date filter."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from datetime import date
from pathlib import Path

import pytest

from clinqa.corpora import guidelines_path
from clinqa.pipeline import Pipeline
from clinqa.retrieval.dedup import body_text, jaccard, shingles
from clinqa.settings import Settings

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def notes_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("synthetic-notes")
    subprocess.run([sys.executable, str(REPO / "bench" / "notes" / "generate.py"), "--patients", "3", "--seed", "0",
                    "--output", str(out)], check=True, capture_output=True)
    return out


@pytest.fixture(scope="session")
def notes(notes_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (notes_dir / "notes.jsonl").open()]


@pytest.fixture(scope="session")
def questions(notes_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (notes_dir / "questions.jsonl").open()]


@pytest.fixture(scope="session")
def npipe(tmp_path_factory: pytest.TempPathFactory, notes_dir: Path) -> Pipeline:
    g = tmp_path_factory.mktemp("g")
    src = guidelines_path()
    shutil.copytree(src / "content" / "acc_aha_af_2023", g / "content" / "acc_aha_af_2023")
    shutil.copy(src / "registry.json", g / "registry.json")
    p = Pipeline(Settings(data_dir=tmp_path_factory.mktemp("notes-store")))
    report = p.ingest([notes_dir / "notes.jsonl", g], progress=False)
    assert report.failed == []
    return p


def _with(p: Pipeline, **section: dict) -> Pipeline:
    s = p.settings.model_copy(update={k: getattr(p.settings, k).model_copy(update=v) for k, v in section.items()})
    q = Pipeline(s)
    q._encoder = p.encoder
    return q


def _assert_only(patient: str, payload: object) -> None:
    text = json.dumps(payload, default=str)
    for other in ("P0001", "P0002", "P0003"):
        if other != patient:
            assert f"note:{other}:" not in text and f"{other}-N" not in text, f"{other} leaked into {patient}'s result"


def _route_questions(questions: list[dict]) -> list[dict]:
    """The own-words questions and the first lay, drug-class and unanswerable one (their BM25 query is
    expanded with synonyms: the expansion must not widen the scope either)."""
    own = [q for q in questions if q["group"] == "own_words"]
    return own + [next(q for q in questions if q["group"] == g) for g in ("lay", "drug_class", "unanswerable")]


@pytest.mark.parametrize("route", ["chunk_lists_only", "rerank", "document_list"])
def test_patient_scope_every_route(npipe: Pipeline, questions: list[dict], tiny_reranker: Path, route: str) -> None:
    rerank = route == "rerank"
    assert npipe.settings.retrieval.document_weight > 0  # the default searches the document list
    p = (_with(npipe, rerank={"model": str(tiny_reranker)}) if rerank
         else _with(npipe, retrieval={"document_weight": 0.0}) if route == "chunk_lists_only" else npipe)
    for q in _route_questions(questions):
        for patient in ("P0001", "P0002", "P0003"):
            f = p.filters(patient_id=patient)
            res = p.search(q["text"], f, k=50)
            assert bool(res.documents) == (route != "chunk_lists_only")
            assert {h.chunk.patient_id for h in res.hits + res.dense + res.bm25} <= {patient}
            assert all(d.startswith(f"note:{patient}:") for d, _ in res.documents)
            assert all(d.patient_id == patient for h in res.hits for d in h.duplicates)
            if rerank:
                assert all("rerank" in h.scores for h in res.hits)
            ans = p.ask(q["text"], f)
            _assert_only(patient, ans.to_dict())
    # the refusal hints (related topics) stay inside the patient too
    strict = _with(p, answer={"refusal_threshold": 0.99})
    ans = strict.ask("What anticoagulant was started?", strict.filters(patient_id="P0002"))
    assert ans.refused and ans.related_topics
    _assert_only("P0002", ans.to_dict())
    # no patient filter: no patient's notes at all
    res = p.search("apixaban anticoagulation", p.filters(), k=50)
    assert res.hits and all(h.chunk.patient_id is None for h in res.hits + res.dense + res.bm25)
    assert bool(res.documents) == (route != "chunk_lists_only")
    assert not any(d.startswith("note:") for d, _ in res.documents)


def test_patient_scope_in_a_conversation(npipe: Pipeline, questions: list[dict], tmp_path: Path) -> None:
    """Issue 40: every turn of a patient's conversation, follow-ups read with the turn before them included,
    sees that patient's notes only, and the conversation cannot be continued under another patient."""
    from clinqa.conversation import ask_turn
    from clinqa.logs.conversations import ConversationStore, ScopeChanged

    store = ConversationStore(tmp_path / "conversations.sqlite")
    own = [q["text"] for q in _route_questions(questions)][:3]
    for patient in ("P0001", "P0002", "P0003"):
        f = npipe.filters(patient_id=patient)
        conv = store.open(f"ward-{patient}", "local", patient)
        for text in [*own, "and what about last year?", "and the dose?"]:
            ans, _ = ask_turn(npipe, store, conv, text, f)
            _assert_only(patient, ans.to_dict())
        with pytest.raises(ScopeChanged):
            store.open(f"ward-{patient}", "local", "P0001" if patient != "P0001" else "P0002")


def test_copied_forward_text_is_cited_once_with_every_note(npipe: Pipeline, notes: list[dict]) -> None:
    copy = next(n for n in notes if n.get("copied_from") and n.get("copied_section") == "MEDICATIONS")
    para = copy["text"].split("MEDICATIONS:\n", 1)[1].split("\n\n", 1)[0]
    f = npipe.filters(patient_id=copy["patient_id"])
    res = npipe.search(para, f, k=10)
    bodies = [shingles(body_text(h.chunk.body)) for h in res.hits]
    assert all(jaccard(a, b) < 0.8 for i, a in enumerate(bodies) for b in bodies[i + 1:])
    top = res.hits[0]
    copies_of_top = {top.chunk.doc_id, *(d.doc_id for d in top.duplicates)}
    assert {f"note:{copy['patient_id']}:{copy['note_id']}",
            f"note:{copy['patient_id']}:{copy['copied_from']}"} & copies_of_top
    assert len(copies_of_top) >= 2
    question = "What medications were reviewed? " + para
    ans = npipe.ask(question, f)
    assert not ans.refused
    f2, intent = npipe.time_intent(question, f)  # "reviewed today" reads as recency: ask ranks newest first
    dups = {h.chunk.chunk_id: h.duplicates for h in npipe.search(question, f2, recency=intent.recency).hits}
    assert any(c.also_in for c in ans.citations)
    norm = lambda t: " ".join(t.lower().split())  # noqa: E731
    for c in ans.citations:  # a citation names exactly the folded copies that hold its quoted text
        holding = [d for d in dups[c.chunk_id] if norm(c.quote) in norm(d.body)]
        assert c.note_date and len(c.also_in) == len(holding)
        assert all(f"({d.doc_id})" in " ".join(c.also_in) for d in holding)


def test_year_in_the_question_filters_note_dates(npipe: Pipeline, questions: list[dict]) -> None:
    q = next(q for q in questions if q["kind"] == "in_year")
    year = int(q["text"].split("the ")[1][:4])
    ans = npipe.ask(q["text"], npipe.filters(patient_id=q["patient_id"]))
    assert ans.filters.year_min == year and ans.filters.year_max == year
    assert f"year {year}" in ans.time_filter
    assert all(c.note_date.startswith(str(year)) for c in ans.citations)
    gold = {f"note:{q['patient_id']}:{n}" for n in q["gold_note_ids"]}
    assert gold & {c.doc_id for c in ans.citations} or ans.refused


def test_a_whole_date_in_the_question_keeps_that_days_notes_of_that_patient(npipe: Pipeline,
                                                                           notes: list[dict]) -> None:
    """"What happened on 2021-03-02?" quotes that day's note of the patient asked about (it was answered from
    another date's note); a day with no note of this patient is refused naming the nearest notes, all his."""
    by_patient: dict[str, set[str]] = {}
    for n in notes:
        by_patient.setdefault(n["patient_id"], set()).add(n["date"])
    day = sorted(by_patient["P0001"])[1]
    f, intent = npipe.time_intent(f"What happened on {day}?", npipe.filters(patient_id="P0001"))
    want = {f"note:P0001:{n['note_id']}" for n in notes if n["patient_id"] == "P0001" and n["date"] == day}
    assert intent.date_min == intent.date_max == day and set(f.doc_ids) == want
    ans = npipe.ask(f"What happened on {day}?", npipe.filters(patient_id="P0001"))
    assert not ans.refused and ans.citations
    assert {c.doc_id for c in ans.citations} <= want and all(c.note_date == day for c in ans.citations)
    _assert_only("P0001", ans.to_dict())
    # the other patients: no note that day (or their own of that day), never P0001's
    for other in ("P0002", "P0003"):
        ans = npipe.ask(f"What happened on {day}?", npipe.filters(patient_id=other))
        _assert_only(other, ans.to_dict())
        if day not in by_patient[other]:
            assert ans.refused and ans.reason.startswith(f"No note of this patient is dated {day}.")
            nearest = sorted(by_patient[other], key=lambda d: abs((date.fromisoformat(d)
                                                                   - date.fromisoformat(day)).days))[0]
            assert f"Notes nearest that date: {nearest}" in ans.reason
            assert ans.related and all(r["doc_id"].startswith(f"note:{other}:") for r in ans.related)
    # a question about a year and nothing else: that year's notes, oldest first (it was refused: a question
    # with no topic sits far from every note in cosine)
    year = day[:4]
    ans = npipe.ask(f"What happened in {year}?", npipe.filters(patient_id="P0001"))
    assert not ans.refused and ans.citations
    dates = [c.note_date for c in ans.citations]
    assert all(d.startswith(year) for d in dates) and dates == sorted(dates)
    _assert_only("P0001", ans.to_dict())


def test_current_question_ranks_newer_notes_first(npipe: Pipeline, questions: list[dict], notes: list[dict]) -> None:
    q = next(q for q in questions if q["kind"] == "current")
    f = npipe.filters(patient_id=q["patient_id"])
    plain = npipe.search(q["text"], f, k=10)
    recent = npipe.search(q["text"], f, k=10, recency=True)
    mean = lambda r: sum(h.chunk.note_date.toordinal() for h in r.hits[:3]) / 3  # noqa: E731
    assert mean(recent) >= mean(plain)
    ans = npipe.ask(q["text"], f)
    assert "most recent first" in ans.time_filter


def test_copy_line_never_names_a_note_without_the_quoted_text(tmp_path: Path) -> None:
    base = ("78-year-old woman with type 2 diabetes, COPD and hypertension, seen for ongoing management. "
            "Lives at home with her partner, walks daily with a cane and reports good adherence to all "
            "medications including metformin and tiotropium. Weight stable, appetite good, sleeping well at night.")
    notes = [
        {"patient_id": "P1", "note_id": "n1", "date": "2023-06-10", "note_type": "progress", "text": f"HPI:\n{base}\n"},
        {"patient_id": "P1", "note_id": "n2", "date": "2024-01-02", "note_type": "progress",
         "text": f"HPI:\n{base} Had a fall at home in December 2023.\n"},
    ]
    (tmp_path / "n.jsonl").write_text("".join(json.dumps(n) + "\n" for n in notes))
    from clinqa.settings import AnswerSettings

    # the gate is not under test here: answer whatever the similarity of this long paragraph
    p = Pipeline(Settings(data_dir=tmp_path / "d", answer=AnswerSettings(refusal_threshold=0.0)))
    assert p.ingest([tmp_path / "n.jsonl"], progress=False).failed == []
    f = p.filters(patient_id="P1")
    res = p.search("Has the patient had a fall?", f)
    assert len(res.hits) == 1 and len(res.hits[0].duplicates) == 1  # the two bodies are near-copies (J >= 0.8)
    ans = p.ask("Has the patient had a fall?", f)
    (c,) = ans.citations
    assert c.doc_id == "note:P1:n2" and "fall" in c.quote
    assert c.also_in == []  # the June 2023 note does not contain the fall sentence


def test_patient_scope_generated_answers(npipe: Pipeline, questions: list[dict], chat_server) -> None:
    """The evidence numbered in the LLM prompt comes only from the scoped patient: the model is
    made to cite every passage it was shown, and flag mode keeps them all as citations."""

    def cite_everything(req: dict) -> str:
        shown = re.findall(r"^\[(\d+)\] ", req["messages"][-1]["content"], flags=re.M)
        return "The notes say this " + "".join(f"[{n}]" for n in shown) + "."

    chat_server.responder = cite_everything
    p = _with(npipe, llm={"backend": "openai", "base_url": chat_server.url, "max_retries": 0},
              generation={"unsupported": "flag"})
    for q in questions[:8]:  # each question is also asked of two patients it is not about (mostly refused)
        for patient in ("P0001", "P0002", "P0003"):
            ans = p.ask(q["text"], p.filters(patient_id=patient))
            if ans.refused:
                continue
            assert ans.mode == "generated" and ans.citations
            assert all(c.doc_id.startswith(f"note:{patient}:") or not c.doc_id.startswith("note:")
                       for c in ans.citations)
            _assert_only(patient, ans.to_dict())
    assert len(chat_server.requests) >= 6


def test_a_question_without_a_patient_to_a_store_with_notes_says_where_notes_are(npipe: Pipeline,
                                                                                  notes: list[dict]) -> None:
    """Found by a new user: "When was empagliflozin started?" without --patient warned that "the corpus never
    mentions 'empagliflozin'" although a patient's note does: the reference documents were searched, and
    the answer says so, naming no patient and nothing of any note."""
    from clinqa.question.repair import PATIENT_HINT

    drug = "zoledronate"  # in no note and no guideline of this store
    ans = npipe.ask(f"When was {drug} started?", npipe.filters())
    assert PATIENT_HINT in ans.warnings
    assert not any("corpus never mentions" in w for w in ans.warnings)
    assert "note:" not in json.dumps(ans.to_dict(), default=str)
    # with a patient: no hint
    ans = npipe.ask(f"When was {drug} started?", npipe.filters(patient_id="P0001"))
    assert PATIENT_HINT not in ans.warnings


def test_a_patients_answer_reads_oldest_note_first(tmp_path: Path) -> None:
    """Found by a new user: "When was empagliflozin started?" quoted the 2023 "continued" note before the 2022
    "Added empagliflozin" one; a patient's quotes now follow the record's order."""
    p = Pipeline(Settings(data_dir=tmp_path / "store"))
    assert p.ingest([REPO / "bench" / "notes" / "repro.jsonl"], progress=False).failed == []
    ans = p.ask("When was empagliflozin started?", p.filters(patient_id="P-B"))
    dates = [str(c.note_date) for c in ans.citations]
    assert not ans.refused and len(dates) >= 2 and dates == sorted(dates)
    assert ans.answer.splitlines()[0].startswith("Added empagliflozin 10 mg daily.")
    # "most recent", "current": newest first, the value in force on the first line (second helper)
    ans = p.ask("What is the most recent eGFR?", p.filters(patient_id="P-C"))
    assert ans.answer.splitlines()[0] == "eGFR 40, stable. [1]"
    dates = [str(c.note_date) for c in ans.citations]
    assert dates == sorted(dates, reverse=True)
    # a named value of two words is quotable: "eGFR 38." answers "What was the eGFR in 2023?"
    assert p.ask("What was the eGFR in 2023?", p.filters(patient_id="P-C")).answer == "eGFR 38. [1]"
    # a patient id is read without surrounding spaces; a patient without notes is named on a date question
    assert p.filters(patient_id=" P-C ").patient_id == "P-C"
    ans = p.ask("What happened on 2022-11-30?", p.filters(patient_id="P-99"))
    assert ans.refused and ans.reason == "Patient P-99 has no notes; check the patient id."
    # a refusal carries no "the quoted passages may not answer" (nothing is quoted)
    ans = p.ask("Why was dapagliflozin stopped?", p.filters(patient_id="P-B"))
    assert ans.refused and not any("may not answer" in w for w in ans.warnings)
