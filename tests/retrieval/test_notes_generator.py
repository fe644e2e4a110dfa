import importlib.util
import json
import re
from pathlib import Path
from types import ModuleType

from clinqa.documents.loaders import load_file
from clinqa.documents.loaders.notes import parse_note_text
from clinqa.retrieval.dedup import jaccard, shingles
from clinqa.retrieval.synonyms import expand, term_matches

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "notes" / "generate.py"


def generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_notes_generate", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def first_paragraph(text: str, section: str) -> str:
    return next(s.blocks[0].text for s in parse_note_text(text) if s.title == section)


def test_generator_is_deterministic_loadable_and_consistent(tmp_path: Path) -> None:
    gen = generator()
    a, b = tmp_path / "a", tmp_path / "b"
    assert gen.main(["--patients", "3", "--seed", "7", "--output", str(a)]) == 0
    assert gen.main(["--patients", "3", "--seed", "7", "--output", str(b)]) == 0
    for name in ("notes.jsonl", "questions.jsonl", "README.md"):
        assert (a / name).read_bytes() == (b / name).read_bytes(), name
    assert "SYNTHETIC" in (a / "README.md").read_text(encoding="utf-8")

    notes, questions = read_jsonl(a / "notes.jsonl"), read_jsonl(a / "questions.jsonl")
    assert {n["patient_id"] for n in notes} == {"P0001", "P0002", "P0003"}
    assert all(n["synthetic"] is True for n in notes) and all(q["synthetic"] is True for q in questions)

    # every note parses with clinqa's notes loader, sections and dates intact
    docs = load_file(a / "notes.jsonl", "notes")
    assert len(docs) == len(notes)
    for doc, note in zip(docs, notes, strict=True):
        assert doc.doc_id == f"note:{note['patient_id']}:{note['note_id']}"
        assert doc.note_date.isoformat() == note["date"]
        assert [s.title for s in doc.sections] == ["HPI", "MEDICATIONS", "ASSESSMENT", "PLAN"]
        assert note["note_type"] in {"progress", "discharge", "consult", "clinic"}
        assert note["author_role"] in {"physician", "nurse practitioner", "pharmacist"}
        assert "2018-01-01" <= note["date"] <= "2025-12-31"
    per_patient: dict[str, list[dict]] = {}
    for n in notes:
        per_patient.setdefault(n["patient_id"], []).append(n)
    for pnotes in per_patient.values():
        assert 6 <= len(pnotes) <= 15
        dates = [n["date"] for n in pnotes]
        assert dates == sorted(dates) and len(set(dates)) == len(dates)

    # every gold note exists and belongs to the question's patient; answers agree with the gold notes
    by_id = {n["note_id"]: n for n in notes}
    assert questions and all(q["patient_id"] in per_patient for q in questions)
    for q in [q for q in questions if q["group"] == "own_words"]:
        assert q["kind"] in {"event_date", "in_year", "current", "since_year"}
        assert q["gold_note_ids"] and q["answerable"] is True, q
        for nid in q["gold_note_ids"]:
            assert nid in by_id and by_id[nid]["patient_id"] == q["patient_id"], q
        gold = [by_id[nid] for nid in q["gold_note_ids"]]
        if q["kind"] == "event_date":
            assert q["answer"] == gold[0]["date"]
        elif q["kind"] == "current":
            assert gold == [per_patient[q["patient_id"]][-1]] and q["answer"] in gold[0]["text"]
        elif q["kind"] == "since_year":
            assert q["answer"] == f"Yes, on {gold[0]['date']}" and q["text"][-5:-1] <= gold[0]["date"][:4]
        else:
            assert all(n["date"][:4] == q["text"].split()[3] for n in gold)

    # copied-forward pairs exist; each copy is the previous note's paragraph, verbatim or one word changed
    copies = [n for n in notes if "copied_from" in n]
    assert copies
    for n in copies:
        src = by_id[n["copied_from"]]
        pnotes = per_patient[n["patient_id"]]
        assert pnotes.index(src) == pnotes.index(n) - 1
        mine, theirs = (first_paragraph(x["text"], n["copied_section"]) for x in (n, src))
        changed = [(x, y) for x, y in zip(mine.split(), theirs.split(), strict=True) if x != y]
        assert len(changed) <= 1, changed
        assert jaccard(shingles(mine), shingles(theirs)) > 0.5


def test_patients_do_not_depend_on_the_patient_count(tmp_path: Path) -> None:
    gen = generator()
    gen.main(["--patients", "1", "--seed", "3", "--output", str(tmp_path / "one")])
    gen.main(["--patients", "2", "--seed", "3", "--output", str(tmp_path / "two")])
    one = (tmp_path / "one" / "notes.jsonl").read_text(encoding="utf-8")
    two = (tmp_path / "two" / "notes.jsonl").read_text(encoding="utf-8")
    assert two.startswith(one) and len(two) > len(one)


def test_lay_drug_class_and_unanswerable_questions(tmp_path: Path) -> None:
    gen = generator()
    assert gen.main(["--patients", "50", "--seed", "0", "--output", str(tmp_path / "a")]) == 0
    notes, questions = read_jsonl(tmp_path / "a" / "notes.jsonl"), read_jsonl(tmp_path / "a" / "questions.jsonl")
    groups: dict[str, int] = {}
    for q in questions:
        groups[q["group"]] = groups.get(q["group"], 0) + 1
    # 76 own-words questions as before the new kinds; one lay/drug-class question per applicable event
    # plus one standing-medication question per patient; two unanswerable questions per patient
    assert groups == {"own_words": 76, "lay": 90, "drug_class": 94, "unanswerable": 100}
    assert len(questions) == 360 >= 150 and len({q["_id"] for q in questions}) == 360
    mine = {p: [n for n in notes if n["patient_id"] == p] for p in {n["patient_id"] for n in notes}}
    by_id = {n["note_id"]: n for n in notes}
    for q in questions:
        pnotes = mine[q["patient_id"]]
        assert q["answerable"] is bool(q["gold_note_ids"]) and q["synthetic"] is True
        if q["group"] == "unanswerable":
            assert q["kind"] == "unanswerable" and q["gold_note_ids"] == [] and q["answer"] == ""
            form = q["form"].removeprefix("absent:")
            rx = next(u[2] for u in gen.UNANSWERABLE if u[0] == form)
            assert not any(re.search(rx, n["text"]) for n in pnotes), q  # the event or drug never occurred
            for phrase in expand(q["text"]).added:  # nor does any equivalent of the asked-about term
                assert not any(term_matches(phrase, n["text"]) for n in pnotes), (q, phrase)
        elif q["group"] in ("lay", "drug_class"):
            assert q["kind"] == q["group"] and q["gold_note_ids"]
            gold = [by_id[g] for g in q["gold_note_ids"]]
            assert all(g["patient_id"] == q["patient_id"] for g in gold)
            if q["form"].startswith("standing:"):  # every note naming the drug
                rx = next(s[4] for s in gen.STANDING_Q if s[0] == q["form"].removeprefix("standing:"))
                assert q["gold_note_ids"] == [n["note_id"] for n in pnotes if re.search(rx, n["text"])]
            else:  # the event's own note
                assert len(gold) == 1 and any(n["note_id"] == gold[0]["note_id"] for n in pnotes)
            # the question's lay or class phrase is in the synonym table, and the gold note matches it
            added = expand(q["text"]).added
            assert added and any(term_matches(p, g["text"]) for p in added for g in gold), q

    assert {q["text"] for q in questions if q["form"] == "empagliflozin:drug_class"} == {
        "What SGLT2 inhibitor was started?"}
    q = next(q for q in questions if q["form"] == "empagliflozin:lay")
    assert q["text"] == f"What was done about the patient's blood sugar in {by_id[q['gold_note_ids'][0]]['date'][:4]}?"


def test_repro_fixture_has_the_issue_notes() -> None:
    here = SCRIPT.parent
    notes = {n["note_id"]: n for n in read_jsonl(here / "repro.jsonl")}
    qs = read_jsonl(here / "repro_questions.jsonl")
    assert notes["PA-N3"]["date"] == "2024-05-30"
    assert notes["PA-N3"]["text"] == "Annual review. Losartan 50 mg daily continued. Blood pressure 126/78."
    assert notes["PB-N2"]["date"] == "2022-04-18"
    assert notes["PB-N2"]["text"] == "HbA1c 8.1 percent despite metformin. Added empagliflozin 10 mg daily."
    assert notes["PC-N2"]["text"] == "Chronic kidney disease stage 3b. eGFR 38. Started dapagliflozin 10 mg once daily."
    assert [(q["patient_id"], q["text"], q["gold_note_ids"]) for q in qs[:3]] == [
        ("P-A", "What was the blood pressure since 2023?", ["PA-N3"]),
        ("P-B", "What medication was started for blood sugar in 2022?", ["PB-N2"]),
        ("P-C", "What SGLT2 inhibitor was started?", ["PC-N2"])]
    for q in qs[3:]:
        assert q["answerable"] is False and q["gold_note_ids"] == []
        pnotes = [n["text"] for n in notes.values() if n["patient_id"] == q["patient_id"]]
        assert all(not term_matches(p, t) for p in expand(q["text"]).added or [q["text"].split()[2]] for t in pnotes)
    assert {n["patient_id"] for n in notes.values()} == {"P-A", "P-B", "P-C"}
