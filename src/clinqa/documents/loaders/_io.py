"""Safe reading shared by the loaders: size caps, binary/UTF-8 checks, hardened XML parsing.

Every function here raises :class:`~clinqa.errors.LoadError` with a one-line reason and
nothing else for the problems it checks (missing file, empty file, file too large, binary
content, invalid UTF-8, XML bombs, XML that is not well-formed).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import defusedxml.ElementTree as defused_et
from defusedxml import DefusedXmlException
from lxml import etree

from clinqa.errors import LoadError

#: Largest file the whole-file readers accept (text, Markdown, HTML, XML, JSON, CSV, PDF).
MAX_FILE_BYTES = 200 * 1024 * 1024
#: Largest single line accepted by the streaming JSONL reader (whole files are not capped:
#: BEIR corpora are streamed line by line).
MAX_LINE_BYTES = 64 * 1024 * 1024

_UTF8_BOM = b"\xef\xbb\xbf"
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")


def _stat_size(path: Path) -> int:
    try:
        st = path.stat()
    except FileNotFoundError:
        raise LoadError(path, "no such file") from None
    except PermissionError:
        raise LoadError(path, "permission denied") from None
    except OSError as exc:
        raise LoadError(path, f"cannot read: {exc.strerror or exc}") from None
    if path.is_dir():
        raise LoadError(path, "is a directory, not a file")
    return st.st_size


def _too_large(path: Path, size: int, limit: int) -> LoadError:
    return LoadError(path, f"file too large ({size / 1048576:.1f} MB > {limit / 1048576:.0f} MB limit)")


def read_bytes(path: Path, max_bytes: int = MAX_FILE_BYTES) -> bytes:
    """Read a whole file as bytes.

    Raises LoadError: "no such file", "is a directory, not a file", "permission denied",
    "empty file", "file too large (...)".
    """
    size = _stat_size(path)
    if size == 0:
        raise LoadError(path, "empty file")
    if size > max_bytes:
        raise _too_large(path, size, max_bytes)
    try:
        data = path.read_bytes()
    except PermissionError:
        raise LoadError(path, "permission denied") from None
    except OSError as exc:
        raise LoadError(path, f"cannot read: {exc.strerror or exc}") from None
    if not data:
        raise LoadError(path, "empty file")
    return data


def read_head(path: Path, n: int = 65536) -> bytes:
    """The first ``n`` bytes of a file (for format sniffing). Raises LoadError like read_bytes."""
    size = _stat_size(path)
    if size == 0:
        raise LoadError(path, "empty file")
    try:
        with path.open("rb") as fh:
            return fh.read(n)
    except OSError as exc:
        raise LoadError(path, f"cannot read: {exc.strerror or exc}") from None


def _line_of(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


def decode_text(path: Path, data: bytes, *, line_prefix: str = "") -> str:
    """Decode UTF-8 bytes (a leading BOM is dropped) after checking they are text.

    Raises LoadError: "binary content, not text (NUL bytes)", "UTF-16 text is not supported
    (convert to UTF-8)", "invalid UTF-8 at byte N (line L)". ``line_prefix`` (e.g.
    ``"line 7: "``) is put in front of the reason, for streaming readers.
    """
    if data.startswith(_UTF16_BOMS):
        raise LoadError(path, f"{line_prefix}UTF-16 text is not supported (convert to UTF-8)")
    if b"\x00" in data:
        raise LoadError(path, f"{line_prefix}binary content, not text (NUL bytes)")
    start = 3 if data.startswith(_UTF8_BOM) else 0
    try:
        return data[start:].decode("utf-8")
    except UnicodeDecodeError as exc:
        offset = exc.start + start
        where = "" if line_prefix else f" (line {_line_of(data, offset)})"
        raise LoadError(path, f"{line_prefix}invalid UTF-8 at byte {offset}{where}") from None


def read_text(path: Path, max_bytes: int = MAX_FILE_BYTES) -> str:
    """Read a whole UTF-8 text file, newlines normalised to ``\\n``.

    Raises LoadError: everything :func:`read_bytes` and :func:`decode_text` raise, and
    "empty file" for a file of only whitespace.
    """
    text = decode_text(path, read_bytes(path, max_bytes))
    if not text.strip():
        raise LoadError(path, "empty file (only whitespace)")
    return text.replace("\r\n", "\n").replace("\r", "\n")


def iter_jsonl(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """Stream a JSON Lines file as ``(line_number, object)`` pairs, skipping blank lines.

    Raises LoadError: "empty file", "line N: invalid UTF-8 ...", "line N: binary content ...",
    "line N: invalid JSON (...)", "line N: expected a JSON object, got list",
    "line N: line too long", "no records (only blank lines)".
    """
    size = _stat_size(path)
    if size == 0:
        raise LoadError(path, "empty file")
    seen = False
    try:
        fh = path.open("rb")
    except OSError as exc:
        raise LoadError(path, f"cannot read: {exc.strerror or exc}") from None
    with fh:
        line_no = 0
        while True:
            raw = fh.readline(MAX_LINE_BYTES + 1)
            if not raw:
                break
            line_no += 1
            if len(raw) > MAX_LINE_BYTES:
                raise LoadError(path, f"line {line_no}: line too long (> {MAX_LINE_BYTES} bytes)")
            if line_no == 1 and raw.startswith(_UTF8_BOM):
                raw = raw[3:]
            if not raw.strip():
                continue
            prefix = f"line {line_no}: "
            text = decode_text(path, raw, line_prefix=prefix)
            try:
                obj = json.loads(text)
            except json.JSONDecodeError as exc:
                raise LoadError(path, f"{prefix}invalid JSON ({exc.msg} at column {exc.colno})") from None
            except RecursionError:
                raise LoadError(path, f"{prefix}invalid JSON (nested too deeply)") from None
            if not isinstance(obj, dict):
                raise LoadError(path, f"{prefix}expected a JSON object, got {type(obj).__name__}")
            seen = True
            yield line_no, obj
    if not seen:
        raise LoadError(path, "no records (only blank lines)")


def parse_json(path: Path, text: str) -> Any:
    """``json.loads`` with a LoadError "invalid JSON at line L column C: msg" on failure."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise LoadError(path, f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except RecursionError:
        raise LoadError(path, "invalid JSON (nested too deeply)") from None


_XML_COMMENT = re.compile(rb"<!--.*?-->", re.S)
_XML_TAG = re.compile(rb"<([!?/]?)([A-Za-z_][\w.:-]*)")


def sniff_xml_root(head: bytes) -> str | None:
    """The local name of the first element in an XML prefix (``"article"``, ``"Document"``)."""
    head = _XML_COMMENT.sub(b"", head)
    for m in _XML_TAG.finditer(head):
        if m.group(1) == b"":
            name = m.group(2).decode("ascii", "replace")
            return name.rsplit(":", 1)[-1]
    return None


def parse_xml(path: Path, data: bytes) -> etree._Element:
    """Parse untrusted XML bytes safely and return the root element.

    First ``defusedxml`` refuses entity declarations (billion laughs, quadratic blowup,
    external entities); then lxml parses with ``resolve_entities=False, no_network=True,
    huge_tree=False``. Raises LoadError: "XML entity declarations are not allowed (possible
    XML bomb)", "XML external references are not allowed", "XML is not well-formed: ...",
    "binary content, not text (NUL bytes)".
    """
    if b"\x00" in data and not data.startswith(_UTF16_BOMS):
        raise LoadError(path, "binary content, not text (NUL bytes)")
    try:
        defused_et.fromstring(data, forbid_dtd=False, forbid_entities=True, forbid_external=True)
    except DefusedXmlException as exc:
        name = type(exc).__name__
        if name == "EntitiesForbidden":
            raise LoadError(path, "XML entity declarations are not allowed (possible XML bomb)") from None
        if name in ("ExternalReferenceForbidden", "DTDForbidden"):
            raise LoadError(path, "XML external references are not allowed") from None
        raise LoadError(path, f"unsafe XML refused: {name}") from None
    except defused_et.ParseError as exc:
        raise LoadError(path, f"XML is not well-formed: {_one_line(str(exc))}") from None
    except RecursionError:
        raise LoadError(path, "XML is nested too deeply") from None
    parser = etree.XMLParser(
        resolve_entities=False,
        no_network=True,
        huge_tree=False,
        load_dtd=False,
        dtd_validation=False,
        remove_comments=True,
        remove_pis=True,
    )
    try:
        root = etree.fromstring(data, parser=parser)
    except etree.XMLSyntaxError as exc:
        raise LoadError(path, f"XML is not well-formed: {_one_line(str(exc))}") from None
    if root is None:
        raise LoadError(path, "XML is not well-formed: no root element")
    return root


def _one_line(msg: str) -> str:
    return " ".join(msg.split())
