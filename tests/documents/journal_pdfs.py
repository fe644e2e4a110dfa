"""Generated journal articles as the PDF loader meets them: two columns, three pages (fpdf2).

Each article has a full-width title, authors and boxed abstract on page 1, body text in two
columns with numbered section headings, line-end hyphenation (words broken with "-" at the
column edge), a footnote at the bottom of page 1, a table spanning both columns in the middle of
page 2 (the text flows around it: the left and right columns above it, then the two columns
below it), a figure with its caption at the top of page 3's right column (the paragraph before
it continues after it, mid-sentence), a running head and page numbers, and a numbered
References section at the end.

:func:`make_article` writes the PDF and returns what was written: every body sentence in
reading order with the page(s) it lies on, the captions, the table, the footnote and the
references, so tests check the loader against the generating text.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path

from fpdf import FPDF

BODY_PT = 9.0
LINE_MM = 4.2
LEFT_X, RIGHT_X, COL_W = 15.0, 108.0, 87.0  # gutter 108 - 102 = 6 mm
FULL_W = RIGHT_X + COL_W - LEFT_X

DRUGS = ["apixaban", "rivaroxaban", "dabigatran", "edoxaban", "warfarin", "enoxaparin", "ticagrelor",
         "clopidogrel", "atorvastatin", "rosuvastatin", "empagliflozin", "dapagliflozin", "sacubitril"]
OUTCOMES = ["major haemorrhage", "recurrent thromboembolism", "cardiovascular hospitalisation",
            "ischaemic stroke", "all-cause mortality", "intracranial bleeding", "myocardial infarction"]
LONG = ["anticoagulation", "thromboprophylaxis", "pharmacokinetic", "echocardiographic", "revascularisation",
        "hypercholesterolaemia", "nephrotoxicity", "contraindicated", "interventional", "multidisciplinary"]
SECTIONS = ["1. Introduction", "2. Methods", "3. Results", "4. Discussion"]


@dataclass
class Article:
    """What :func:`make_article` wrote. ``sentences`` are in reading order as ``(section, sentence,
    pages)``, pages 1-based; ``hyphenated`` lists the words broken over a line end."""

    path: Path
    title: str
    abstract: str
    sentences: list[tuple[str, str, tuple[int, ...]]] = field(default_factory=list)
    captions: dict[str, int] = field(default_factory=dict)  # caption -> page
    table: list[list[str]] = field(default_factory=list)
    footnote: str = ""
    references: list[str] = field(default_factory=list)
    hyphenated: list[str] = field(default_factory=list)
    columns: dict[str, tuple[int, str]] = field(default_factory=dict)  # sentence -> (page, "left"|"right")


def _sentence(rng: random.Random, k: int) -> str:
    drug, outcome, word = rng.choice(DRUGS), rng.choice(OUTCOMES), rng.choice(LONG)
    forms = [
        f"In cohort {k}, {drug} reduced {outcome} by {rng.randint(5, 60)}% compared with placebo over "
        f"{rng.randint(3, 36)} months of follow-up.",
        f"Patients in stratum {k} who required {word} had {outcome} rates of {rng.randint(1, 30)}.{rng.randint(0, 9)} "
        f"per 100 patient-years.",
        f"The {word} assessment in group {k} was repeated after {rng.randint(2, 14)} days, and {drug} was "
        f"continued when renal function allowed it.",
        f"Observation {k} showed that {drug} at {rng.choice([2.5, 5, 10, 15, 20, 40])} mg was associated with "
        f"fewer episodes of {outcome} than standard care.",
    ]
    return rng.choice(forms)


def _to_page(pdf: FPDF, page: int) -> None:
    """Write on ``page`` from now on. fpdf2 skips a ``set_font`` equal to its current font, whose operator
    may have gone to another page's content stream: forget it so the next ``set_font`` is written here."""
    family, style, size = pdf.font_family, pdf.font_style, pdf.font_size_pt
    pdf.page = page
    pdf.font_family = ""
    if family:
        pdf.set_font(family, style, size)


class _Flow:
    """Places wrapped lines into column slots, page by page; records the page of every sentence."""

    def __init__(self, pdf: FPDF, slots: list[tuple[int, float, float, float]], art: Article) -> None:
        self.pdf, self.slots, self.art = pdf, slots, art
        self.i = 0
        self.y = slots[0][2]
        _to_page(pdf, slots[0][0])

    @property
    def page(self) -> int:
        return self.slots[self.i][0]

    def _room(self, lines: int) -> bool:
        return self.y + lines * LINE_MM <= self.slots[self.i][3] + 0.01

    def _next_slot(self) -> None:
        self.i += 1
        if self.i >= len(self.slots):
            raise RuntimeError("article text does not fit in three pages")
        page, _, top, _ = self.slots[self.i]
        _to_page(self.pdf, page)
        self.y = top

    def _wrap(self, words: list[str], width: float) -> tuple[list[str], list[tuple[int, int]]]:
        """Greedy wrap of ``words`` into lines of ``width`` mm; long lower-case words are broken at the
        line end with a hyphen. Returns the lines and, per word, the lines it starts and ends on."""
        lines: list[str] = []
        where: list[tuple[int, int]] = []
        cur = ""
        for w in words:
            trial = f"{cur} {w}" if cur else w
            if self.pdf.get_string_width(trial) <= width:
                cur = trial
                where.append((len(lines), len(lines)))
                continue
            if len(w) >= 9 and w.isalpha() and w.islower():
                for cut in range(len(w) - 4, 3, -1):
                    head = f"{cur} {w[:cut]}-" if cur else f"{w[:cut]}-"
                    if self.pdf.get_string_width(head) <= width:
                        lines.append(head)
                        self.art.hyphenated.append(w)
                        where.append((len(lines) - 1, len(lines)))
                        cur = w[cut:]
                        break
                else:
                    lines.append(cur)
                    cur = w
                    where.append((len(lines), len(lines)))
                continue
            lines.append(cur)
            cur = w
            where.append((len(lines), len(lines)))
        if cur:
            lines.append(cur)
        return lines, where

    def heading(self, text: str) -> None:
        if not self._room(3):
            self._next_slot()
        elif self.y > self.slots[self.i][2]:
            self.y += 1.5
        self.pdf.set_font("Helvetica", "B", 10.5)
        self.pdf.set_xy(self.slots[self.i][1], self.y)
        self.pdf.cell(COL_W, 5, text)
        self.y += 6

    def paragraph(self, section: str, sentences: list[str], size: float = BODY_PT) -> None:
        self.pdf.set_font("Helvetica", "", size)
        words: list[str] = []
        ends: list[int] = []  # index of each sentence's last word
        for s in sentences:
            words.extend(s.split())
            ends.append(len(words) - 1)
        lines, where = self._wrap(words, COL_W - 2.2)  # fpdf2 cells pad text by 1 mm each side
        pages_of_line: list[int] = []
        cols_of_line: list[tuple[int, str]] = []
        for text in lines:
            if not self._room(1):
                self._next_slot()
            self.pdf.set_xy(self.slots[self.i][1], self.y)
            self.pdf.cell(COL_W, LINE_MM, text)
            pages_of_line.append(self.page)
            cols_of_line.append((self.page, "left" if self.slots[self.i][1] == LEFT_X else "right"))
            self.y += LINE_MM
        self.y += 1.8  # paragraph spacing
        first = 0
        for s, last in zip(sentences, ends, strict=True):
            pages = sorted({pages_of_line[where[first][0]], pages_of_line[where[last][1]]})
            self.art.sentences.append((section, s, tuple(pages)))
            if cols_of_line[where[first][0]] == cols_of_line[where[last][1]]:  # all in one column
                self.art.columns[s] = cols_of_line[where[first][0]]
            first = last + 1


def make_article(path: Path, seed: int = 1) -> Article:
    """Write a three-page two-column article to ``path``; returns what it holds (see module doc)."""
    rng = random.Random(seed)
    k = iter(range(seed * 1000, seed * 1000 + 999))
    title = f"{rng.choice(DRUGS).capitalize()} versus standard care in older adults: a randomised trial {seed}"
    abstract = " ".join(_sentence(rng, next(k)) for _ in range(4))
    art = Article(path, title, abstract)
    pdf = FPDF(format="A4", unit="mm")
    pdf.set_auto_page_break(False)
    pdf.set_title(title)
    pdf.set_author("A. Example; B. Sample")
    for _ in range(3):
        pdf.add_page()
    for p in (1, 2, 3):  # running head and page number
        _to_page(pdf, p)
        pdf.set_font("Helvetica", "I", 7)
        pdf.set_xy(LEFT_X, 8)
        pdf.cell(FULL_W, 4, f"Journal of Generated Medicine 2024;{seed}:{100 + p}")
        pdf.set_font("Helvetica", "", 7)
        pdf.set_xy(LEFT_X, 287)
        pdf.cell(FULL_W, 4, str(100 + p), align="C")
    _to_page(pdf, 1)
    pdf.set_font("Helvetica", "B", 15)
    pdf.set_xy(LEFT_X, 18)
    pdf.multi_cell(FULL_W, 7, title, align="L")
    pdf.set_font("Helvetica", "", 9.5)
    pdf.set_x(LEFT_X)
    pdf.multi_cell(FULL_W, 5, "A. Example, B. Sample", align="L")
    y = pdf.get_y() + 3
    pdf.set_font("Helvetica", "B", 10.5)
    pdf.set_xy(LEFT_X + 3, y + 2)
    pdf.cell(FULL_W - 6, 5, "Abstract")
    pdf.set_font("Helvetica", "", BODY_PT)
    pdf.set_xy(LEFT_X + 3, y + 8)
    pdf.multi_cell(FULL_W - 6, LINE_MM, abstract, align="L")
    bottom = pdf.get_y() + 2
    pdf.rect(LEFT_X, y, FULL_W, bottom - y)
    art.footnote = f"Correspondence: A. Example, Department of Medicine, Generated University Hospital {seed}."
    pdf.set_font("Helvetica", "", 7)
    pdf.set_xy(LEFT_X, 276)
    pdf.cell(FULL_W, 3.5, art.footnote)
    pdf.line(LEFT_X, 275, LEFT_X + 50, 275)

    # page 2: the table spans both columns between y = 118 and ~165
    table_top = 118.0
    caption_t = f"Table 1. Baseline characteristics of the {300 + seed} enrolled patients."
    _to_page(pdf, 2)
    pdf.set_font("Helvetica", "B", 8)
    pdf.set_xy(LEFT_X, table_top)
    pdf.cell(FULL_W, 4, caption_t)
    art.captions[caption_t] = 2
    art.table = [["Characteristic", "Intervention", "Control", "P value"],
                 ["Age, years", f"{70 + seed}", f"{71 + seed}", "0.42"],
                 ["Women, %", "48", "51", "0.37"],
                 ["eGFR, mL/min", "61", "59", "0.55"]]
    pdf.set_font("Helvetica", "", 8)
    pdf.set_xy(LEFT_X, table_top + 5)
    with pdf.table(width=FULL_W, align="LEFT", line_height=5, first_row_as_headings=False) as table:
        for row in art.table:
            cells = table.row()
            for c in row:
                cells.cell(c)
    table_bottom = pdf.get_y() + 4

    # page 3: a figure at the top of the right column
    fig_caption = f"Figure 1. Cumulative incidence of major haemorrhage by treatment group in trial {seed}."
    _to_page(pdf, 3)
    pdf.rect(RIGHT_X, 20, COL_W, 40)
    pdf.set_font("Helvetica", "", 8)
    pdf.set_xy(RIGHT_X, 62)
    pdf.multi_cell(COL_W, 3.6, fig_caption, align="L")
    fig_bottom = pdf.get_y() + 3
    art.captions[fig_caption] = 3

    slots = [(1, LEFT_X, bottom + 6, 270.0), (1, RIGHT_X, bottom + 6, 270.0),
             (2, LEFT_X, 20.0, table_top - 4), (2, RIGHT_X, 20.0, table_top - 4),
             (2, LEFT_X, table_bottom, 280.0), (2, RIGHT_X, table_bottom, 280.0),
             (3, LEFT_X, 20.0, 280.0), (3, RIGHT_X, fig_bottom, 280.0)]
    flow = _Flow(pdf, slots, art)
    # sections run on until the flow reaches a given column slot, so the text fills three pages and the
    # Discussion continues past the figure on page 3
    for sec, until in zip(SECTIONS, (1, 3, 5, 7), strict=True):
        flow.heading(sec)
        while True:
            flow.paragraph(sec, [_sentence(rng, next(k)) for _ in range(rng.randint(3, 5))])
            if flow.i > until or (flow.i == until and flow.y > slots[until][2] + 40):
                break
    flow.heading("References")
    pdf.set_font("Helvetica", "", 7.5)
    for r in range(1, 6):
        ref = (f"{r}. {rng.choice(['Smith', 'Jones', 'Patel', 'Garcia', 'Chen'])} J, Doe A. "
               f"{rng.choice(DRUGS).capitalize()} for {rng.choice(OUTCOMES)} in older adults. "
               f"N Engl J Gen Med. {2010 + r};{rng.randint(100, 400)}:{rng.randint(1, 99)}-{rng.randint(100, 200)}.")
        art.references.append(ref)
        for line in flow._wrap(ref.split(), COL_W - 2.2)[0]:
            if not flow._room(1):
                flow._next_slot()
            pdf.set_xy(flow.slots[flow.i][1], flow.y)
            pdf.cell(COL_W, 3.4, line)
            flow.y += 3.4
    pdf.output(str(path))
    return art
