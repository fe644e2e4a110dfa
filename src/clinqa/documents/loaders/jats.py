"""JATS XML loader (NISO Z39.96 Journal Article Tag Suite; PubMed Central ``.nxml``).

Front matter: ``article-title``, ``contrib[@contrib-type='author']`` names, ``pub-date``
year, ``journal-title`` (source), ``article-id`` pmid/pmcid/doi, ``kwd`` (topics). The
abstract becomes an "Abstract" section (structured abstracts keep their ``<sec>`` titles)
and ``Document.abstract``; the body's ``<sec>`` elements become nested sections with
``<p>``, ``<list>``, ``<table-wrap>`` (one table block), ``<disp-quote>``, ``<fig>``
captions and ``<preformat>``/``<code>`` blocks. Back matter (references, etc.) is skipped.

Superscripts and subscripts keep their meaning (issue 42): ``<sup>``/``<sub>`` (citation ``<xref>``
inside them included) and Unicode super/subscript characters are written in the plain-text forms of
:mod:`clinqa.text.scripts` (``10<sup>9</sup>/L`` -> ``10^9/L``, ``CO<sub>2</sub>`` -> ``CO2``,
``trial<sup>12</sup>`` -> ``trial[12]``) before any text is read, so title, abstract and body agree.

Spec: https://jats.nlm.nih.gov/archiving/tag-library/1.3/
"""

from __future__ import annotations

from pathlib import Path

from lxml import etree

from clinqa.documents.loaders._common import norm_ws, parse_year, path_doc_id, pipe_table, str_list
from clinqa.documents.loaders._io import parse_xml, read_bytes
from clinqa.documents.loaders._scripts import flatten_scripts, unicode_in_sections
from clinqa.documents.model import Block, BlockKind, Document, Section
from clinqa.errors import LoadError
from clinqa.text.scripts import unicode_scripts

_BLOCK_CHILDREN = {
    "list",
    "table-wrap",
    "disp-quote",
    "fig",
    "preformat",
    "code",
    "def-list",
    "boxed-text",
    "table-wrap-group",
    "fig-group",
    "disp-formula-group",
}
_SKIP_ABSTRACT_TYPES = {"graphical", "teaser", "toc", "web-summary"}


def _local(el: etree._Element) -> str:
    tag = el.tag
    if not isinstance(tag, str):
        return ""
    return tag.rsplit("}", 1)[-1]


def _children(el: etree._Element, name: str) -> list[etree._Element]:
    return [c for c in el if _local(c) == name]


def _first(el: etree._Element | None, *path: str) -> etree._Element | None:
    cur = el
    for name in path:
        if cur is None:
            return None
        cur = next((c for c in cur.iter() if c is not cur and _local(c) == name), None)
    return cur


def _all(el: etree._Element, name: str) -> list[etree._Element]:
    return [c for c in el.iter() if _local(c) == name]


def _text(el: etree._Element | None) -> str:
    return norm_ws("".join(el.itertext())) if el is not None else ""


def _inline_text(el: etree._Element) -> str:
    """Text of ``el`` without its block-level children (lists/tables nested in a ``<p>``)."""
    parts = [el.text or ""]
    for child in el:
        if _local(child) not in _BLOCK_CHILDREN:
            parts.append("".join(child.itertext()))
        parts.append(child.tail or "")
    return norm_ws("".join(parts))


def _list_lines(lst: etree._Element, indent: int) -> list[list[str]]:
    ordered = (lst.get("list-type") or "").startswith(("order", "alpha", "roman"))
    items: list[list[str]] = []
    for i, item in enumerate(_children(lst, "list-item")):
        label = next(iter(_children(item, "label")), None)
        marker = f"{_text(label)} " if label is not None else (f"{i + 1}. " if ordered else "- ")
        lines: list[str] = []
        for child in item:
            name = _local(child)
            if name == "label":
                continue
            if name == "list":
                for sub in _list_lines(child, indent + len(marker)):
                    lines.extend(sub)
                continue
            text = _inline_text(child) if name == "p" else _text(child)
            if not text:
                continue
            if not lines:
                lines.append(" " * indent + marker + text)
            else:
                lines.append(" " * (indent + len(marker)) + text)
            if name == "p":
                for nested in child:
                    if _local(nested) == "list":
                        for sub in _list_lines(nested, indent + len(marker)):
                            lines.extend(sub)
        if not lines:
            lines.append((" " * indent + marker).rstrip())
        items.append(lines)
    return items


def _table_wrap_text(wrap: etree._Element) -> str:
    head = " ".join(t for t in (_text(_first(wrap, "label")), _text(_first(wrap, "caption"))) if t)
    rows: list[list[str]] = []
    for table in _all(wrap, "table"):
        for tr in _all(table, "tr"):
            rows.append([_text(c) for c in tr if _local(c) in ("td", "th")])
    body = pipe_table(rows)
    foot = _text(_first(wrap, "table-wrap-foot"))
    return "\n".join(t for t in (head, body, foot) if t)


def _blocks(el: etree._Element, out: list[Block]) -> None:
    """Append the blocks for one body-level element (``p``, ``list``, ``table-wrap``...)."""
    name = _local(el)
    kind: BlockKind = "paragraph"
    if name == "p":
        text = _inline_text(el)
        if text:
            out.append(Block(text=text))
        for child in el:
            if _local(child) in _BLOCK_CHILDREN:
                _blocks(child, out)
        return
    if name == "list":
        for lines in _list_lines(el, 0):
            out.append(Block(text="\n".join(lines), kind="list"))
        return
    if name == "def-list":
        for item in _children(el, "def-item"):
            term = _text(_first(item, "term"))
            defn = _text(_first(item, "def"))
            out.append(Block(text=f"- {term}: {defn}" if term else f"- {defn}", kind="list"))
        return
    if name == "table-wrap":
        text = _table_wrap_text(el)
        kind = "table"
    elif name in ("table-wrap-group", "fig-group", "boxed-text"):
        for child in el:
            if _local(child) in ("p", "list", "table-wrap", "fig", "disp-quote", "sec", "def-list"):
                if _local(child) == "sec":
                    for sub in child:
                        _blocks(sub, out)
                else:
                    _blocks(child, out)
        return
    elif name == "fig":
        text = " ".join(t for t in (_text(_first(el, "label")), _text(_first(el, "caption"))) if t)
    elif name == "disp-quote":
        text = "\n".join(_text(p) for p in _children(el, "p")) or _text(el)
        kind = "quote"
    elif name in ("preformat", "code"):
        text = "".join(el.itertext()).strip("\n")
        kind = "code"
    elif name in ("disp-formula", "statement", "speech", "verse-group"):
        text = _text(el)
    else:
        return
    if text.strip():
        out.append(Block(text=text, kind=kind))


def _section(sec: etree._Element) -> Section:
    label = _text(next(iter(_children(sec, "label")), None))
    title = _text(next(iter(_children(sec, "title")), None))
    section = Section(title=" ".join(t for t in (label, title) if t))
    for child in sec:
        name = _local(child)
        if name in ("title", "label", "sec-meta"):
            continue
        if name == "sec":
            section.children.append(_section(child))
        else:
            _blocks(child, section.blocks)
    return section


def _abstract(abstract: etree._Element) -> tuple[Section, str]:
    title = _text(next(iter(_children(abstract, "title")), None)) or "Abstract"
    section = Section(title=title)
    plain: list[str] = []
    for child in abstract:
        name = _local(child)
        if name == "title":
            continue
        if name == "sec":
            sub = _section(child)
            section.children.append(sub)
            body = " ".join(b.text for _, s in sub.walk() for b in s.blocks)
            plain.append(f"{sub.title}: {body}" if sub.title else body)
        else:
            before = len(section.blocks)
            _blocks(child, section.blocks)
            plain.extend(b.text for b in section.blocks[before:])
    return section, "\n\n".join(p for p in plain if p)


def _authors(meta: etree._Element) -> list[str]:
    out: list[str] = []
    for contrib in _all(meta, "contrib"):
        if contrib.get("contrib-type", "author") != "author":
            continue
        name = _first(contrib, "name")
        if name is not None:
            given = _text(_first(name, "given-names"))
            surname = _text(_first(name, "surname"))
            full = " ".join(t for t in (given, surname) if t)
        else:
            full = _text(_first(contrib, "collab")) or _text(_first(contrib, "string-name"))
        if full and full not in out:
            out.append(full)
    return out


def _year(meta: etree._Element) -> int | None:
    dates = _all(meta, "pub-date")
    preferred = ("epub", "ppub", "pub", "collection", "epub-ppub")

    def rank(d: etree._Element) -> int:
        kind = d.get("pub-type") or d.get("date-type") or ""
        return preferred.index(kind) if kind in preferred else len(preferred)

    for date_el in sorted(dates, key=rank):
        year = parse_year(_text(_first(date_el, "year")))
        if year:
            return year
    return None


def load(path: Path) -> list[Document]:
    """Load one JATS ``<article>`` XML file as one Document.

    doc_id: ``"pubmed:<pmid>"``, else ``"pmc:<PMCID>"``, else ``"doi:<doi>"``, else the
    slugged stem. url = ``https://doi.org/<doi>`` when a DOI is present. Raises LoadError for
    unsafe XML (entity declarations), XML that is not well-formed, a root element other than
    ``<article>``, and articles with neither title nor text.
    """
    root = parse_xml(path, read_bytes(path))
    if _local(root) != "article":
        raise LoadError(path, f"not a JATS article (root element <{_local(root) or root.tag}>, expected <article>)")
    flatten_scripts(root)
    front = next(iter(_children(root, "front")), None)
    meta = _first(front, "article-meta") if front is not None else None
    journal = _first(front, "journal-meta") if front is not None else None

    ids: dict[str, str] = {}
    if meta is not None:
        for aid in _children(meta, "article-id"):
            kind = (aid.get("pub-id-type") or "").lower()
            value = _text(aid)
            if value and kind not in ids:
                ids[kind] = value
    pmid = ids.get("pmid", "")
    pmc = ids.get("pmcid") or ids.get("pmc") or ids.get("pmcaid") or ""
    if pmc and not pmc.upper().startswith("PMC"):
        pmc = f"PMC{pmc}"
    doi = ids.get("doi", "")
    if pmid:
        doc_id = f"pubmed:{pmid}"
    elif pmc:
        doc_id = f"pmc:{pmc}"
    elif doi:
        doc_id = f"doi:{doi}"
    else:
        doc_id = path_doc_id(path)

    title = _text(_first(meta, "title-group", "article-title")) if meta is not None else ""
    source = ""
    if journal is not None:
        source = _text(_first(journal, "journal-title")) or _text(_first(journal, "journal-id"))
    sections: list[Section] = []
    abstract_text = ""
    has_abstract = False
    if meta is not None:
        for abstract in _children(meta, "abstract"):
            if (abstract.get("abstract-type") or "") in _SKIP_ABSTRACT_TYPES:
                continue
            section, abstract_text = _abstract(abstract)
            sections.append(section)
            has_abstract = True
            break
    body = next(iter(_children(root, "body")), None)
    if body is not None:
        loose = Section()
        for child in body:
            if _local(child) == "sec":
                sections.append(_section(child))
            else:
                _blocks(child, loose.blocks)
        if loose.blocks:
            sections.insert(1 if has_abstract else 0, loose)
    unicode_in_sections(sections)
    title, abstract_text = unicode_scripts(title), unicode_scripts(abstract_text)
    if not title and not any(s.blocks or s.children for s in sections):
        raise LoadError(path, "no title, abstract or body text in JATS article")
    url = f"https://doi.org/{doi}" if doi else (f"https://pmc.ncbi.nlm.nih.gov/articles/{pmc}/" if pmc else "")
    topics = str_list([_text(k) for k in _all(meta, "kwd")]) if meta is not None else []
    return [
        Document(
            doc_id=doc_id,
            title=title or path.stem,
            authors=_authors(meta) if meta is not None else [],
            year=_year(meta) if meta is not None else None,
            source=source or path.parent.name,
            url=url,
            doi=doi,
            topics=topics,
            abstract=abstract_text,
            path=str(path),
            format="jats",
            sections=sections,
        )
    ]
