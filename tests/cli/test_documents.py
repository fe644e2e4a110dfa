"""``clinqa documents`` (issue 42 item 4) and the boilerplate of ``clinqa ingest`` (item 5), on real
ingests of tiny files: ids, sources and where they came from, files, ingest times, the --source and
--patient filters, --data-dir and CLINQA_DATA_DIR; a line repeated across a folder left out of every
chunk and counted, notes untouched."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from clinqa.cli import app
from clinqa.retrieval.filters import Filters
from clinqa.store import LanceStore

AD = "> **OpenMedicine Calculator:** `calculate_{}` -- available via MCP for automated {} scoring."
TOPICS = ["apixaban", "metformin", "allopurinol", "salbutamol", "amoxicillin", "furosemide"]
NOTE = {"patient_id": "P1", "note_id": "N1", "date": "2024-03-01", "note_type": "progress note",
        "author_role": "MD", "text": "PLAN: OpenMedicine Calculator: calculate_x -- available via MCP for "
        "automated X scoring. Continue metformin."}
STAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")


def _run(*args: str, env: dict[str, str] | None = None):
    return CliRunner().invoke(app, list(args), env=env)


@pytest.fixture(scope="module")
def ingested(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict]:
    """A folder ``guides`` of six Markdown files, five with the calculator advert (5 of 6 >= max(5, 20%)),
    one with a ``source`` in its front matter, plus a notes file whose note holds the advert too."""
    src = tmp_path_factory.mktemp("src") / "guides"
    src.mkdir()
    for i, drug in enumerate(TOPICS):
        front = "---\nsource: Drug Society\n---\n" if i == 0 else ""
        ad = f"\n{AD.format(drug, drug.title())}\n" if i < 5 else ""
        (src / f"{drug}.md").write_text(f"{front}# {drug.title()}\n\n## Dosing\n\n{drug.title()} is given by the "
                                        f"dose in the label, adjusted for kidney function.\n{ad}")
    (src / "notes.jsonl").write_text(json.dumps(NOTE) + "\n")
    data = tmp_path_factory.mktemp("store") / "data"
    r = _run("ingest", str(src), "--quiet", "--json", "--data-dir", str(data))
    assert r.exit_code == 0, r.output
    return src, data, json.loads(r.stdout)


def test_boilerplate_is_counted_and_out_of_every_chunk(ingested: tuple[Path, Path, dict]) -> None:
    src, data, report = ingested
    assert report["documents"] == 7
    assert report["boilerplate"] == [{
        "group": "*", "kinds": 1, "lines": 5, "documents": 5,
        "examples": ["OpenMedicine Calculator: calculate_allopurinol -- available via MCP for automated "
                     "Allopurinol scoring."]}]  # two sources (Drug Society, guides): the run's group found it
    store = LanceStore(data / "lancedb")
    rows = store.export(["doc_id", "text", "body"], Filters()).to_pylist()  # documents of no patient
    assert len({r["doc_id"] for r in rows}) == 6
    assert not [r for r in rows if "OpenMedicine" in r["text"] + r["body"]]  # overview chunks included
    notes = store.export(["doc_id", "body"], Filters(patient_id="P1")).to_pylist()
    assert notes and all("OpenMedicine Calculator" in r["body"] for r in notes)  # the note keeps it
    assert all(any(d in r["body"] for r in rows) for d in (t.title() for t in TOPICS))  # content stays
    assert "OpenMedicine" in (src / "apixaban.md").read_text()  # the file is untouched
    assert json.loads((data / "boilerplate.json").read_text())["kinds"][0]["key"] == \
        "openmedicine calculator <name> available via mcp for automated"


def test_the_summary_line_names_the_boilerplate(ingested: tuple[Path, Path, dict], tmp_path: Path) -> None:
    src, _, _ = ingested
    r = _run("ingest", str(src), "--quiet", "--data-dir", str(tmp_path / "d2"))
    assert r.exit_code == 0, r.output
    assert "boilerplate: 5 lines of 1 kind left out of 5 documents (all documents of the run)" in r.stdout


def test_a_one_file_ingest_applies_what_the_folder_taught(ingested: tuple[Path, Path, dict]) -> None:
    """Re-ingesting one file of the folder finds it unchanged: the recorded boilerplate is left out again."""
    src, data, _ = ingested
    r = _run("ingest", str(src / "apixaban.md"), "--quiet", "--json", "--data-dir", str(data))
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert (out["documents"], out["unchanged"], out["boilerplate"][0]["lines"]) == (0, 1, 1)


def test_documents_lists_ids_sources_files_and_times(ingested: tuple[Path, Path, dict]) -> None:
    src, data, _ = ingested
    r = _run("documents", "--json", "--data-dir", str(data))
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    docs = {d["doc_id"]: d for d in out["documents"]}
    assert out["count"] == 7 and list(docs) == sorted(docs)
    assert set(docs) == {f"guides/{t}" for t in TOPICS} | {"note:P1:N1"}
    a, m, note = docs["guides/apixaban"], docs["guides/metformin"], docs["note:P1:N1"]
    assert (a["source"], a["source_from"], a["title"], a["path"], a["format"]) == \
        ("Drug Society", "metadata", "Apixaban", str(src / "apixaban.md"), "markdown")
    assert (m["source"], m["source_from"], m["path"]) == ("guides", "folder", str(src / "metformin.md"))
    assert (note["source"], note["source_from"], note["patient_id"]) == ("notes", "loader default", "P1")
    assert all(STAMP.match(d["ingested_at"]) for d in docs.values())
    assert a["chunks"] >= 2 and a["year"] is None


def test_documents_table_and_filters(ingested: tuple[Path, Path, dict]) -> None:
    _, data, _ = ingested
    r = _run("documents", "--source", "drug society", env={"CLINQA_DATA_DIR": str(data)})  # env var, any case
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    # no patient column: no note is listed
    assert lines[0].split() == ["id", "title", "source", "year", "chunks", "file", "ingested", "at"]
    assert lines[1].startswith("guides/apixaban") and "Drug Society (metadata)" in lines[1]
    assert lines[-1] == "1 document"
    r = _run("documents", "--patient", "P1", "--json", "--data-dir", str(data))
    assert [d["doc_id"] for d in json.loads(r.stdout)["documents"]] == ["note:P1:N1"]
    r = _run("documents", "--source", "nope", "--data-dir", str(data))
    assert r.exit_code == 0 and r.stdout.strip() == "No documents."


def test_documents_of_an_empty_or_missing_store(tmp_path: Path) -> None:
    r = _run("documents", "--data-dir", str(tmp_path / "missing"))
    assert r.exit_code != 0  # a mistyped --data-dir is reported, as by stats
