"""Ingest progress over input bytes and the --dry-run estimate (clinqa.ingest_progress)."""

from __future__ import annotations

import io
import json
import re
import time
from pathlib import Path

from typer.testing import CliRunner

from clinqa.cli import app
from clinqa.ingest_progress import IngestProgress, clock, input_sizes


class _Terminal(io.StringIO):
    """A stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def _corpus(root: Path) -> Path:
    (root / "sub").mkdir(parents=True)
    (root / "a.md").write_text("# Anticoagulation\n\nApixaban 5 mg twice daily is the usual dose.\n")
    (root / "sub" / "b.md").write_text("# Gout\n\nColchicine 1.2 mg then 0.6 mg one hour later.\n")
    notes = [{"patient_id": "p1", "note_id": f"n{i}", "note_type": "progress", "date": f"2023-0{i}-01",
              "text": f"Note {i}: INR 2.{i}."} for i in range(1, 4)]
    (root / "notes.jsonl").write_text("".join(json.dumps(n) + "\n" for n in notes))
    (root / ".hidden.md").write_text("never read")
    return root


def test_input_sizes_counts_bytes_and_records(tmp_path: Path) -> None:
    root = _corpus(tmp_path / "c")
    sizes = input_sizes([root])
    assert set(sizes) == {str(root / "a.md"), str(root / "sub" / "b.md"), str(root / "notes.jsonl")}
    assert sizes[str(root / "a.md")] == ((root / "a.md").stat().st_size, 1)
    assert sizes[str(root / "notes.jsonl")][1] == 3  # one document per line


def test_progress_credits_a_share_per_document_and_a_folder_once(tmp_path: Path) -> None:
    root = _corpus(tmp_path / "c")
    notes = (root / "notes.jsonl").stat().st_size
    p = IngestProgress([root], stream=_Terminal())  # a bar, as on a terminal
    p.document(str(root / "notes.jsonl"))
    assert abs(p.bar.n - notes / 3) < 1e-6
    p.document(str(root / "sub"))  # a registry-grouped folder: every file under it
    assert abs(p.bar.n - notes / 3 - (root / "sub" / "b.md").stat().st_size) < 1e-6
    p.stored(7)
    assert (p.docs, p.chunks) == (2, 7) and "7 chunks" in p.bar.postfix
    p.close()
    assert p.bar.n == p.bar.total == sum(s for s, _ in input_sizes([root]).values())


def test_dry_run_writes_nothing_and_counts_exactly(tmp_path: Path) -> None:
    root = _corpus(tmp_path / "c")
    data = tmp_path / "data"
    r = CliRunner().invoke(app, ["ingest", str(root), "--dry-run", "--json", "--sample", "2", "--data-dir", str(data)])
    assert r.exit_code == 0, r.output
    est = json.loads(r.output)
    assert (est["documents"], est["unchanged"], est["failed"], est["sample_documents"]) == (5, 0, 0, 2)
    assert est["sample_chunks"] >= 2 and est["estimated_chunks"] >= est["sample_chunks"]
    # the estimate is parse time plus the estimated chunks at the sample's rate (a fast machine may round it to 0.0)
    assert est["chunks_per_second"] > 0 and est["estimated_seconds"] >= 0
    assert abs(est["estimated_seconds"] - (est["parse_seconds"] + est["estimated_chunks"] / est["chunks_per_second"])
               ) <= 0.06
    assert not data.exists()  # nothing written, not even an empty store
    # after a real ingest, the same dry run finds everything unchanged
    assert CliRunner().invoke(app, ["ingest", str(root), "-q", "--data-dir", str(data)]).exit_code == 0
    again = json.loads(CliRunner().invoke(app, ["ingest", str(root), "--dry-run", "--json",
                                                "--data-dir", str(data)]).output)
    assert (again["documents"], again["unchanged"]) == (0, 5)
    assert (again["sample_documents"], again["estimated_chunks"]) == (0, 0)


def test_dry_run_screens_as_the_ingest_does(tmp_path: Path) -> None:
    """A note in a second file with an id already loaded is a failure in both, not a document to ingest."""
    root = _corpus(tmp_path / "c")
    again = {"patient_id": "p1", "note_id": "n1", "note_type": "progress", "date": "2023-05-01", "text": "INR 3.0."}
    (root / "sub" / "more.jsonl").write_text(json.dumps(again) + "\n")
    dry = CliRunner().invoke(app, ["ingest", str(root), "--dry-run", "--json", "--data-dir", str(tmp_path / "d1")])
    assert dry.exit_code == 1  # a file would fail: the dry run exits as the ingest does
    est = json.loads(dry.output)
    assert [f[0] for f in est["failed_files"]] == [str(root / "sub" / "more.jsonl")]
    r = CliRunner().invoke(app, ["ingest", str(root), "--json", "--data-dir", str(tmp_path / "d2")])
    report = json.loads(r.output[r.output.index("{"):])
    assert (est["documents"], est["failed"]) == (report["documents"], len(report["failed"])) == (5, 1)


def test_an_error_line_starts_its_own_line_not_on_the_bar(tmp_path, capsys, monkeypatch) -> None:
    """Issue 42: an ingest error was printed onto the progress bar ("…7.39kB/s]error: …")."""
    import sys

    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)  # the bar is drawn on a terminal only
    f = tmp_path / "a.md"
    f.write_text("# A\n\nText.\n")
    with IngestProgress([f], enabled=True) as tracker:
        tracker.document(str(f))
        tracker.bar.refresh()
        said = tracker.beside(lambda path, reason: print(f"error: {path}: {reason}", file=sys.stderr))
        said("b.pdf", "not a PDF")
    err = capsys.readouterr().err
    assert "]error:" not in err
    before = err[:err.index("error: b.pdf: not a PDF\n")]
    assert before.endswith("\r")  # the bar's line was cleared and the cursor sent back before the message


LINE = re.compile(r"^ingest: (\d+)/(\d+) documents, ([\d,]+) chunks, ([\d.]+) chunks/s, ETA (\S+)$")


def _wait_for_lines(stream: io.StringIO, n: int, timeout: float = 5.0) -> list[str]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        lines = stream.getvalue().splitlines()
        if len(lines) >= n:
            return lines
        time.sleep(0.01)
    raise AssertionError(f"fewer than {n} progress lines in {timeout} s: {stream.getvalue()!r}")


def test_without_a_terminal_a_line_is_printed_every_interval(tmp_path: Path) -> None:
    """Issue 51 item 4: piped to a log, an ingest showed nothing for five minutes."""
    root = _corpus(tmp_path / "c")
    out = io.StringIO()  # not a terminal
    p = IngestProgress([root], interval=0.02, stream=out)
    assert p.lines and p.bar.disable and p.total_docs == 5  # a.md, b.md and the three notes
    first = LINE.match(_wait_for_lines(out, 1)[0])
    assert first is not None and first.group(1, 2, 3, 5) == ("0", "5", "0", "?")  # nothing done: no ETA yet
    p.document(str(root / "a.md"))
    p.document(str(root / "notes.jsonl"))
    p.stored(1234)
    n = len(out.getvalue().splitlines())
    last = LINE.match(_wait_for_lines(out, n + 2)[-1])
    assert last is not None and last.group(1, 2, 3) == ("2", "5", "1,234")
    assert float(last.group(4)) > 0 and last.group(5) != "?"
    done = p.done
    assert abs(done - (root / "a.md").stat().st_size - (root / "notes.jsonl").stat().st_size / 3) < 1e-6
    p.close()
    count = len(out.getvalue().splitlines())
    time.sleep(0.1)
    assert len(out.getvalue().splitlines()) == count  # closed: no more lines
    assert all(LINE.match(x) for x in out.getvalue().splitlines())
    assert "\r" not in out.getvalue()  # no bar was drawn


def test_on_a_terminal_no_lines_only_the_bar(tmp_path: Path) -> None:
    root = _corpus(tmp_path / "c")
    term = _Terminal()
    with IngestProgress([root], interval=0.01, stream=term) as p:
        p.document(str(root / "a.md"))
        time.sleep(0.1)
    assert not p.lines and " documents, " not in term.getvalue() and "\r" in term.getvalue()


def test_eta_clock() -> None:
    assert [clock(s) for s in (0, 35.4, 60, 250, 3599, 3720, 36_000)] == [
        "0s", "35s", "1m00s", "4m10s", "59m59s", "1h02m", "10h00m"]


def test_ingest_piped_prints_progress_lines(tmp_path: Path) -> None:
    """`clinqa ingest` with stderr not a terminal (CliRunner's): progress lines at ingest.progress_interval_s."""
    root = _corpus(tmp_path / "c")
    r = CliRunner().invoke(app, ["ingest", str(root), "--set", "ingest.progress_interval_s=0.01",
                                 "--data-dir", str(tmp_path / "data")])
    assert r.exit_code == 0, r.output
    lines = [x for x in r.output.splitlines() if x.startswith("ingest: ")]
    assert lines and all(LINE.match(x) for x in lines), r.output
    assert all(LINE.match(x).group(2) == "5" for x in lines)
    assert "\r" not in r.output  # neither the byte bar nor an embedding bar


def test_a_folder_read_as_one_document_lowers_the_documents_total(tmp_path: Path) -> None:
    """A registry-grouped guideline is a folder of several files read as one document: the line's total falls to
    the true count as such folders arrive (the demo printed "43/146 documents": 146 files, 43 guidelines)."""
    root = _corpus(tmp_path / "c")
    (root / "sub" / "c.md").write_text("# Gout, part two\n\nAllopurinol 100 mg daily.\n")
    out = io.StringIO()
    p = IngestProgress([root], interval=60, stream=out)
    assert p.total_docs == 6  # a.md, sub/b.md, sub/c.md and three notes
    p.document(str(root / "sub"))  # the folder's two files are one document
    assert p.total_docs == 5 and p.docs == 1
    assert p.done == (root / "sub" / "b.md").stat().st_size + (root / "sub" / "c.md").stat().st_size
    p.document(str(root / "a.md"))
    assert LINE.match(p.line()).group(1, 2) == ("2", "5")
    p.close()


def test_a_skipped_or_failed_file_is_no_document_of_the_total(tmp_path: Path) -> None:
    """A file that is read as no document (skipped: the corpus's README beside its guideline folders; or failed)
    leaves the documents' total: the demo ended its ingest on "43/44 documents" with all 43 guidelines in."""
    root = _corpus(tmp_path / "c")
    out = io.StringIO()
    p = IngestProgress([root], interval=60, stream=out)
    assert p.total_docs == 5  # a.md, sub/b.md and three notes
    p.document(str(root / "a.md"), counted=False)  # skipped
    assert p.total_docs == 4 and p.docs == 0
    p.document(str(root / "sub" / "b.md"))
    assert LINE.match(p.line()).group(1, 2) == ("1", "4")
    p.close()
