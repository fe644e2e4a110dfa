"""Loaders on small files made in the test: Markdown, text, HTML, JATS, PDF, notes."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest
from fpdf import FPDF

from clinqa.documents.loaders import detect_format, iter_documents, load_file
from clinqa.documents.loaders._common import slug
from clinqa.documents.loaders.markdown import parse_markdown
from clinqa.documents.model import Document
from clinqa.errors import LoadError


def paths_of(doc: Document) -> list[tuple[str, ...]]:
    return [p for p, _ in doc.walk()]


def blocks_of(doc: Document, *path: str) -> list[tuple[str, str]]:
    section = dict(doc.walk())[tuple(path)]
    return [(b.kind, b.text) for b in section.blocks]


# ---------------------------------------------------------------- Markdown

MD = """Intro text before any heading.

# Sepsis Management

Lead paragraph with **bold**, _emphasis_, `code` and a [link](https://example.org).
A second line of the same paragraph.

## Recognition

### qSOFA

- Respiratory rate >= 22/min
- Altered mentation
  - GCS < 15
- Systolic BP <= 100 mmHg

#### Deep detail

Text four levels down.

## Treatment

###### Skipped levels

Nested under Treatment.

1. Give antibiotics within 1 hour.
2. Give 30 mL/kg crystalloid.

| Drug | Dose |
|------|------|
| **Norepinephrine** | 0.05 ug/kg/min |
| Vasopressin | 0.03 U/min |

```python
map_target = 65
```

> Quote with *markup*.
> Second line.

    indented code
"""


def test_markdown_structure(tmp_path: Path) -> None:
    path = tmp_path / "sepsis.md"
    path.write_text(MD, encoding="utf-8")
    assert detect_format(path) == "markdown"
    [doc] = load_file(path)
    assert doc.doc_id == f"{slug(tmp_path.name)}/sepsis"
    assert doc.title == "Sepsis Management"
    assert doc.format == "markdown" and doc.source == tmp_path.name
    assert paths_of(doc) == [
        (),
        ("Sepsis Management",),
        ("Sepsis Management", "Recognition"),
        ("Sepsis Management", "Recognition", "qSOFA"),
        ("Sepsis Management", "Recognition", "qSOFA", "Deep detail"),
        ("Sepsis Management", "Treatment"),
        ("Sepsis Management", "Treatment", "Skipped levels"),
    ]
    assert blocks_of(doc) == [("paragraph", "Intro text before any heading.")]
    assert blocks_of(doc, "Sepsis Management") == [
        (
            "paragraph",
            "Lead paragraph with bold, emphasis, code and a link.\nA second line of the same paragraph.",
        )
    ]
    assert blocks_of(doc, "Sepsis Management", "Recognition", "qSOFA") == [
        ("list", "- Respiratory rate >= 22/min"),
        ("list", "- Altered mentation\n  - GCS < 15"),
        ("list", "- Systolic BP <= 100 mmHg"),
    ]
    treat = blocks_of(doc, "Sepsis Management", "Treatment", "Skipped levels")
    assert treat[0] == ("paragraph", "Nested under Treatment.")
    assert treat[1:3] == [("list", "1. Give antibiotics within 1 hour."), ("list", "2. Give 30 mL/kg crystalloid.")]
    assert treat[3] == (
        "table",
        "| Drug | Dose |\n|------|------|\n| **Norepinephrine** | 0.05 ug/kg/min |\n| Vasopressin | 0.03 U/min |",
    )
    assert treat[4] == ("code", "map_target = 65")
    assert treat[5] == ("quote", "Quote with markup.\nSecond line.")
    assert treat[6] == ("code", "indented code")


def test_markdown_without_h1_and_front_matter(tmp_path: Path) -> None:
    path = tmp_path / "renal_dosing.md"
    path.write_text(
        "---\ntitle: Renal dosing\nyear: 2021\ndoi: 10.1000/xyz\ntags: [ckd, dosing]\n---\n"
        "## Metformin\n\nAvoid if eGFR < 30.\n",
        encoding="utf-8",
    )
    [doc] = load_file(path)
    assert doc.title == "Renal dosing"
    assert doc.year == 2021 and doc.doi == "10.1000/xyz" and doc.url == "https://doi.org/10.1000/xyz"
    assert doc.topics == ["ckd", "dosing"]
    assert paths_of(doc) == [("Metformin",)]
    # no front matter, no H1: the humanised file stem
    title, sections = parse_markdown("### Only an H3\n\ntext")
    assert title == "" and sections[0].title == "Only an H3"
    path.write_text("## Metformin\n\nAvoid.\n", encoding="utf-8")
    assert load_file(path)[0].title == "Renal dosing"


# ---------------------------------------------------------------- plain text


def test_text_paragraphs_and_title(tmp_path: Path) -> None:
    path = tmp_path / "discharge advice.txt"
    path.write_text("Discharge advice\n\nRest for two days.\nDrink fluids.\n\n\nReturn if fever.\n", encoding="utf-8")
    [doc] = load_file(path)
    assert doc.doc_id == f"{slug(tmp_path.name)}/discharge-advice"
    assert doc.title == "Discharge advice"
    assert [b.text for b in doc.sections[0].blocks] == ["Rest for two days.\nDrink fluids.", "Return if fever."]
    long_first = tmp_path / "long.text"
    long_first.write_text("x" * 130 + "\n\nsecond", encoding="utf-8")
    [doc] = load_file(long_first)
    assert doc.title == "long" and len(doc.sections[0].blocks) == 2


# ---------------------------------------------------------------- HTML

HTML = """<!DOCTYPE html>
<html><head>
<title>Hypertension in Adults | Example Health</title>
<meta name="citation_title" content="Hypertension in Adults: Diagnosis">
<meta name="citation_author" content="Doe, Jane">
<meta name="citation_author" content="Roe, Richard">
<meta name="citation_publication_date" content="2019/05/02">
<meta name="citation_doi" content="10.1000/htn.2019">
<style>.x{color:red}</style><script>var tracking = 1;</script>
</head><body>
<header><h1>Site banner</h1></header>
<nav><ul><li>Home</li><li>About</li></ul></nav>
<main>
<h1>Hypertension in Adults</h1>
<p>Blood pressure <b>above 130/80</b> is raised.</p>
<h2>Diagnosis</h2>
<div>Loose text in a div.</div>
<ul><li>Measure twice<ul><li>seated</li></ul></li><li>Use a validated cuff</li></ul>
<h3>Thresholds</h3>
<table><caption>BP categories</caption>
<tr><th>Category</th><th>Systolic</th></tr>
<tr><td>Normal</td><td>&lt;120</td></tr>
<tr><td>Stage 1</td><td>130-139</td></tr>
</table>
<h2>Treatment</h2>
<ol><li>Lifestyle</li><li>Drugs</li></ol>
<pre>  dose = 5 mg</pre>
<blockquote><p>Treat to target.</p></blockquote>
<noscript>Enable JS</noscript>
<form><p>Subscribe</p></form>
</main>
<aside><p>Related links</p></aside>
<footer><p>Copyright</p></footer>
</body></html>
"""


def test_html_structure_and_metadata(tmp_path: Path) -> None:
    path = tmp_path / "htn.html"
    path.write_text(HTML, encoding="utf-8")
    [doc] = load_file(path)
    assert doc.title == "Hypertension in Adults: Diagnosis"
    assert doc.authors == ["Doe, Jane", "Roe, Richard"]
    assert doc.year == 2019
    assert doc.doi == "10.1000/htn.2019" and doc.url == "https://doi.org/10.1000/htn.2019"
    assert paths_of(doc) == [
        ("Hypertension in Adults",),
        ("Hypertension in Adults", "Diagnosis"),
        ("Hypertension in Adults", "Diagnosis", "Thresholds"),
        ("Hypertension in Adults", "Treatment"),
    ]
    assert blocks_of(doc, "Hypertension in Adults") == [("paragraph", "Blood pressure above 130/80 is raised.")]
    assert blocks_of(doc, "Hypertension in Adults", "Diagnosis") == [
        ("paragraph", "Loose text in a div."),
        ("list", "- Measure twice\n  - seated"),
        ("list", "- Use a validated cuff"),
    ]
    assert blocks_of(doc, "Hypertension in Adults", "Diagnosis", "Thresholds") == [
        ("table", "BP categories\n| Category | Systolic |\n|---|---|\n| Normal | <120 |\n| Stage 1 | 130-139 |")
    ]
    assert blocks_of(doc, "Hypertension in Adults", "Treatment") == [
        ("list", "1. Lifestyle"),
        ("list", "2. Drugs"),
        ("code", "  dose = 5 mg"),
        ("quote", "Treat to target."),
    ]
    text = doc.text()
    for dropped in ("Site banner", "Home", "tracking", "Enable JS", "Subscribe", "Related links", "Copyright"):
        assert dropped not in text


def test_html_title_falls_back_to_title_then_h1(tmp_path: Path) -> None:
    path = tmp_path / "page.htm"
    path.write_text("<html><head><title>Page title</title></head><body><p>x</p></body></html>", encoding="utf-8")
    assert load_file(path)[0].title == "Page title"
    path.write_text("<html><body><h1>Heading one</h1><p>x</p></body></html>", encoding="utf-8")
    assert load_file(path)[0].title == "Heading one"


def test_html_declared_charset(tmp_path: Path) -> None:
    path = tmp_path / "latin1.html"
    html = (
        '<html><head><meta charset="iso-8859-1"><title>Caf\xe9</title></head>'
        "<body><p>Na\xefve caf\xe9</p></body></html>"
    )
    path.write_bytes(html.encode("latin-1"))
    [doc] = load_file(path)
    assert doc.title == "Café" and doc.text() == "Naïve café"


# ---------------------------------------------------------------- JATS

JATS = """<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE article PUBLIC "-//NLM//DTD JATS (Z39.96) Journal Archiving and Interchange DTD v1.3 20210610//EN"
  "JATS-archivearticle1-3-mathml3.dtd">
<article xmlns:xlink="http://www.w3.org/1999/xlink" article-type="research-article">
<front>
<journal-meta><journal-title-group><journal-title>BMC Cardiovascular Disorders</journal-title></journal-title-group>
</journal-meta>
<article-meta>
<article-id pub-id-type="pmid">31234567</article-id>
<article-id pub-id-type="pmc">PMC6543210</article-id>
<article-id pub-id-type="doi">10.1186/s12872-019-1111-1</article-id>
<title-group><article-title>Statins before <italic>vascular</italic> surgery</article-title></title-group>
<contrib-group>
<contrib contrib-type="author"><name><surname>Doe</surname><given-names>Jane A</given-names></name></contrib>
<contrib contrib-type="author"><name><surname>Smith</surname><given-names>John</given-names></name></contrib>
<contrib contrib-type="editor"><name><surname>Editor</surname><given-names>Ed</given-names></name></contrib>
</contrib-group>
<pub-date pub-type="epub"><day>20</day><month>6</month><year>2019</year></pub-date>
<abstract>
<sec><title>Background</title><p>Statins may reduce perioperative events.</p></sec>
<sec><title>Results</title><p>Mortality fell from 5% to 3%.</p></sec>
</abstract>
<kwd-group><kwd>statins</kwd><kwd>vascular surgery</kwd></kwd-group>
</article-meta>
</front>
<body>
<sec id="s1"><label>1</label><title>Introduction</title>
<p>Vascular surgery carries high cardiac risk <xref ref-type="bibr" rid="b1">[1]</xref>.</p>
<p>We asked:<list list-type="bullet"><list-item><p>Do statins help?</p></list-item>
<list-item><p>At which dose?</p><list list-type="order"><list-item><p>Low</p></list-item></list></list-item></list></p>
</sec>
<sec id="s2"><label>2</label><title>Methods</title>
<sec id="s2a"><title>Study population</title><p>Adults undergoing vascular surgery.</p>
<table-wrap id="t1"><label>Table 1</label><caption><p>Baseline characteristics</p></caption>
<table><thead><tr><th>Group</th><th>n</th></tr></thead>
<tbody><tr><td>Statin</td><td>120</td></tr><tr><td>No statin</td><td>98</td></tr></tbody></table>
</table-wrap>
</sec>
</sec>
</body>
<back><ref-list><ref id="b1"><mixed-citation>Reference one.</mixed-citation></ref></ref-list></back>
</article>
"""


def test_jats_article(tmp_path: Path) -> None:
    path = tmp_path / "PMC6543210.nxml"
    path.write_text(JATS, encoding="utf-8")
    assert detect_format(path) == "jats"
    as_xml = tmp_path / "article.xml"
    as_xml.write_text(JATS, encoding="utf-8")
    assert detect_format(as_xml) == "jats"
    [doc] = load_file(path)
    assert doc.doc_id == "pubmed:31234567"
    assert doc.title == "Statins before vascular surgery"
    assert doc.authors == ["Jane A Doe", "John Smith"]
    assert doc.year == 2019
    assert doc.source == "BMC Cardiovascular Disorders"
    assert doc.doi == "10.1186/s12872-019-1111-1" and doc.url == "https://doi.org/10.1186/s12872-019-1111-1"
    assert doc.topics == ["statins", "vascular surgery"]
    assert (
        doc.abstract == "Background: Statins may reduce perioperative events.\n\nResults: Mortality fell from 5% to 3%."
    )
    assert paths_of(doc) == [
        ("Abstract",),
        ("Abstract", "Background"),
        ("Abstract", "Results"),
        ("1 Introduction",),
        ("2 Methods",),
        ("2 Methods", "Study population"),
    ]
    assert blocks_of(doc, "1 Introduction") == [
        ("paragraph", "Vascular surgery carries high cardiac risk [1]."),
        ("paragraph", "We asked:"),
        ("list", "- Do statins help?"),
        ("list", "- At which dose?\n  1. Low"),
    ]
    assert blocks_of(doc, "2 Methods", "Study population")[1] == (
        "table",
        "Table 1 Baseline characteristics\n| Group | n |\n|---|---|\n| Statin | 120 |\n| No statin | 98 |",
    )
    assert "Reference one" not in doc.text()


# ---------------------------------------------------------------- PDF (made with fpdf2)


def _pdf(path: Path, *, encrypt: bool = False) -> Path:
    pdf = FPDF()
    if encrypt:
        pdf.set_encryption(owner_password="owner-pw", user_password="secret")
    pdf.add_page()

    def para(text: str, size: float = 11, style: str = "", height: float = 6) -> None:
        pdf.set_font("Helvetica", style, size)
        pdf.multi_cell(0, height, text, new_x="LMARGIN", new_y="NEXT")

    para("Perioperative Statin Therapy Review", 20, "B", 10)
    para("Jane Doe, John Smith")
    pdf.ln(4)
    para("1. Introduction", 14, "B", 8)
    para(
        "Statins reduce cardiovascular events in patients undergoing vascular surgery. " * 3
        + "Continuation is recommended for every patient already taking a statin and this sentence ends in a hyphen-"
        + "\nated word that must be rejoined."
    )
    pdf.ln(4)
    para("A second paragraph of the introduction.")
    pdf.ln(4)
    para("1.1 Background", 12, "B", 7)
    para("Background text paragraph. " * 5)
    pdf.ln(4)
    para("2. Results", 14, "B", 8)
    para("The results are summarised in the table below.")
    pdf.ln(2)
    pdf.set_font("Helvetica", "", 11)
    with pdf.table() as table:
        for row in (
            ("Drug", "Dose", "Effect"),
            ("Atorvastatin", "40 mg", "Reduced MI"),
            ("Rosuvastatin", "20 mg", "Reduced stroke"),
        ):
            cells = table.row()
            for cell in row:
                cells.cell(cell)
    pdf.ln(4)
    para("Text after the table closes the results section.")
    pdf.add_page()
    para("3. Discussion", 14, "B", 8)
    para("Discussion on the second page.")
    pdf.output(str(path))
    return path


def test_pdf_headings_paragraphs_table(tmp_path: Path) -> None:
    path = _pdf(tmp_path / "statins.pdf")
    assert detect_format(path) == "pdf"
    [doc] = load_file(path)
    assert doc.title == "Perioperative Statin Therapy Review"
    assert doc.format == "pdf" and doc.doc_id == f"{slug(tmp_path.name)}/statins"
    assert paths_of(doc) == [
        (),
        ("1. Introduction",),
        ("1. Introduction", "1.1 Background"),
        ("2. Results",),
        ("3. Discussion",),
    ]
    intro = blocks_of(doc, "1. Introduction")
    assert len(intro) == 2
    assert intro[0][1].startswith(
        "Statins reduce cardiovascular events in patients undergoing vascular surgery. Statins"
    )
    assert intro[0][1].endswith("ends in a hyphenated word that must be rejoined.")
    assert intro[1] == ("paragraph", "A second paragraph of the introduction.")
    results = blocks_of(doc, "2. Results")
    assert results == [
        ("paragraph", "The results are summarised in the table below."),
        (
            "table",
            "| Drug | Dose | Effect |\n|---|---|---|\n| Atorvastatin | 40 mg | Reduced MI |\n"
            "| Rosuvastatin | 20 mg | Reduced stroke |",
        ),
        ("paragraph", "Text after the table closes the results section."),
    ]
    assert "Atorvastatin" not in " ".join(t for k, t in results if k != "table")
    assert blocks_of(doc, "3. Discussion") == [("paragraph", "Discussion on the second page.")]


def test_pdf_encrypted_and_truncated(tmp_path: Path) -> None:
    enc = _pdf(tmp_path / "locked.pdf", encrypt=True)
    with pytest.raises(LoadError, match=r"encrypted PDF \(password required\)") as err:
        load_file(enc)
    assert "locked.pdf" in str(err.value)
    data = _pdf(tmp_path / "full.pdf").read_bytes()
    cut = tmp_path / "cut.pdf"
    cut.write_bytes(data[: len(data) // 2])
    with pytest.raises(LoadError, match="corrupt or truncated PDF") as err:
        load_file(cut)
    assert "cut.pdf" in str(err.value)


def test_pdf_owner_password_only_opens_with_empty_password(tmp_path: Path) -> None:
    pdf = FPDF()
    pdf.set_encryption(owner_password="owner-only")  # empty user password: readable
    pdf.add_page()
    pdf.set_font("Helvetica", size=11)
    pdf.cell(0, 10, "Readable despite encryption.")
    path = tmp_path / "owner.pdf"
    pdf.output(str(path))
    assert load_file(path)[0].text() == "Readable despite encryption."


def test_pdf_without_text(tmp_path: Path) -> None:
    pdf = FPDF()
    pdf.add_page()
    pdf.rect(20, 20, 50, 50)  # a drawing, no text: like a scan without OCR
    path = tmp_path / "scan.pdf"
    pdf.output(str(path))
    from clinqa.documents.loaders.pdf import ocr_available

    why = ocr_available()  # with OCR: there is no image to read; without: the error names the extra
    reason = ("no extractable text (no text layer and no page image to OCR)" if why is None
              else f"no extractable text (scanned PDF? OCR is not available: {why})")
    with pytest.raises(LoadError) as err:
        load_file(path)
    assert err.value.reason == reason


# ---------------------------------------------------------------- Word (made with python-docx)


def _docx(path: Path) -> Path:
    import docx

    d = docx.Document()
    d.core_properties.author = "Ward 7 Pharmacy; A. Nurse"
    d.add_paragraph("Heparin Infusion Protocol", style="Title")
    d.add_paragraph("For adult inpatients with venous thromboembolism.")
    d.add_heading("1. Dosing", 1)
    d.add_paragraph("Weigh the patient before the first dose.")
    d.add_paragraph("Give a bolus of 80 units/kg.", style="List Number")
    d.add_paragraph("Start the infusion at 18 units/kg/h.", style="List Number")
    d.add_heading("1.1 Monitoring", 2)
    d.add_paragraph("Check aPTT 6 hours after every change:", style="List Bullet")
    d.add_paragraph("below 35 s: rebolus 80 units/kg", style="List Bullet 2")
    d.add_paragraph("above 100 s: stop for 1 hour", style="List Bullet 2")
    d.add_paragraph("Check platelets daily.", style="List Bullet")
    table = d.add_table(rows=3, cols=2)
    for r, row in enumerate((("aPTT (s)", "Change"), ("< 35", "+4 units/kg/h"), ("> 100", "-3 units/kg/h | hold"))):
        for c, value in enumerate(row):
            table.cell(r, c).text = value
    d.add_paragraph("")
    d.add_heading("2. Stopping", 1)
    d.add_paragraph("Stop 4 hours before surgery.")
    d.save(str(path))
    return path


def test_docx_protocol(tmp_path: Path) -> None:
    path = _docx(tmp_path / "heparin.docx")
    assert detect_format(path) == "docx"
    [doc] = load_file(path)
    assert doc.title == "Heparin Infusion Protocol"
    assert doc.format == "docx" and doc.doc_id == f"{slug(tmp_path.name)}/heparin"
    assert doc.authors == ["Ward 7 Pharmacy", "A. Nurse"]
    assert paths_of(doc) == [(), ("1. Dosing",), ("1. Dosing", "1.1 Monitoring"), ("2. Stopping",)]
    assert blocks_of(doc) == [("paragraph", "For adult inpatients with venous thromboembolism.")]
    assert blocks_of(doc, "1. Dosing") == [
        ("paragraph", "Weigh the patient before the first dose."),
        ("list", "1. Give a bolus of 80 units/kg."),
        ("list", "2. Start the infusion at 18 units/kg/h."),
    ]
    assert blocks_of(doc, "1. Dosing", "1.1 Monitoring") == [
        ("list", "- Check aPTT 6 hours after every change:\n  - below 35 s: rebolus 80 units/kg\n"
                 "  - above 100 s: stop for 1 hour"),
        ("list", "- Check platelets daily."),
        ("table", "| aPTT (s) | Change |\n|---|---|\n| < 35 | +4 units/kg/h |\n| > 100 | -3 units/kg/h \\| hold |"),
    ]
    assert blocks_of(doc, "2. Stopping") == [("paragraph", "Stop 4 hours before surgery.")]


def test_docx_without_text(tmp_path: Path) -> None:
    import docx

    path = tmp_path / "blank.docx"
    d = docx.Document()
    d.add_paragraph("   ")
    d.save(str(path))
    with pytest.raises(LoadError, match="no text in the document") as err:
        load_file(path)
    assert str(err.value).startswith(f"{path}: ")


# ---------------------------------------------------------------- clinical notes

NOTE_TEXT = (
    "Seen for follow-up of type 2 diabetes.\n\n"
    "HPI: Reports polyuria for 2 weeks.\nNo weight loss.\n\n"
    "ASSESSMENT:\nPoorly controlled T2DM.\n\n"
    "PLAN:\n1. Increase metformin to 1 g BID.\n2. Recheck HbA1c in 3 months.\n"
)


def test_notes_jsonl(tmp_path: Path) -> None:
    path = tmp_path / "notes.jsonl"
    rows = [
        {
            "patient_id": "P001",
            "note_id": "N1",
            "date": "2024-03-05",
            "note_type": "Progress",
            "author_role": "physician",
            "text": NOTE_TEXT,
        },
        {
            "patient_id": "P002",
            "note_id": "N2",
            "date": "2024-04-01T09:30:00",
            "note_type": "Discharge note",
            "text": "Discharged home.",
            "title": "Discharge summary",
        },
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    assert detect_format(path) == "notes"
    first, second = load_file(path)
    assert first.doc_id == "note:P001:N1" and first.patient_id == "P001"
    assert second.doc_id == "note:P002:N2" and second.patient_id == "P002"
    assert first.note_date == date(2024, 3, 5) and first.year == 2024
    assert first.title == "Progress note 2024-03-05"
    assert first.note_type == "Progress" and first.author_role == "physician" and first.source == "notes"
    assert paths_of(first) == [(), ("HPI",), ("ASSESSMENT",), ("PLAN",)]
    assert blocks_of(first, "HPI") == [("paragraph", "Reports polyuria for 2 weeks.\nNo weight loss.")]
    assert blocks_of(first, "PLAN") == [
        ("list", "1. Increase metformin to 1 g BID."),
        ("list", "2. Recheck HbA1c in 3 months."),
    ]
    assert second.title == "Discharge summary" and second.note_date == date(2024, 4, 1)


def test_notes_jsonl_names_every_bad_line_and_loads_none(tmp_path: Path) -> None:
    """Found by a new user: a notes file with a bad date on line 1 and broken JSON on line 2 reported only
    line 1; fixing it and re-running then failed on line 2. Every bad line is named at once."""
    from clinqa.errors import LoadError

    good = {"patient_id": "P1", "note_id": "N3", "date": "2024-01-02", "note_type": "clinic", "text": "Well."}
    path = tmp_path / "notes.jsonl"
    path.write_text(json.dumps({**good, "note_id": "N1", "date": "2024-13-01"}) + "\n{not json\n"
                    + json.dumps(good) + "\n[1, 2]\n", encoding="utf-8")
    with pytest.raises(LoadError) as err:
        load_file(path)
    reason = err.value.reason
    assert reason.startswith("3 bad lines: line 1: ")
    assert "line 2: invalid JSON" in reason and "line 4: expected a JSON object, got list" in reason
    # one bad line reads as before
    path.write_text(json.dumps(good) + "\n{not json\n", encoding="utf-8")
    with pytest.raises(LoadError, match=r": line 2: invalid JSON \("):
        load_file(path)


def test_notes_csv(tmp_path: Path) -> None:
    path = tmp_path / "notes.csv"
    path.write_text(
        "patient_id,note_id,date,note_type,author_role,text\n"
        'P001,N1,2023-11-02,Nursing,nurse,"PLAN:\nMonitor glucose q4h.\n\nCall if >300."\n'
        "P001,N2,2023-11-03,Progress,,Stable overnight.\n",
        encoding="utf-8",
    )
    assert detect_format(path) == "notes"
    docs = load_file(path)
    assert [d.doc_id for d in docs] == ["note:P001:N1", "note:P001:N2"]
    assert blocks_of(docs[0], "PLAN") == [("paragraph", "Monitor glucose q4h."), ("paragraph", "Call if >300.")]
    assert docs[1].title == "Progress note 2023-11-03" and docs[1].author_role == ""


def test_notes_ids_are_per_patient(tmp_path: Path) -> None:
    # note ids are often numbered per patient: the same note_id under two patients is fine
    path = tmp_path / "notes.csv"
    header = "patient_id,note_id,date,note_type,text\n"
    path.write_text(header + "P001,1,2024-01-01,Progress,First.\nP002,1,2024-01-02,Progress,Other.\n", encoding="utf-8")
    assert [d.doc_id for d in load_file(path)] == ["note:P001:1", "note:P002:1"]
    # ... but a repeat within one patient is still an error
    path.write_text(header + "P001,1,2024-01-01,Progress,First.\nP001,1,2024-01-02,Progress,Again.\n", encoding="utf-8")
    with pytest.raises(LoadError) as err:
        load_file(path)
    assert err.value.reason == "line 3: duplicate note_id '1' for patient 'P001'"


# ---------------------------------------------------------------- path-derived document ids


def test_same_file_name_in_two_folders_gets_two_ids(tmp_path: Path) -> None:
    for folder in ("cardio", "renal"):
        (tmp_path / folder / "sub").mkdir(parents=True)
        (tmp_path / folder / "protocol.md").write_text(f"# {folder} protocol\n\ntext", encoding="utf-8")
        (tmp_path / folder / "sub" / "Dosing Table.txt").write_text("Dosing\n\ntext", encoding="utf-8")
    # a file passed directly: <parent folder name>/<stem>
    assert load_file(tmp_path / "cardio" / "protocol.md")[0].doc_id == "cardio/protocol"
    assert load_file(tmp_path / "renal" / "protocol.md")[0].doc_id == "renal/protocol"
    # folders passed: <folder name>/<relative path>, the same id for a file directly inside
    out = list(iter_documents([tmp_path / "cardio", tmp_path / "renal"]))
    assert [o.doc_id for o in out if isinstance(o, Document)] == [
        "cardio/protocol",
        "cardio/sub/Dosing-Table",
        "renal/protocol",
        "renal/sub/Dosing-Table",
    ]
    # the parent folder passed: its name leads
    top = slug(tmp_path.name)
    out = list(iter_documents([tmp_path]))
    assert sorted(o.doc_id for o in out if isinstance(o, Document)) == [
        f"{top}/cardio/protocol",
        f"{top}/cardio/sub/Dosing-Table",
        f"{top}/renal/protocol",
        f"{top}/renal/sub/Dosing-Table",
    ]
