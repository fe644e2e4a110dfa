"""Scanned PDF pages: OCR through tesseract (the ``ocr`` extra), page by page, ``ingest.ocr`` modes, the
error without OCR. The scan is text drawn into an image with Pillow and embedded in a PDF by fpdf2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fpdf import FPDF
from PIL import Image, ImageDraw, ImageFont
from typer.testing import CliRunner

from clinqa.documents.loaders import load_file
from clinqa.documents.loaders.pdf import ocr_available
from clinqa.errors import LoadError
from clinqa.settings import IngestSettings

needs_ocr = pytest.mark.skipif(ocr_available() is not None, reason=f"no OCR here: {ocr_available()}")

SCAN_LINES = ["Dabigatran reversal protocol", "",
              "Give idarucizumab 5 g intravenously as two", "consecutive 2.5 g infusions when dabigatran",
              "causes life-threatening bleeding.", "", "Check the thrombin time after the second dose."]


def scan_image(path: Path) -> Path:
    """An A4 page at 300 dpi (2480 x 3508 px) with the lines above: a 64 px title, 42 px body text."""
    img = Image.new("L", (2480, 3508), 255)
    draw = ImageDraw.Draw(img)
    y = 300
    for i, line in enumerate(SCAN_LINES):
        draw.text((250, y), line, fill=0, font=ImageFont.load_default(size=64 if i == 0 else 42))
        y += 90
    img.save(path)
    return path


def scanned_pdf(path: Path, text_page: bool) -> Path:
    """A PDF whose last page is the scan; with ``text_page`` a text page comes first (a mixed PDF)."""
    pdf = FPDF(format="A4")
    if text_page:
        pdf.add_page()
        pdf.set_font("Helvetica", size=11)
        pdf.multi_cell(0, 6, "Anticoagulant reversal. This page has a text layer and names andexanet alfa.")
    pdf.add_page()
    pdf.image(str(scan_image(path.with_suffix(".png"))), x=0, y=0, w=210, h=297)
    pdf.output(str(path))
    return path


@needs_ocr
def test_mixed_pdf_keeps_its_text_page_and_ocrs_the_scan(tmp_path: Path) -> None:
    [doc] = load_file(scanned_pdf(tmp_path / "mixed.pdf", text_page=True))
    blocks = [b for _, s in doc.walk() for b in s.blocks]
    text = [(b.text, b.page_start, b.ocr) for b in blocks]
    assert text[0] == ("Anticoagulant reversal. This page has a text layer and names andexanet alfa.", 1, False)
    ocr = [b for b in blocks if b.ocr]
    assert {(b.page_start, b.page_end) for b in ocr} == {(2, 2)}
    body = " ".join(b.text for b in ocr)
    assert "Give idarucizumab 5 g intravenously as two consecutive 2.5 g infusions when dabigatran causes " \
           "life-threatening bleeding." in body
    assert "Check the thrombin time after the second dose." in body
    # the scan's large first line is a heading over its paragraphs
    assert [p for p, s in doc.walk() if s.blocks and s.blocks[0].ocr] == [("Dabigatran reversal protocol",)]


@needs_ocr
def test_ocr_modes(tmp_path: Path) -> None:
    mixed = scanned_pdf(tmp_path / "mixed.pdf", text_page=True)
    [never] = load_file(mixed, limits=IngestSettings(ocr="never"))
    assert "idarucizumab" not in never.text() and "andexanet alfa" in never.text()
    [always] = load_file(mixed, limits=IngestSettings(ocr="always"))
    blocks = [b for _, s in always.walk() for b in s.blocks]
    assert all(b.ocr for b in blocks) and {b.page_start for b in blocks} == {1, 2}
    assert "andexanet alfa" in always.text() and "idarucizumab" in always.text()
    scan = scanned_pdf(tmp_path / "scan.pdf", text_page=False)
    with pytest.raises(LoadError) as err:
        load_file(scan, limits=IngestSettings(ocr="never"))
    assert err.value.reason == "no extractable text (scanned PDF? OCR is off: setting ingest.ocr: never)"


def test_without_tesseract_the_error_names_the_extra(tmp_path: Path) -> None:
    pytesseract = pytest.importorskip("pytesseract", reason="pytesseract (the ocr extra) is not installed")
    scan = scanned_pdf(tmp_path / "scan.pdf", text_page=False)
    old = pytesseract.pytesseract.tesseract_cmd
    pytesseract.pytesseract.tesseract_cmd = str(tmp_path / "no-tesseract-here")
    try:
        with pytest.raises(LoadError) as err:
            load_file(scan)
        [mixed] = load_file(scanned_pdf(tmp_path / "mixed.pdf", text_page=True))  # its text page is kept
    finally:
        pytesseract.pytesseract.tesseract_cmd = old
    assert err.value.reason == ("no extractable text (scanned PDF? OCR is not available: the tesseract program is "
                                "not installed (pip install 'clinqa[ocr]' and Debian's tesseract-ocr "
                                "tesseract-ocr-eng))")
    assert str(err.value).startswith(f"{scan}: ")
    assert "andexanet alfa" in mixed.text() and "idarucizumab" not in mixed.text()


@needs_ocr
def test_search_finds_ocr_text_and_ingest_counts_ocr_pages(tmp_path: Path) -> None:
    from clinqa.cli import app

    (tmp_path / "docs").mkdir()
    scan = scanned_pdf(tmp_path / "docs" / "scan.pdf", text_page=True)
    runner = CliRunner()
    data = tmp_path / "data"
    r = runner.invoke(app, ["ingest", str(scan), "--data-dir", str(data), "-q", "--json"])
    assert r.exit_code == 0, r.output
    report = json.loads(r.output)
    assert report["documents"] == 1 and report["ocr_pages"] == 1
    text = runner.invoke(app, ["ingest", str(scan), "--data-dir", str(tmp_path / "data2"), "-q"]).output
    assert "OCR: read 1 scanned PDF page from their images" in text
    r = runner.invoke(app, ["search", "idarucizumab intravenously", "--data-dir", str(data), "--json", "-k", "3"])
    assert r.exit_code == 0, r.output
    top = json.loads(r.output)["hits"][0]
    assert "idarucizumab 5 g intravenously" in top["text"]
    assert (top["page_start"], top["page_end"], top["ocr"]) == (2, 2, True)
