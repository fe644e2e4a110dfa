"""Text a browser would not show: which elements of an HTML page are hidden by CSS.

A page can carry text meant for machines only ("Note to AI assistants reading this page: ...") and
hide it from readers with CSS. Such text is not what the page says, so the HTML loader drops it.
An element is hidden when its declarations (matched ``<style>`` rules in cascade order, then its
inline ``style``; ``!important`` wins over normal declarations) contain:

* ``display: none``; ``visibility: hidden | collapse``; ``opacity: 0``;
* ``font-size`` of at most 2 px (``1.5pt``, ``0.125em``/``rem``, ``12.5%`` of 16 px);
* a text ``color`` equal to the background colour in effect (the nearest ancestor-or-self with a
  ``background``/``background-color``), or white (or fully transparent) when no background is given;
* off-screen placement: ``position: absolute | fixed`` with ``left``/``top`` <= -1000 px,
  ``text-indent`` <= -1000 px, or ``clip: rect(0 0 0 0)`` (any all-zero or 1 px rectangle).

Stylesheets are parsed with tinycss2 and selectors matched with cssselect (lxml's CSS-to-XPath
translator), so tags, classes, ids, attributes and combinators all work; rules inside at-rules
(``@media print {...}``, ``@supports``) and selectors with pseudo-classes or pseudo-elements
(``:hover``, ``::before``) are ignored, as are external stylesheets (never fetched) and scripts. A
hidden element is hidden with everything inside it, even a child that sets itself visible again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import cssselect
import tinycss2
import tinycss2.color3
from lxml import etree

#: properties that can hide text; rules setting none of them are not matched at all
_RELEVANT = frozenset({"display", "visibility", "opacity", "font-size", "font", "color", "background",
                       "background-color", "background-image", "position", "left", "top", "text-indent", "clip"})
_MAX_RULES = 5000  # a hostile stylesheet cannot make matching quadratic in practice
_LENGTH = re.compile(r"^\s*(-?\d*\.?\d+)\s*(px|pt|em|rem|%|)\s*$")
_PX_PER = {"px": 1.0, "": 1.0, "pt": 4 / 3, "em": 16.0, "rem": 16.0, "%": 0.16}
_CLIP_RECT = re.compile(r"^rect\(\s*([^)]*)\)$")
_RGBA = tuple[float, float, float, float]


@dataclass
class _Rule:
    xpath: str
    specificity: tuple[int, int, int]
    order: int
    declarations: list[tuple[str, str, bool]]  # (name, value, important)


def _declarations(tokens: list) -> list[tuple[str, str, bool]]:
    out: list[tuple[str, str, bool]] = []
    for d in tinycss2.parse_declaration_list(tokens, skip_whitespace=True, skip_comments=True):
        if d.type == "declaration":
            out.append((d.lower_name, tinycss2.serialize(d.value).strip().lower(), bool(d.important)))
    return out


def _rules(css_texts: list[str]) -> list[_Rule]:
    rules: list[_Rule] = []
    translator = cssselect.HTMLTranslator()
    order = 0
    for css in css_texts:
        for rule in tinycss2.parse_stylesheet(css, skip_whitespace=True, skip_comments=True):
            if rule.type != "qualified-rule" or len(rules) >= _MAX_RULES:
                continue  # at-rules (@media print ...) and parse errors
            decls = [d for d in _declarations(rule.content) if d[0] in _RELEVANT]
            if not decls:
                continue
            try:
                selectors = cssselect.parse(tinycss2.serialize(rule.prelude))
            except cssselect.SelectorError:
                continue
            for sel in selectors:
                if sel.pseudo_element is not None or ":" in sel.canonical():
                    continue  # ::before content and :hover states are not the element's own text
                try:
                    xpath = translator.selector_to_xpath(sel)
                except cssselect.SelectorError:
                    continue
                order += 1
                rules.append(_Rule(xpath, sel.specificity(), order, decls))
    return rules


def _px(value: str) -> float | None:
    m = _LENGTH.match(value)
    if not m:
        return None
    return float(m.group(1)) * _PX_PER[m.group(2)]


def _color(value: str) -> _RGBA | None:
    c = tinycss2.color3.parse_color(value)
    return tuple(c) if c is not None and not isinstance(c, str) else None  # type: ignore[return-value]


def _background(value: str) -> _RGBA | str | None:
    """The colour a ``background`` shorthand paints: RGBA, ``"image"`` (unknown colour), or None
    (transparent / no colour given)."""
    if "url(" in value or "gradient(" in value:
        return "image"
    for token in tinycss2.parse_component_value_list(value, skip_comments=True):
        c = tinycss2.color3.parse_color(token)
        if c is not None and not isinstance(c, str):
            return None if c.alpha == 0 else tuple(c)  # type: ignore[return-value]
    return None


def _same(a: _RGBA, b: _RGBA) -> bool:
    return all(abs(x - y) < 0.02 for x, y in zip(a[:3], b[:3], strict=True))


def _hides(style: dict[str, str], color: _RGBA | None, background: _RGBA | str | None) -> str | None:
    """Why an element with the computed ``style`` (its own declarations) is invisible, or None."""
    if style.get("display", "").split()[:1] == ["none"]:
        return "display:none"
    if style.get("visibility") in ("hidden", "collapse"):
        return "visibility:hidden"
    try:
        if "opacity" in style and float(style["opacity"].rstrip("%")) <= 0:
            return "opacity:0"
    except ValueError:
        pass
    size = _px(style["font-size"]) if "font-size" in style else None
    if size is None and "font" in style:
        size = next((p for p in (_px(w.split("/")[0]) for w in style["font"].split()[:-1]) if p is not None), None)
    if size is not None and size <= 2:
        return "font-size <= 2px"
    if ("color" in style or "background" in style or "background-color" in style) and color is not None:
        if color[3] == 0:
            return "transparent text"
        if background is None and _same(color, (1.0, 1.0, 1.0, 1.0)):
            return "white text on no background"
        if isinstance(background, tuple) and _same(color, background):
            return "text colour equal to the background"
    if style.get("position") in ("absolute", "fixed"):
        for side in ("left", "top"):
            px = _px(style.get(side, ""))
            if px is not None and px <= -1000:
                return f"positioned off-screen ({side})"
    indent = _px(style.get("text-indent", ""))
    if indent is not None and indent <= -1000:
        return "text-indent off-screen"
    m = _CLIP_RECT.match(style.get("clip", ""))
    if m:
        sizes = [_px(p) for p in re.split(r"[\s,]+", m.group(1).strip()) if p]
        if sizes and all(s is not None and abs(s) <= 1 for s in sizes):
            return "clipped to nothing"
    return None


def hidden_elements(root: etree._Element) -> list[tuple[etree._Element, str]]:
    """Elements of the parsed page ``root`` that a browser would not show (module docstring), each
    with the reason, outermost first; descendants of a hidden element are not listed. Reads the
    page's ``<style>`` elements and ``style`` attributes; never raises on malformed CSS."""
    css = [el.text or "" for el in root.iter("style")]
    matched: dict[etree._Element, list[tuple[tuple[int, int, int], int, list[tuple[str, str, bool]]]]] = {}
    for rule in _rules(css):
        try:
            found = root.xpath(rule.xpath)
        except etree.XPathError:
            continue
        for el in found:
            if isinstance(el, etree._Element):
                matched.setdefault(el, []).append((rule.specificity, rule.order, rule.declarations))
    out: list[tuple[etree._Element, str]] = []

    def visit(el: etree._Element, color: _RGBA | None, background: _RGBA | str | None) -> None:
        if not isinstance(el.tag, str):
            return
        normal: dict[str, str] = {}
        important: dict[str, str] = {}
        for _, _, decls in sorted(matched.get(el, []), key=lambda m: (m[0], m[1])):
            for name, value, imp in decls:
                (important if imp else normal)[name] = value
        inline = el.get("style")
        if inline:
            for name, value, imp in _declarations(tinycss2.parse_component_value_list(inline)):
                if name in _RELEVANT:
                    (important if imp else normal)[name] = value
        style = normal | important
        if "color" in style:
            color = _color(style["color"]) or color
        for key in ("background", "background-color"):
            if key in style:
                bg = _background(style[key])
                background = bg if bg is not None else background
        if "background-image" in style and style["background-image"] != "none":
            background = "image"
        reason = _hides(style, color, background) if style else None
        if reason:
            out.append((el, reason))
            return
        for child in el:
            visit(child, color, background)

    visit(root, None, None)
    return out
