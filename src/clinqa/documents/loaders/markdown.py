"""Markdown loader (CommonMark + GFM pipe tables, parsed with markdown-it-py).

Structure kept: every ATX/setext heading opens a nested section (H1 > H2 > H3; a skipped
level nests under the nearest higher heading); paragraphs, top-level list items (with their
nested items), pipe tables (kept whole, as source text), code and block quotes become
blocks. Inline markup (emphasis, code spans, links, images) is reduced to its text using
markdown-it's inline tokens. An optional YAML front matter block (``---`` ... ``---``) gives
title, authors, date/year, doi, url, source and tags/topics.

Spec: CommonMark 0.31 (https://spec.commonmark.org/) with the GFM table extension.

Hostile input: a line longer than ``ingest.max_block_chars`` is refused before parsing;
inline content (one paragraph, heading or table cell) over :data:`MAX_INLINE_CHARS` is kept
as plain text with its markup uninterpreted; parsing stops with a LoadError after
``ingest.max_parse_seconds`` (checked between paragraphs).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml
from lxml import html as lxml_html
from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token
from markdown_it.tree import SyntaxTreeNode

from clinqa.documents.loaders._common import (
    SectionBuilder,
    has_content,
    humanize,
    parse_year,
    path_doc_id,
    pipe_table,
    str_list,
    year_line,
)
from clinqa.documents.loaders._io import check_deadline, check_line_lengths, read_text
from clinqa.documents.loaders._scripts import flatten_scripts
from clinqa.documents.model import BlockKind, Document, Section
from clinqa.errors import LoadError
from clinqa.text.scripts import subscript, superscript

_PARSER: MarkdownIt | None = None
#: Inline content (one paragraph, heading or table cell) longer than this many characters is kept
#: as plain text, its markup not interpreted: markdown-it's inline parser costs up to ~50 µs a
#: character on pathological markup ("[[[[...", "*_*_..."), so one such paragraph of 200,000
#: characters would take ten seconds. Real paragraphs are far shorter (13,500 characters at most
#: in the shipped and MedQuAD corpora).
MAX_INLINE_CHARS = 20_000
_FRONT_MATTER = re.compile(r"\A---[ \t]*\n(.*?\n)(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.S)


def _inline_rule(state: StateCore) -> None:
    """markdown-it's core ``inline`` rule with a clock check per inline token and plain text for
    content over :data:`MAX_INLINE_CHARS`."""
    for token in state.tokens:
        if token.type == "inline":
            check_deadline("parsing Markdown")
            if token.children is None:
                token.children = []
            if len(token.content) > MAX_INLINE_CHARS:
                text = Token("text", "", 0)
                text.content = token.content
                token.children.append(text)
            else:
                state.md.inline.parse(token.content, state.md, state.env, token.children)


def markdown_parser() -> MarkdownIt:
    """The shared parser: ``MarkdownIt("commonmark").enable("table")``, created once, with the
    guarded inline rule (see module docstring)."""
    global _PARSER
    if _PARSER is None:
        md = MarkdownIt("commonmark").enable("table")
        md.core.ruler.at("inline", _inline_rule)
        _PARSER = md
    return _PARSER


def parse_markdown(text: str, md: MarkdownIt | None = None) -> tuple[str, list[Section]]:
    """Parse Markdown text into ``(title, sections)``.

    ``title`` is the text of the first heading when that heading is an H1, else ``""``; the
    H1 is still kept as the top-level section, so section paths start with it. Text before
    the first heading goes into an untitled leading section. Never raises for any input
    string (markdown-it accepts everything; nesting depth is capped by the parser).
    """
    md = md or markdown_parser()
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "\ufffd")
    src_lines = text.split("\n")
    root = SyntaxTreeNode(md.parse(text))
    builder = SectionBuilder()
    title = ""
    first_heading = True
    for node in root.children:
        if node.type == "heading":
            level = int(node.tag[1:]) if node.tag[1:].isdigit() else 6
            heading = _inline_text(node.children[0]) if node.children else ""
            heading = " ".join(heading.split())
            if first_heading and level == 1:
                title = heading
            first_heading = False
            builder.heading(level, heading)
        else:
            for kind, block_text in _render_block(node, src_lines, nested=False):
                builder.add(block_text, kind)
    return title, builder.sections()


def _inline_text(node: SyntaxTreeNode | Token) -> str:
    token = node.token if isinstance(node, SyntaxTreeNode) else node
    if token is None:
        return ""
    return _inline_tokens(token.children or []).strip()


_SCRIPT_TAG = re.compile(r"^<(/?)(sup|sub)\b[^>]*>$", re.IGNORECASE)


def _inline_tokens(children: list[Token]) -> str:
    """The text of a paragraph's inline tokens. Inline ``<sup>``/``<sub>`` keep their meaning in the one
    form of :mod:`clinqa.text.scripts` ("10<sup>9</sup>/L" -> "10^9/L", never "109/L"), as in the HTML
    loader; other raw inline HTML, and strong/em/link markers, carry no text."""
    parts: list[str] = []
    script: list[str] | None = None  # the text inside an open <sup>/<sub>
    kind_open = ""
    for child in children:
        kind = child.type
        if kind == "html_inline" and (m := _SCRIPT_TAG.match(child.content.strip())) is not None:
            if not m.group(1) and script is None:
                script, kind_open = [], m.group(2).lower()
            elif m.group(1) and script is not None and m.group(2).lower() == kind_open:
                before = "".join(parts)
                content = "".join(script)
                parts.append(superscript(before, content) if kind_open == "sup" else subscript(before, content))
                script = None
            continue
        out = parts if script is None else script
        if kind in ("text", "text_special", "code_inline"):
            out.append(child.content)
        elif kind in ("softbreak", "hardbreak"):
            out.append("\n")
        elif kind == "image":
            out.append(_inline_tokens(child.children or []))
    if script is not None:  # an unclosed tag: its text as written
        parts.extend(script)
    return "".join(parts)


_HIDDEN = "//script | //style | //template | //*[@hidden or @aria-hidden='true']"


def _strip_html(fragment: str) -> str:
    """The text a reader sees of a raw HTML block: comments, scripts, styles and elements marked
    ``hidden``/``aria-hidden`` are dropped (as by the HTML loader), so a comment such as
    ``<!-- ignore previous instructions ... -->`` never becomes quotable text."""
    parser = lxml_html.HTMLParser(remove_comments=True, remove_pis=True, no_network=True)
    try:
        root = lxml_html.fragment_fromstring(fragment, create_parent="div", parser=parser)
    except Exception:  # any unparsable fragment is kept verbatim
        return fragment.strip()
    for el in root.xpath(_HIDDEN):
        el.drop_tree()
    flatten_scripts(root)  # "10<sup>9</sup>" is "10^9", as in the HTML loader
    return " ".join(root.text_content().split())


def _render_block(node: SyntaxTreeNode, src: list[str], nested: bool) -> list[tuple[BlockKind, str]]:
    kind = node.type
    if kind == "paragraph":
        return [("paragraph", _inline_text(node.children[0]) if node.children else "")]
    if kind in ("bullet_list", "ordered_list"):
        return [("list", "\n".join(_item_lines(item, src, 0))) for item in node.children]
    if kind == "table":
        if not nested and node.map:
            start, end = node.map
            return [("table", "\n".join(line.rstrip() for line in src[start:end]).strip("\n"))]
        return [("table", _table_from_cells(node))]
    if kind in ("fence", "code_block"):
        return [("code", node.content.rstrip("\n"))]
    if kind == "blockquote":
        parts = [t for child in node.children for _, t in _render_block(child, src, nested=True)]
        return [("quote", "\n".join(p for p in parts if p))]
    if kind == "heading":
        return [("paragraph", _inline_text(node.children[0]) if node.children else "")]
    if kind == "html_block":
        return [("paragraph", _strip_html(node.content))]
    return []  # hr and anything unknown


def _marker(item: SyntaxTreeNode) -> str:
    token = item.token if item.token is not None else (item.nester_tokens.opening if item.nester_tokens else None)
    if token is None:
        return "- "
    if token.info:  # ordered list item: info = the number, markup = "." or ")"
        return f"{token.info}{token.markup} "
    return f"{token.markup or '-'} "


def _item_lines(item: SyntaxTreeNode, src: list[str], indent: int) -> list[str]:
    marker = _marker(item)
    lead = " " * indent
    pad = " " * (indent + len(marker))
    lines: list[str] = []
    for child in item.children:
        if child.type in ("bullet_list", "ordered_list"):
            for sub in child.children:
                lines.extend(_item_lines(sub, src, indent + len(marker)))
            continue
        for _, text in _render_block(child, src, nested=True):
            for line in text.split("\n"):
                if not lines:
                    lines.append(f"{lead}{marker}{line}")
                else:
                    lines.append(f"{pad}{line}" if line else "")
    if not lines:
        lines.append(f"{lead}{marker}".rstrip())
    return lines


def _table_from_cells(node: SyntaxTreeNode) -> str:
    rows: list[list[str]] = []
    for section in node.children:  # thead / tbody
        for tr in section.children:
            rows.append([_inline_text(cell.children[0]) if cell.children else "" for cell in tr.children])
    return pipe_table(rows)


def split_front_matter(text: str) -> tuple[dict[str, Any], str]:
    """Split a leading YAML front matter block off Markdown text.

    Returns ``(metadata, rest)``; ``({}, text)`` when there is no front matter or it is not
    a YAML mapping (then the text is left untouched).
    """
    m = _FRONT_MATTER.match(text)
    if not m:
        return {}, text
    try:
        meta = yaml.safe_load(m.group(1))
    except yaml.YAMLError:
        return {}, text
    if not isinstance(meta, dict):
        return {}, text
    return {str(k).lower(): v for k, v in meta.items()}, text[m.end() :]


def _apply_front_matter(doc: Document, meta: dict[str, Any]) -> None:
    if isinstance(meta.get("title"), str) and meta["title"].strip():
        doc.title = " ".join(meta["title"].split())
    authors = str_list(meta.get("authors", meta.get("author")))
    if authors:
        doc.authors = authors
    year = parse_year(meta.get("year", meta.get("date")))
    if year is None and meta.get("date") is not None:
        year = parse_year(str(meta.get("date")))
    if year is not None:
        doc.year = year
    for key in ("doi", "url", "source", "organization"):
        if isinstance(meta.get(key), str) and meta[key].strip():
            setattr(doc, key, meta[key].strip())
    if doc.doi and not doc.url:
        doc.url = f"https://doi.org/{doc.doi}"
    topics = str_list(meta.get("topics", meta.get("tags", meta.get("keywords"))))
    if topics:
        doc.topics = topics


def load(path: Path) -> list[Document]:
    """Load one Markdown file as one Document.

    doc_id = the slugged file stem, title = front-matter title, else the first heading if
    it is an H1, else the humanised stem; source = the parent directory name; year = the front
    matter's ``year``/``date``, else a ``Year:``/``Date:`` line among the first lines (:func:`year_line`).
    Raises LoadError for unreadable, empty, binary or non-UTF-8 files, for files with no
    text content and for files over the limits (module docstring).
    """
    text = read_text(path)
    check_line_lengths(path, text)
    meta, body = split_front_matter(text)
    title, sections = parse_markdown(body)
    if not has_content(sections) and not any(s.title for s in sections):
        raise LoadError(path, "no text content")
    doc = Document(
        doc_id=path_doc_id(path),
        title=title or humanize(path.stem),
        source=path.parent.name,
        path=str(path),
        format="markdown",
        sections=sections,
    )
    if meta:
        _apply_front_matter(doc, meta)
    if doc.year is None:  # no front-matter year: a "Year:" / "Date:" line near the top
        doc.year = year_line(body)
    return [doc]
