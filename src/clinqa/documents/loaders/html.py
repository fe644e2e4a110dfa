"""HTML loader (lxml.html, libxml2's forgiving HTML parser).

Page chrome is dropped (script, style, nav, header, footer, aside, form, noscript and
similar), and so is text a browser would not show: elements marked ``hidden`` or
``aria-hidden="true"`` and elements hidden by CSS (``display:none``, white or background-coloured
text, 0-2 px fonts, off-screen positioning ...; :mod:`clinqa.documents.loaders._hidden`).
``h1``-``h6`` build the section tree; ``p``, ``li``, ``pre``, ``blockquote`` become blocks; a
``table`` becomes one table block rendered as a Markdown pipe table. Metadata comes from
Highwire/Dublin Core ``<meta>`` tags (``citation_title``, ``citation_author``,
``citation_date``/``citation_publication_date``, ``dc.date``, ``citation_doi``,
``citation_journal_title``), ``<title>`` and the first ``h1``.

Superscripts and subscripts keep their meaning (issue 42): ``<sup>``/``<sub>`` and the Unicode
super/subscript characters are written in the plain-text forms of :mod:`clinqa.text.scripts`
(``40 x 10<sup>9</sup>/L`` -> ``40 x 10^9/L``, never "109/L"; ``CO<sub>2</sub>`` -> ``CO2``;
``trial<sup>12</sup>`` -> ``trial[12]``), after hidden text is dropped
(:mod:`clinqa.documents.loaders._scripts`).
"""

from __future__ import annotations

import re
from pathlib import Path

from lxml import etree
from lxml import html as lxml_html

from clinqa.documents.loaders._common import (
    SectionBuilder,
    has_content,
    norm_ws,
    parse_year,
    path_doc_id,
    pipe_table,
)
from clinqa.documents.loaders._hidden import hidden_elements
from clinqa.documents.loaders._io import decode_text, read_bytes, xml_limit_reason
from clinqa.documents.loaders._scripts import flatten_scripts, unicode_in_sections
from clinqa.documents.model import Document
from clinqa.errors import LoadError
from clinqa.text.scripts import unicode_scripts

_DROP = (
    "script",
    "style",
    "nav",
    "header",
    "footer",
    "aside",
    "form",
    "noscript",
    "template",
    "iframe",
    "svg",
    "math",
    "button",
    "select",
    "textarea",
    "object",
    "embed",
    "canvas",
    "head",
)
_HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
_CONTAINERS = {
    "html",
    "body",
    "div",
    "section",
    "article",
    "main",
    "center",
    "details",
    "summary",
    "figure",
    "figcaption",
    "address",
    "fieldset",
    "dd",
    "dt",
    "caption",
    "hgroup",
}
_BLOCK_TAGS = (
    set(_HEADINGS)
    | _CONTAINERS
    | {
        "p",
        "ul",
        "ol",
        "li",
        "pre",
        "blockquote",
        "table",
        "dl",
        "hr",
    }
)
_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.I)
_XML_DECL = re.compile(r"\A\s*<\?xml[^>]*\?>")


def _decode(path: Path, data: bytes) -> str:
    try:
        return decode_text(path, data)
    except LoadError as err:
        if not err.reason.startswith("invalid UTF-8"):
            raise
        m = _CHARSET.search(data[:4096])
        if m is None:
            raise
        charset = m.group(1).decode("ascii", "replace").lower()
        if charset in ("utf-8", "utf8"):
            raise
        try:
            return data.decode(charset)
        except (LookupError, UnicodeDecodeError):
            raise err from None


def _tag(el: etree._Element) -> str:
    return el.tag.lower() if isinstance(el.tag, str) else ""


def _text(el: etree._Element) -> str:
    return norm_ws(el.text_content())


class _Walker:
    def __init__(self) -> None:
        self.builder = SectionBuilder()
        self.buf: list[str] = []

    def flush(self) -> None:
        text = norm_ws("".join(self.buf))
        self.buf = []
        if text:
            self.builder.add(text)

    def container(self, el: etree._Element) -> None:
        if el.text:
            self.buf.append(el.text)
        for child in el:
            tag = _tag(child)
            if not tag:
                pass
            elif tag in _HEADINGS:
                self.flush()
                self.builder.heading(_HEADINGS[tag], _text(child))
            elif tag == "p":
                self.flush()
                if any(_tag(d) in _BLOCK_TAGS for d in child.iterdescendants()):
                    self.container(child)
                    self.flush()
                else:
                    self.builder.add(_text(child))
            elif tag in ("ul", "ol"):
                self.flush()
                for item in _list_items(child):
                    self.builder.add("\n".join(item), "list")
            elif tag == "li":
                self.flush()
                self.builder.add("\n".join(_li_lines(child, "- ", 0)), "list")
            elif tag == "dl":
                self.flush()
                for line in _dl_lines(child):
                    self.builder.add(line, "list")
            elif tag == "pre":
                self.flush()
                self.builder.add(child.text_content().strip("\n"), "code")
            elif tag == "blockquote":
                self.flush()
                self.builder.add(_quote_text(child), "quote")
            elif tag == "table":
                self.flush()
                self.builder.add(_table_text(child), "table")
            elif tag == "hr":
                self.flush()
            elif tag == "br":
                self.buf.append(" ")
            elif tag in _CONTAINERS or any(_tag(d) in _BLOCK_TAGS for d in child.iterdescendants()):
                self.flush()
                self.container(child)
                self.flush()
            else:
                self.buf.append(child.text_content())
            if child.tail:
                self.buf.append(child.tail)


def _own_text(li: etree._Element) -> str:
    parts = [li.text or ""]
    for child in li:
        if _tag(child) not in ("ul", "ol"):
            parts.append(child.text_content() if _tag(child) else "")
        parts.append(child.tail or "")
    return norm_ws(" ".join(parts))


def _list_items(lst: etree._Element, indent: int = 0) -> list[list[str]]:
    ordered = _tag(lst) == "ol"
    try:
        start = int(lst.get("start", "1"))
    except ValueError:
        start = 1
    items: list[list[str]] = []
    for i, li in enumerate(c for c in lst if _tag(c) == "li"):
        marker = f"{start + i}. " if ordered else "- "
        items.append(_li_lines(li, marker, indent))
    return items


def _li_lines(li: etree._Element, marker: str, indent: int) -> list[str]:
    lines = [" " * indent + marker + _own_text(li)]
    for child in li:
        if _tag(child) in ("ul", "ol"):
            for sub in _list_items(child, indent + len(marker)):
                lines.extend(sub)
    return lines


def _dl_lines(dl: etree._Element) -> list[str]:
    out: list[str] = []
    term = ""
    for child in dl:
        tag = _tag(child)
        if tag == "dt":
            if term:
                out.append(f"- {term}")
            term = _text(child)
        elif tag == "dd":
            out.append(f"- {term}: {_text(child)}" if term else f"- {_text(child)}")
            term = ""
    if term:
        out.append(f"- {term}")
    return out


def _quote_text(el: etree._Element) -> str:
    paras = [_text(p) for p in el.iter("p")]
    paras = [p for p in paras if p]
    return "\n".join(paras) if paras else _text(el)


def _table_text(table: etree._Element) -> str:
    rows: list[list[str]] = []
    for tr in table.iter("tr"):
        owner = next(tr.iterancestors("table"), None)
        if owner is not table:
            continue
        rows.append([_text(c) for c in tr if _tag(c) in ("td", "th")])
    text = pipe_table(rows)
    caption = table.find("caption")
    if caption is not None and _text(caption):
        text = f"{_text(caption)}\n{text}" if text else _text(caption)
    return text


def _metas(root: etree._Element) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for meta in root.iter("meta"):
        name = (meta.get("name") or meta.get("property") or "").strip().lower()
        content = norm_ws(meta.get("content") or "")
        if name and content:
            out.setdefault(name, []).append(content)
    return out


def load(path: Path) -> list[Document]:
    """Load one HTML file as one Document.

    Title: ``citation_title``/``dc.title`` meta, else ``<title>``, else the first ``h1``.
    Authors from ``citation_author`` (or ``dc.creator``), year from ``citation_date``,
    ``citation_publication_date``, ``dc.date``. doc_id = the slugged stem; source =
    ``citation_journal_title``, else the publisher (``citation_publisher``, else ``DC.publisher``; also the
    organization), else the parent directory name; a registry sidecar's organization overrides it. The text
    must be UTF-8 or in the charset its ``<meta charset>`` declares. Raises LoadError for unreadable, empty,
    binary or undecodable files, pages with no text, and pages past libxml2's limits (nested
    more than 256 elements deep, a text run over 10 MB).
    """
    text = _XML_DECL.sub("", _decode(path, read_bytes(path)))
    if not text.strip():
        raise LoadError(path, "empty file (only whitespace)")
    parser = lxml_html.HTMLParser(remove_comments=True, remove_pis=True, no_network=True)
    try:
        root = lxml_html.document_fromstring(text, parser=parser)
    except (etree.ParserError, ValueError) as exc:
        raise LoadError(path, f"could not parse HTML: {norm_ws(str(exc)) or 'no content'}") from None
    for error in parser.error_log:  # libxml2 stops at its limits and returns what it had, often nothing
        limit = xml_limit_reason(error.message) if error.type_name == "ERR_RESOURCE_LIMIT" else None
        if limit:
            raise LoadError(path, f"HTML {limit}")
    metas = _metas(root)
    title_el = root.find(".//title")
    first_h1 = next(root.iter("h1"), None)
    title = ""
    for key in ("citation_title", "dc.title"):
        if metas.get(key):
            title = metas[key][0]
            break
    if not title and title_el is not None:
        title = _text(title_el)
    authors = metas.get("citation_author") or metas.get("dc.creator") or []
    year = None
    for key in (
        "citation_publication_date",
        "citation_date",
        "dc.date",
        "citation_online_date",
        "article:published_time",
    ):
        for value in metas.get(key, []):
            year = parse_year(value)
            if year:
                break
        if year:
            break
    doi = (metas.get("citation_doi") or metas.get("dc.identifier") or [""])[0]
    doi = re.sub(r"^(doi:|https?://(dx\.)?doi\.org/)", "", doi, flags=re.I)
    if not doi.startswith("10."):
        doi = ""
    url = ""
    for link in root.iter("link"):
        if (link.get("rel") or "").lower() == "canonical" and link.get("href"):
            url = link.get("href", "")
            break
    if not url and doi:
        url = f"https://doi.org/{doi}"
    publisher = (metas.get("citation_publisher") or metas.get("dc.publisher") or [""])[0]
    source = (metas.get("citation_journal_title") or [""])[0] or publisher or path.parent.name

    for el, _why in hidden_elements(root):  # before <style> goes: what a browser would not show is not text
        if el.getparent() is not None:
            el.drop_tree()
    for el in list(root.iter(*_DROP)):
        if el.getparent() is not None:
            el.drop_tree()
    for el in list(root.xpath("//*[@role='navigation' or @aria-hidden='true' or @hidden]")):
        if el.getparent() is not None:
            el.drop_tree()
    flatten_scripts(root)
    if not title and first_h1 is not None:  # read after flatten_scripts: "10^9", not "109"
        flatten_scripts(first_h1)  # in case it was dropped with page chrome (a <header>)
        title = _text(first_h1)
    body = root.find("body")
    walker = _Walker()
    walker.container(body if body is not None else root)
    walker.flush()
    sections = walker.builder.sections()
    unicode_in_sections(sections)
    if not has_content(sections):
        raise LoadError(path, "no text content")
    return [
        Document(
            doc_id=path_doc_id(path),
            title=unicode_scripts(title) or path.stem,
            authors=authors,
            year=year,
            source=source,
            organization=publisher,
            url=url,
            doi=doi,
            path=str(path),
            format="html",
            sections=sections,
        )
    ]
