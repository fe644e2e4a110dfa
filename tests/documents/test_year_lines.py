"""Years (issue 51 item 5): a "Year:" or "Date:" line near the top of a Markdown or text file gives the document's
year (a registry sidecar still wins); `clinqa ingest` says how many documents have no year; `clinqa ask --since`
says how many it left out for having none and names retrieval.keep_undated, which keeps them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from clinqa.cli import app
from clinqa.documents.loaders import iter_documents, load_file
from clinqa.documents.loaders._common import year_line
from clinqa.documents.model import Document


@pytest.mark.parametrize(("text", "year"), [
    ("# Gout\n\nYear: 2025\n\nColchicine.\n", 2025),
    ("# Gout\n**Date:** 12 March 2024\n\nColchicine.\n", 2024),
    ("Gout protocol\n- date: 2023-05-01\n", 2023),
    ("# Gout\n\nColchicine.\n", None),
    ("# Gout\n\nYear: soon\n", None),  # no year in the value
    ("# Gout\n" + "line\n" * 10 + "Year: 2025\n", None),  # past the first 10 non-blank lines
    ("# Gout\n\nThe trial ran for a year: 2019 to 2021.\n", None),  # "a year:" is not a Year: line
])
def test_year_line(text: str, year: int | None) -> None:
    assert year_line(text) == year


def test_markdown_and_text_take_the_year_line(tmp_path: Path) -> None:
    md = tmp_path / "gout.md"
    md.write_text("# Gout flares\n\nYear: 2025\n\nColchicine 1.2 mg then 0.6 mg one hour later.\n")
    txt = tmp_path / "aki.txt"
    txt.write_text("Acute kidney injury\n\nDate: 3 June 2021\n\nStage by creatinine and urine output.\n")
    assert [d.year for d in load_file(md)] == [2025]  # type: ignore[union-attr]
    assert [d.year for d in load_file(txt)] == [2021]  # type: ignore[union-attr]
    # front matter still comes first
    md.write_text("---\nyear: 2019\n---\n# Gout flares\n\nYear: 2025\n\nColchicine.\n")
    assert [d.year for d in load_file(md)] == [2019]  # type: ignore[union-attr]
    # a registry sidecar still wins
    (tmp_path / "registry.json").write_text(json.dumps([{"id": "gout", "year": 2018}]))
    docs = {d.doc_id: d for d in iter_documents([tmp_path]) if isinstance(d, Document)}
    assert docs["gout"].year == 2018


def test_ingest_counts_undated_and_ask_since_names_the_setting(tmp_path: Path) -> None:
    corpus = tmp_path / "c"
    corpus.mkdir()
    (corpus / "gout.md").write_text("# Gout flares\n\nYear: 2025\n\nColchicine 1.2 mg then 0.6 mg one hour later "
                                    "treats an acute gout flare.\n")
    (corpus / "gout-old.md").write_text("# Gout flare treatment\n\nColchicine 1.8 mg over one hour treats an "
                                        "acute gout flare.\n")
    (corpus / "aki.txt").write_text("Acute kidney injury\n\nStaging uses creatinine and urine output.\n")
    data = str(tmp_path / "data")
    r = CliRunner().invoke(app, ["ingest", str(corpus), "-q", "--data-dir", data])
    assert r.exit_code == 0, r.output
    assert "2 documents have no year: a year filter (--since, --until) leaves them out unless " \
        "retrieval.keep_undated is true" in r.output
    r = CliRunner().invoke(app, ["ingest", str(corpus), "--json", "--data-dir", str(tmp_path / "d2")])
    assert json.loads(r.output[r.output.index("{"):])["no_year"] == 2

    question = "What treats an acute gout flare?"
    r = CliRunner().invoke(app, ["ask", question, "--since", "2020", "--data-dir", data])
    assert r.exit_code == 0, r.output
    assert "note: the year filter left out 2 documents that have no year; --set retrieval.keep_undated=true " \
        "keeps them" in r.output
    a = json.loads(CliRunner().invoke(app, ["ask", question, "--since", "2020", "--json", "--data-dir", data]).output)
    assert a["undated_left_out"] == 2 and {c["doc_id"] for c in a["citations"]} <= {"c/gout"}
    # keep_undated: the undated documents pass the year filter, and nothing is said
    r = CliRunner().invoke(app, ["ask", question, "--since", "2020", "--json", "--set", "retrieval.keep_undated=true",
                                 "--data-dir", data])
    kept = json.loads(r.output)
    assert kept["undated_left_out"] == 0 and kept["filters"]["keep_undated"] is True
    r = CliRunner().invoke(app, ["search", "colchicine gout flare", "--since", "2020", "--json", "--all",
                                 "--set", "retrieval.keep_undated=true", "--data-dir", data])
    assert {h["doc_id"] for h in json.loads(r.output)["hits"]} == {"c/gout", "c/gout-old", "c/aki"}
    r = CliRunner().invoke(app, ["search", "colchicine gout flare", "--since", "2020", "--json", "--all",
                                 "--data-dir", data])
    assert {h["doc_id"] for h in json.loads(r.output)["hits"]} == {"c/gout"}
    # without a year filter: no note
    r = CliRunner().invoke(app, ["ask", question, "--data-dir", data])
    assert "left out" not in r.output
