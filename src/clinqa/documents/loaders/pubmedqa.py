"""PubMedQA JSON loader (``ori_pqal.json`` / ``ori_pqaa.json`` / ``ori_pqau.json``).

Shape (github.com/pubmedqa/pubmedqa, Jin et al., EMNLP 2019): one JSON object mapping PMID
-> record ``{"QUESTION", "CONTEXTS": [str], "LABELS": [str], "MESHES": [str], "YEAR",
"LONG_ANSWER", "final_decision", "reasoning_required_pred", "reasoning_free_pred"}``.
Only CONTEXTS is required (held-out test records carry no QUESTION or LONG_ANSWER).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from clinqa.documents.loaders._common import norm_ws, parse_year, str_list
from clinqa.documents.loaders._io import parse_json, read_text
from clinqa.documents.model import Block, Document, Section
from clinqa.errors import LoadError

_UNLABELLED = {"", "UNLABELLED", "UNLABELED", "NONE", "NULL"}


def _shape_error(path: Path, detail: str) -> LoadError:
    return LoadError(path, f"not PubMedQA JSON: {detail}")


def _record(path: Path, pmid: str, rec: Any) -> Document:
    if not isinstance(rec, dict):
        raise _shape_error(path, f"record {pmid!r} is a {type(rec).__name__}, expected an object")
    contexts = rec.get("CONTEXTS")
    if not isinstance(contexts, list) or not all(isinstance(c, str) for c in contexts):
        raise _shape_error(path, f"record {pmid!r}: CONTEXTS must be a list of strings")
    labels = rec.get("LABELS") or []
    if not isinstance(labels, list):
        raise _shape_error(path, f"record {pmid!r}: LABELS must be a list")
    sections: list[Section] = []
    for i, context in enumerate(contexts):
        text = context.strip()
        if not text:
            continue
        label = norm_ws(str(labels[i])) if i < len(labels) and labels[i] is not None else ""
        label = "" if label.upper() in _UNLABELLED else label
        if sections and sections[-1].title == label and label:
            sections[-1].blocks.append(Block(text=text))
        else:
            sections.append(Section(title=label, blocks=[Block(text=text)]))
    long_answer = rec.get("LONG_ANSWER")
    if isinstance(long_answer, str) and long_answer.strip():
        sections.append(Section(title="CONCLUSIONS", blocks=[Block(text=long_answer.strip())]))
    if not sections:
        raise _shape_error(path, f"record {pmid!r} has no context text")
    question = rec.get("QUESTION")
    title = norm_ws(question) if isinstance(question, str) and question.strip() else f"PubMed {pmid}"
    return Document(
        doc_id=f"pubmed:{pmid}",
        title=title,
        year=parse_year(rec.get("YEAR")),
        source="pubmed",
        url=f"https://pubmed.ncbi.nlm.nih.gov/{pmid}/",
        topics=str_list(rec.get("MESHES")),
        abstract="\n\n".join(c.strip() for c in contexts if c.strip()),
        path=str(path),
        format="pubmedqa",
        sections=sections,
    )


def load(path: Path) -> list[Document]:
    """Load a PubMedQA JSON file: one Document per PMID, in file order.

    doc_id = ``"pubmed:<pmid>"``, title = QUESTION (``"PubMed <pmid>"`` when absent: the
    source has no article titles), year = YEAR, topics = MESHES, one section per context
    titled by its LABEL (consecutive contexts with the same label share a section), a
    "CONCLUSIONS" section for LONG_ANSWER, abstract = the contexts joined. Raises LoadError
    "invalid JSON at line L column C: ..." and "not PubMedQA JSON: ..." (wrong shape).
    """
    data = parse_json(path, read_text(path))
    if not isinstance(data, dict):
        raise _shape_error(path, f"expected an object mapping PMID -> record, got {type(data).__name__}")
    if not data:
        raise _shape_error(path, "the object is empty (no records)")
    docs: list[Document] = []
    for pmid, rec in data.items():
        key = str(pmid).strip()
        if not key.isdigit():
            raise _shape_error(path, f"key {key[:40]!r} is not a PMID (expected digits)")
        docs.append(_record(path, key, rec))
    return docs
