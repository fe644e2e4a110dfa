"""Superscripts and subscripts in the loaders: markup (``<sup>``/``<sub>`` of HTML and JATS) and Unicode
super/subscript characters written as plain text in the one form of :mod:`clinqa.text.scripts`
("40 x 10<sup>9</sup>/L" -> "40 x 10^9/L", "CO<sub>2</sub>" -> "CO2", "trial<sup>12</sup>" ->
"trial[12]"; issue 42). The Word and PDF loaders call :func:`clinqa.text.scripts.superscript` and
:func:`~clinqa.text.scripts.subscript` on their runs and raised/lowered words themselves.
"""

from __future__ import annotations

from collections.abc import Iterable

from lxml import etree

from clinqa.documents.model import Section
from clinqa.text.scripts import subscript, superscript, unicode_scripts

#: characters of text before a superscript that the rules read (the number or word it follows)
_CONTEXT = 40


def _local(el: etree._Element) -> str:
    tag = el.tag
    return tag.rsplit("}", 1)[-1].lower() if isinstance(tag, str) else ""


def _replace_with_text(el: etree._Element, text: str) -> None:
    """Remove ``el`` from its tree, its place taken by ``text`` followed by its tail."""
    parent = el.getparent()
    if parent is None:
        return
    joined = text + (el.tail or "")
    prev = el.getprevious()
    if prev is not None:
        prev.tail = (prev.tail or "") + joined
    else:
        parent.text = (parent.text or "") + joined
    parent.remove(el)


def flatten_scripts(root: etree._Element) -> int:
    """Replace every ``sup`` and ``sub`` element under ``root`` (HTML, or JATS with or without a
    namespace) by its plain-text form, in document order, each one reading the last :data:`_CONTEXT`
    characters of text written before it (its own replacements included): one pass over the tree,
    linear in its size. Returns how many were replaced. A script nested in another goes with the outer
    one (its text is part of the outer's content). Comments and processing instructions add no text.
    Never raises for trees lxml parsed (their depth is limited).
    """
    tail = ""
    n = 0

    def walk(el: etree._Element) -> None:
        nonlocal tail, n
        if el.text and isinstance(el.tag, str):
            tail = (tail + el.text)[-_CONTEXT:]
        for child in list(el):
            name = _local(child)
            if name in ("sup", "sub"):
                content = "".join(child.itertext())
                text = superscript(tail, content) if name == "sup" else subscript(tail, content)
                after = child.tail or ""
                _replace_with_text(child, text)
                tail = (tail + text + after)[-_CONTEXT:]
                n += 1
                continue
            if name:
                walk(child)
            if child.tail:
                tail = (tail + child.tail)[-_CONTEXT:]

    walk(root)
    return n


def unicode_in_sections(sections: Iterable[Section]) -> None:
    """Apply :func:`clinqa.text.scripts.unicode_scripts` to every section title and block text, in
    place ("10⁹/L" -> "10^9/L", "m²" -> "m^2", "H₂O" -> "H2O")."""
    for top in sections:
        for _, section in top.walk():
            section.title = unicode_scripts(section.title)
            for block in section.blocks:
                block.text = unicode_scripts(block.text)
