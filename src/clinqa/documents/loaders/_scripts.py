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


def _text_before(el: etree._Element) -> str:
    """The last :data:`_CONTEXT` characters of document text before ``el`` (text of ancestors and of
    earlier elements, in document order)."""
    nodes = el.xpath(f"preceding::text()[position() <= {_CONTEXT}]")
    out = ""
    for node in reversed(nodes):  # nearest first
        out = str(node) + out
        if len(out) >= _CONTEXT or out.strip():
            break
    return out[-_CONTEXT:]


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
    namespace) by its plain-text form, in document order so each one reads the text already written
    before it. Returns how many were replaced. A script nested in another goes with the outer one
    (its text is part of the outer's content). Never raises for well-formed trees.
    """
    found = [el for el in root.iter() if _local(el) in ("sup", "sub")]
    done: set[int] = set()
    n = 0
    for el in found:
        if any(id(a) in done for a in el.iterancestors()):
            continue
        done.add(id(el))
        content = "".join(el.itertext())
        before = _text_before(el)
        text = superscript(before, content) if _local(el) == "sup" else subscript(before, content)
        _replace_with_text(el, text)
        n += 1
    return n


def unicode_in_sections(sections: Iterable[Section]) -> None:
    """Apply :func:`clinqa.text.scripts.unicode_scripts` to every section title and block text, in
    place ("10⁹/L" -> "10^9/L", "m²" -> "m^2", "H₂O" -> "H2O")."""
    for top in sections:
        for _, section in top.walk():
            section.title = unicode_scripts(section.title)
            for block in section.blocks:
                block.text = unicode_scripts(block.text)
