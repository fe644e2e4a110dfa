"""Superscripts and subscripts keep their meaning in every loader that sees them (issue 42 item 1):
"40 x 10<sup>9</sup>/L" is stored as "40 x 10^9/L", never "40 x 109/L". Each loader is fed a real
small document built here (HTML and JATS text, python-docx, fpdf2) and the exact stored text is checked.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from clinqa.documents.loaders import load_file
from clinqa.documents.model import Document
from clinqa.store.sparse import index_terms
from clinqa.text.scripts import subscript, superscript, unicode_scripts


def texts(doc: Document) -> list[str]:
    return [b.text for _, s in doc.walk() for b in s.blocks]


# ---------------------------------------------------------------- the rules


@pytest.mark.parametrize(
    ("before", "content", "written"),
    [
        ("40 x 10", "9", "40 x 10^9"),
        ("40 × 10", "\u22129", "40 × 10^-9"),
        ("clearance mL min", "\u22121", "clearance mL min^-1"),
        ("1.73 m", "2", "1.73 m^2"),
        ("platelets/mm", "3", "platelets/mm^3"),
        ("heterogeneity I", "2", "heterogeneity I^2"),
        ("as in the trial", "12", "as in the trial[12]"),
        ("as in the trial.", "12,13", "as in the trial.[12,13]"),
        ("as in the trial", "3\u20135", "as in the trial[3-5]"),
        ("published in 2019", "4", "published in 2019[4]"),
        ("fell by 12%", "4", "fell by 12%[4]"),
        ("Hb 130 g/L", "a", "Hb 130 g/L[a]"),
        ("the 1", "st", "the 1st"),
        ("fever above 38", "o", "fever above 38°"),  # a raised o after a number is a degree sign (new user)
        ("serum Ca", "2+", "serum Ca2+"),
        ("CD4", "+", "CD4+"),
        ("SO4", "2\u2212", "SO4^2-"),
        ("Lantus", "\u00ae", "Lantus\u00ae"),
        ("", "", ""),
    ],
)
def test_superscript_forms(before: str, content: str, written: str) -> None:
    assert before + superscript(before, content) == written


@pytest.mark.parametrize(
    ("before", "content", "written"),
    [("CO", "2", "CO2"), ("HbA", "1c", "HbA1c"), ("t", "1/2", "t1/2"), ("C", "max", "Cmax"), ("10", "2", "10_2")],
)
def test_subscript_forms(before: str, content: str, written: str) -> None:
    assert before + subscript(before, content) == written


def test_unicode_scripts_take_the_same_form() -> None:
    assert unicode_scripts("40 × 10⁹/L, 10⁻³ mol, 1.73 m², H₂O, Ca²⁺, CD4⁺ cells, trial¹²") == (
        "40 × 10^9/L, 10^-3 mol, 1.73 m^2, H2O, Ca2+, CD4+ cells, trial[12]")
    assert unicode_scripts("a Chi² test, r² = 0.58, exons 45⁻55, kg/m², VO₂ max, CHA₂DS₂-VASc") == (
        "a Chi^2 test, r^2 = 0.58, exons 45-55, kg/m^2, VO2 max, CHA2DS2-VASc")  # shapes bench/superscripts.py found
    plain = "no scripts here"
    assert unicode_scripts(plain) is plain


def test_bm25_terms_of_the_stored_form_match_a_typed_question() -> None:
    """The BM25 tokenizer splits at "^" (and "[", "_"), so the stored text and a question typed with
    "^" give the same terms; the flattened "109" and the Unicode "10⁹" would not."""
    stored = index_terms("Transfuse below 40 x 10^9/L")
    assert stored[-4:] == ["x", "10", "9", "l"]
    assert index_terms("is 40 x 10^9/L the threshold?") == ["40", "x", "10", "9", "l", "threshold"]
    assert index_terms("10^9/L") == ["10", "9", "l"] == index_terms(unicode_scripts("10⁹/L"))
    assert "109" not in stored
    assert index_terms("10⁹/L") == ["10⁹", "l"]  # why Unicode superscripts are rewritten by the loaders
    assert index_terms("the trial[12] showed") == ["trial", "12", "showed"]
    assert index_terms("10_2") == ["10", "2"]


# ---------------------------------------------------------------- HTML

HTML = """<!doctype html><html><head><title>Platelets</title></head><body>
<h1>Platelet transfusion</h1>
<p>Transfuse when platelets are below 40 x 10<sup>9</sup>/L, or below 10 &times; 10<sup>9</sup>/L before a
line insertion, as in the trial<sup>12</sup>. Check HbA<sub>1c</sub>, CO<sub>2</sub> and the drug's
t<sub>1/2</sub>; dose 2 g/m<sup>2</sup>; clearance 60 mL min<sup>&minus;1</sup>; neutrophils 1.5 x 10⁹/L.</p>
<table><tr><th>Test</th><th>Range</th></tr><tr><td>WBC</td><td>4-11 x 10<sup>9</sup>/L</td></tr></table>
<ul><li>Hb 130 g/L<sup>a</sup></li></ul>
<p>Hidden: 5 x 10<sup style="display:none">9</sup>.</p>
</body></html>"""


def test_html_sup_and_sub(tmp_path: Path) -> None:
    path = tmp_path / "platelets.html"
    path.write_text(HTML, encoding="utf-8")
    [doc] = load_file(path)
    assert texts(doc) == [
        "Transfuse when platelets are below 40 x 10^9/L, or below 10 × 10^9/L before a line insertion, as in the "
        "trial[12]. Check HbA1c, CO2 and the drug's t1/2; dose 2 g/m^2; clearance 60 mL min^-1; neutrophils "
        "1.5 x 10^9/L.",
        "| Test | Range |\n|---|---|\n| WBC | 4-11 x 10^9/L |",
        "- Hb 130 g/L[a]",
        "Hidden: 5 x 10.",
    ]


def test_html_title_from_h1_keeps_the_superscript(tmp_path: Path) -> None:
    path = tmp_path / "page.html"
    path.write_text("<html><body><h1>Counts below 50 x 10<sup>9</sup>/L</h1><p>Text.</p></body></html>",
                    encoding="utf-8")
    [doc] = load_file(path)
    assert doc.title == "Counts below 50 x 10^9/L"


def test_markdown_inline_and_block_html_sup_and_sub(tmp_path: Path) -> None:
    """Found by a reviewer: Markdown's inline ``10<sup>9</sup>`` was stored as "109" (the loader dropped raw inline
    HTML tags and kept their text)."""
    path = tmp_path / "plt.md"
    path.write_text("# Platelets\n\n## Thresholds\n\nTransfuse below 10 x 10<sup>9</sup>/L, or 50 x 10<sup>9</sup>/L "
                    "before surgery; CO<sub>2</sub> and the trial<sup>12</sup>.\n\n"
                    "<p>Neutrophils under 0.5 x 10<sup>9</sup>/L.</p>\n\nAn unclosed <sup>tag stays as written.\n",
                    encoding="utf-8")
    [doc] = load_file(path)
    assert texts(doc) == ["Transfuse below 10 x 10^9/L, or 50 x 10^9/L before surgery; CO2 and the trial[12].",
                          "Neutrophils under 0.5 x 10^9/L.", "An unclosed tag stays as written."]


# ---------------------------------------------------------------- JATS

JATS = """<?xml version="1.0" encoding="UTF-8"?>
<article xmlns:xlink="http://www.w3.org/1999/xlink" article-type="research-article">
<front><article-meta>
<article-id pub-id-type="pmid">30000001</article-id>
<title-group><article-title>CO<sub>2</sub> and platelets below 50 x 10<sup>9</sup>/L</article-title></title-group>
<abstract><p>Counts below 20 x 10<sup>9</sup>/L bled more.</p></abstract>
</article-meta></front>
<body><sec><title>Results</title>
<p>Platelets of 40 x 10<sup>9</sup>/L were safe<sup><xref ref-type="bibr" rid="b3">3</xref></sup>, as were
counts of 10<sup>&#x2212;3</sup> units and HbA<sub>1c</sub> below 7% (I<sup>2</sup> = 40%).</p>
<table-wrap><label>Table 1</label><table><tr><th>Test</th><th>Range</th></tr>
<tr><td>WBC</td><td>4-11 x 10<sup>9</sup>/L</td></tr></table></table-wrap>
</sec></body></article>"""


def test_jats_sup_and_sub(tmp_path: Path) -> None:
    path = tmp_path / "article.nxml"
    path.write_text(JATS, encoding="utf-8")
    [doc] = load_file(path)
    assert doc.title == "CO2 and platelets below 50 x 10^9/L"
    assert doc.abstract == "Counts below 20 x 10^9/L bled more."
    assert texts(doc) == [
        "Counts below 20 x 10^9/L bled more.",
        "Platelets of 40 x 10^9/L were safe[3], as were counts of 10^-3 units and HbA1c below 7% (I^2 = 40%).",
        "Table 1\n| Test | Range |\n|---|---|\n| WBC | 4-11 x 10^9/L |",
    ]


# ---------------------------------------------------------------- Word


def test_docx_superscript_and_subscript_runs(tmp_path: Path) -> None:
    import docx
    from docx.enum.style import WD_STYLE_TYPE

    document = docx.Document()
    document.add_heading("Platelet transfusion", 1)
    par = document.add_paragraph("Transfuse below 40 x 10")
    par.add_run("9").font.superscript = True
    par.add_run("/L; check HbA")
    par.add_run("1c").font.subscript = True
    par.add_run(" and CO")
    par.add_run("2").font.subscript = True
    par.add_run(" as in the trial")
    par.add_run("1").font.superscript = True  # Word often splits one superscript over runs
    par.add_run("2").font.superscript = True
    par.add_run(". Dose 2 g/m² and 10")
    par.add_run("\u22123").font.superscript = True
    par.add_run(" mol.")
    cite = document.styles.add_style("Citation", WD_STYLE_TYPE.CHARACTER)
    cite.font.superscript = True
    par = document.add_paragraph("Shown by a cohort")
    par.add_run("7", style="Citation")
    par.add_run(" of 10")
    par.add_run("6", style="Citation")
    par.add_run(" cells.")
    table = document.add_table(rows=2, cols=2)
    table.cell(0, 0).text, table.cell(0, 1).text, table.cell(1, 0).text = "Test", "Range", "WBC"
    cell = table.cell(1, 1).paragraphs[0]
    cell.add_run("4-11 x 10")
    cell.add_run("9").font.superscript = True
    cell.add_run("/L")
    path = tmp_path / "platelets.docx"
    document.save(str(path))
    [doc] = load_file(path)
    assert texts(doc) == [
        "Transfuse below 40 x 10^9/L; check HbA1c and CO2 as in the trial[12]. Dose 2 g/m^2 and 10^-3 mol.",
        "Shown by a cohort[7] of 10^6 cells.",
        "| Test | Range |\n|---|---|\n| WBC | 4-11 x 10^9/L |",
    ]


# ---------------------------------------------------------------- PDF (fpdf2: char_vpos raises/lowers smaller text)


def _script_pdf(path: Path) -> Path:
    from fpdf import FPDF

    pdf = FPDF()
    pdf.add_page()
    pdf.set_y(60)
    pdf.set_font("Helvetica", size=11)

    def write(text: str, vpos: str = "LINE") -> None:
        pdf.char_vpos = vpos
        pdf.write(6, text)
        pdf.char_vpos = "LINE"

    write("Transfuse platelets below 40 x 10")
    write("9", "SUP")
    write("/L as in the trial")
    write("12", "SUP")
    write(". Arterial CO")
    write("2", "SUB")
    pdf.ln(6)  # the next line of the same paragraph
    write("rises when clearance falls below 60 mL min")
    write("-1", "SUP")
    write(" and the dose is 2 g/m")
    write("2", "SUP")
    write(".")
    pdf.ln(14)
    # a ruled table (pdfplumber's find_tables) with a superscript in a cell
    x, y, w, h = pdf.l_margin, pdf.get_y(), 60.0, 8.0
    for r in range(3):
        pdf.line(x, y + r * h, x + 2 * w, y + r * h)
    for c in range(3):
        pdf.line(x + c * w, y, x + c * w, y + 2 * h)
    for r, (name, value) in enumerate((("Test", "Range"), ("WBC", "4-11 x 10"))):
        pdf.set_xy(x + 2, y + r * h + 1)
        pdf.write(6, name)
        pdf.set_xy(x + w + 2, y + r * h + 1)
        pdf.write(6, value)
        if r == 1:
            write("9", "SUP")
            write("/L")
    pdf.output(str(path))
    return path


def test_pdf_raised_and_lowered_glyphs(tmp_path: Path) -> None:
    [doc] = load_file(_script_pdf(tmp_path / "platelets.pdf"))
    assert texts(doc) == [
        "Transfuse platelets below 40 x 10^9/L as in the trial[12]. Arterial CO2 rises when clearance falls below "
        "60 mL min^-1 and the dose is 2 g/m^2.",
        "| Test | Range |\n|---|---|\n| WBC | 4-11 x 10^9/L |",
    ]


def test_pdf_same_size_words_on_one_baseline_are_not_scripts(tmp_path: Path) -> None:
    """A smaller font on the same baseline (small print inside a line) is not a superscript."""
    from fpdf import FPDF

    pdf = FPDF()
    pdf.add_page()
    pdf.set_y(60)
    pdf.set_font("Helvetica", size=11)
    pdf.write(6, "Give 10 ")
    pdf.set_font("Helvetica", size=8)
    pdf.write(6, "mg")
    pdf.set_font("Helvetica", size=11)
    pdf.write(6, " daily for 9 days.")
    path = tmp_path / "small.pdf"
    pdf.output(str(path))
    [doc] = load_file(path)
    assert texts(doc) == ["Give 10 mg daily for 9 days."]
