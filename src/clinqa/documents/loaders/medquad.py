"""MedQuAD XML loader (github.com/abachaa/MedQuAD; Ben Abacha & Demner-Fushman 2019).

Usual layout: ``<Document id source url><Focus/><FocusAnnotations>(UMLS CUIs, SemanticTypes,
SemanticGroup, Synonyms, Category)</FocusAnnotations><QAPairs><QAPair pid><Question qid
qtype/><Answer/></QAPair>...``. Variants handled: 4 NINDS files use ``<doc docid corpus url>``
/ ``<doctitle-focus>`` / ``<qaPairs><pair><question><answer>`` (lower case) and one CDC file
uses ``<DiseaseFile fid>``. Element names are matched case-insensitively.

One Document per file; one Section per answered QA pair, titled by the question and its
type (``"What is (are) Glaucoma? (information)"``). Answers keep their paragraphs; the
inline bullet lists some sources encode as ``"    - item    - item"`` become list blocks.
QA pairs with empty answers (removed by the authors for MedlinePlus copyright in the ADAM,
MPlusDrugs and MPlusHerbsSupplements subsets) are skipped.
"""

from __future__ import annotations

import re
from pathlib import Path

from lxml import etree

from clinqa.documents.loaders._common import norm_ws, slug, str_list
from clinqa.documents.loaders._io import MEDQUAD_ROOTS, parse_xml, read_bytes
from clinqa.documents.model import Block, Document, Section
from clinqa.errors import LoadError
from clinqa.text.blocks import BLANK_LINE

_BLANK_LINES = BLANK_LINE
_ITEM = re.compile(r"(?:^|[ \t]{2,})-[ \t]+(?=\S)")
_LONG_GAP = re.compile(r"[ \t]{5,}")
_SPACE_QMARK = re.compile(r"\s+\?")
_MULTI_QMARK = re.compile(r"\?(\s*\?)+")


class NoAnsweredPairs(LoadError):
    """The file has no QA pair with answer text (e.g. answers removed for copyright).

    Still a LoadError for :func:`load`/``load_file`` callers; a directory walk reports it as
    a benign ``Skipped`` notice, since whole MedQuAD subsets are published this way.
    """


def _local(el: etree._Element) -> str:
    return el.tag.rsplit("}", 1)[-1].lower() if isinstance(el.tag, str) else ""


def _child(el: etree._Element, *names: str) -> etree._Element | None:
    return next((c for c in el if _local(c) in names), None)


def _desc(el: etree._Element, *names: str) -> list[etree._Element]:
    return [c for c in el.iter() if _local(c) in names]


def _text(el: etree._Element | None) -> str:
    return norm_ws("".join(el.itertext())) if el is not None else ""


def clean_question(question: str) -> str:
    """``"Who is at risk for X? ?"`` -> ``"Who is at risk for X?"`` (whitespace normalised)."""
    q = _SPACE_QMARK.sub("?", norm_ws(question))
    return _MULTI_QMARK.sub("?", q)


def answer_blocks(answer: str) -> list[Block]:
    """Split a MedQuAD answer into paragraph and list blocks.

    Blank lines separate paragraphs; inside a line, ``"-"`` preceded by two or more spaces
    (or at line start) opens a list item, and a run of five or more spaces after an item
    ends it. Lines of one paragraph are kept as lines (``\\n``), whitespace runs collapsed.
    """
    blocks: list[Block] = []

    def flush(prose: list[str]) -> None:
        text = "\n".join(p for p in prose if p)
        prose.clear()
        if text:
            blocks.append(Block(text=text))

    for para in _BLANK_LINES.split(answer.replace("\r\n", "\n").replace("\r", "\n")):
        prose: list[str] = []
        for line in para.split("\n"):
            pieces = _ITEM.split(line)
            lead = norm_ws(pieces[0])
            if lead:
                prose.append(lead)
            for item in pieces[1:]:
                head, *rest = _LONG_GAP.split(item, maxsplit=1)
                head = norm_ws(head)
                if head:
                    flush(prose)
                    blocks.append(Block(text=f"- {head}", kind="list"))
                tail = norm_ws(rest[0]) if rest else ""
                if tail:
                    prose.append(tail)
        flush(prose)
    return blocks


def load(path: Path) -> list[Document]:
    """Load one MedQuAD XML file as one Document.

    doc_id = ``"medquad:<source>_<file stem>"`` (the ``id`` attribute is not unique in
    CancerGov, so the file name is used, as in the MedQuAD-derived BEIR corpus ids);
    title = ``Focus``; source = ``"medquad:<source>"``; url = the ``url`` attribute;
    topics = synonyms, semantic group and category. Raises LoadError for unsafe or
    malformed XML, a root other than ``<Document>``/``<doc>``/``<DiseaseFile>``, and
    "no answered question-answer pairs".
    """
    root = parse_xml(path, read_bytes(path))
    if _local(root) not in MEDQUAD_ROOTS:
        raise LoadError(path, f"not a MedQuAD file (root element <{_local(root)}>, expected <Document>)")
    source = root.get("source") or root.get("corpus") or path.parent.name
    url = root.get("url") or ""
    focus = _text(_child(root, "focus", "doctitle-focus"))
    topics = str_list(
        [_text(s) for s in _desc(root, "synonym")]
        + [_text(s) for s in _desc(root, "semanticgroup")]
        + [_text(s) for s in _desc(root, "category")]
    )
    sections: list[Section] = []
    pairs = _desc(root, "qapair", "pair")
    for pair in pairs:
        question_el = _child(pair, "question")
        answer_el = _child(pair, "answer")
        answer = "".join(answer_el.itertext()) if answer_el is not None else ""
        if not answer.strip():
            continue
        question = clean_question(_text(question_el))
        qtype = norm_ws(question_el.get("qtype", "")) if question_el is not None else ""
        title = f"{question} ({qtype})" if question and qtype else (question or qtype)
        blocks = answer_blocks(answer)
        if blocks:
            sections.append(Section(title=title, blocks=blocks))
    if not sections:
        why = f"all {len(pairs)} answers are empty" if pairs else "the file has no QA pairs"
        raise NoAnsweredPairs(path, f"no answered question-answer pairs ({why})")
    return [
        Document(
            doc_id=f"medquad:{slug(source)}_{slug(path.stem)}",
            title=focus or sections[0].title,
            source=f"medquad:{source}",
            url=url,
            topics=topics,
            path=str(path),
            format="medquad",
            sections=sections,
        )
    ]
