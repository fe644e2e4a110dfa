"""Safe reading shared by the loaders: size caps, binary/UTF-8 checks, hardened XML parsing.

Every function here raises :class:`~clinqa.errors.LoadError` with a one-line reason and
nothing else for the problems it checks (missing file, empty file, file too large, binary
content, invalid UTF-8, XML bombs, XML that is not well-formed, lines, blocks and headings
over the limits, parsing past its time limit).

The limits are those of :class:`~clinqa.settings.IngestSettings`. The loaders read them from
:func:`current_limits`, which :func:`applying_limits` sets for the duration of one file's load
(``iter_documents(..., limits=settings.ingest)``); outside it the defaults apply.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any

import defusedxml.ElementTree as defused_et
from defusedxml import DefusedXmlException
from lxml import etree

from clinqa.documents.model import Document
from clinqa.errors import LoadError
from clinqa.settings import IngestSettings

#: Default largest file the whole-file readers accept (text, Markdown, HTML, XML, JSON, CSV, PDF);
#: ``ingest.max_file_mb`` sets it.
MAX_FILE_BYTES = int(IngestSettings().max_file_mb * 1024 * 1024)
#: Largest single line accepted by the streaming JSONL reader (whole files are not capped:
#: BEIR corpora are streamed line by line).
MAX_LINE_BYTES = 64 * 1024 * 1024

_UTF8_BOM = b"\xef\xbb\xbf"
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
#: a JSON escape of a UTF-16 surrogate: valid in pairs (emoji), invalid alone
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")
_SURROGATE_ESCAPE_STR = re.compile(_SURROGATE_ESCAPE.pattern.decode())

#: file signatures, to say what a binary file under a text name is
_MAGIC = (
    (b"%PDF-", "a PDF document: give it the extension .pdf"),
    (b"PK\x03\x04", "a ZIP archive or an Office file: name a Word file .docx, save others as text"),
    (b"PK\x05\x06", "an empty ZIP archive"),
    (b"\x1f\x8b", "gzip-compressed: decompress it first"),
    (b"\xd0\xcf\x11\xe0", "an old Microsoft Office file (.doc/.xls): save it as text"),
    (b"\x89PNG", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF8", "a GIF image"),
)

_LIMITS: ContextVar[IngestSettings | None] = ContextVar("clinqa_ingest_limits", default=None)
_DEADLINE: ContextVar[tuple[float, Path] | None] = ContextVar("clinqa_parse_deadline", default=None)


def current_limits() -> IngestSettings:
    """The limits in force for the file being loaded (the defaults outside :func:`applying_limits`)."""
    return _LIMITS.get() or IngestSettings()


@contextmanager
def applying_limits(limits: IngestSettings | None, path: Path) -> Iterator[IngestSettings]:
    """Apply ``limits`` (``None``: the defaults) and start the parse clock of ``max_parse_seconds``
    for the code run inside the ``with`` block (the load of ``path``). Not for use across a ``yield``."""
    limits = limits or IngestSettings()
    token = _LIMITS.set(limits)
    clock = _DEADLINE.set((time.monotonic() + limits.max_parse_seconds, Path(path)))
    try:
        yield limits
    finally:
        _DEADLINE.reset(clock)
        _LIMITS.reset(token)


def check_deadline(what: str = "parsing") -> None:
    """Raise LoadError "<path>: <what> took longer than N s ..." once the parse clock of
    :func:`applying_limits` has run out; does nothing outside it. Loaders call it between
    units of work (Markdown paragraphs, PDF pages)."""
    clock = _DEADLINE.get()
    if clock is not None and time.monotonic() > clock[0]:
        path, limit = clock[1], current_limits().max_parse_seconds
        raise LoadError(path, f"{what} took longer than {limit:g} s: the file is too large or its markup "
                              "too complex (limit: setting ingest.max_parse_seconds)")


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
    return LoadError(path, f"file too large ({size / 1048576:.1f} MB > {limit / 1048576:.0f} MB limit: "
                           "setting ingest.max_file_mb)")


def read_bytes(path: Path, max_bytes: int | None = None) -> bytes:
    """Read a whole file as bytes; ``max_bytes`` defaults to ``ingest.max_file_mb``
    (:func:`current_limits`), checked before anything is read.

    Raises LoadError: "no such file", "is a directory, not a file", "permission denied",
    "empty file", "file too large (...)".
    """
    if max_bytes is None:
        max_bytes = int(current_limits().max_file_mb * 1024 * 1024)
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

    Raises LoadError: "binary content, not text (NUL bytes)" (or, for a whole file with a known
    signature, "(a PDF document: ...)", "(a ZIP archive ...)"), "UTF-16 text is not supported
    (convert to UTF-8)", "invalid UTF-8 at byte N (line L)". ``line_prefix`` (e.g.
    ``"line 7: "``) is put in front of the reason, for streaming readers.
    """
    if not line_prefix:
        for magic, kind in _MAGIC:
            if data.startswith(magic):
                raise LoadError(path, f"binary content, not text ({kind})")
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


def read_text(path: Path, max_bytes: int | None = None) -> str:
    """Read a whole UTF-8 text file, newlines normalised to ``\\n``.

    Raises LoadError: everything :func:`read_bytes` and :func:`decode_text` raise, and
    "empty file" for a file of only whitespace.
    """
    text = decode_text(path, read_bytes(path, max_bytes))
    if not text.strip():
        raise LoadError(path, "empty file (only whitespace)")
    return text.replace("\r\n", "\n").replace("\r", "\n")


def iter_jsonl(path: Path, errors: list[str] | None = None) -> Iterator[tuple[int, dict[str, Any]]]:
    """Stream a JSON Lines file as ``(line_number, object)`` pairs, skipping blank lines.

    Raises LoadError: "empty file", "line N: invalid UTF-8 ...", "line N: binary content ...",
    "line N: invalid JSON (...)", "line N: expected a JSON object, got list",
    "line N: line too long", "no records (only blank lines)". With ``errors``, a line that is not a JSON
    object ("invalid JSON", "expected a JSON object") is skipped and its message appended there instead,
    so a caller can report every bad line at once.
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
            text = decode_text(path, raw, line_prefix=prefix).rstrip("\r\n")  # columns of a cut line stay right
            problem = ""
            try:
                obj = json.loads(text)
                if _SURROGATE_ESCAPE.search(raw):
                    _check_surrogates(path, obj, prefix)
            except json.JSONDecodeError as exc:
                at = "" if exc.msg.endswith(" at") else " at"  # "Unterminated string starting at"
                problem = f"{prefix}invalid JSON ({exc.msg}{at} column {exc.colno})"
            except RecursionError:
                problem = f"{prefix}invalid JSON (nested too deeply)"
            else:
                if not isinstance(obj, dict):
                    problem = f"{prefix}expected a JSON object, got {type(obj).__name__}"
            if problem:
                if errors is None:
                    raise LoadError(path, problem)
                errors.append(problem)
                continue
            seen = True
            yield line_no, obj
    if not seen and not errors:
        raise LoadError(path, "no records (only blank lines)")


def parse_json(path: Path, text: str) -> Any:
    """``json.loads`` with a LoadError "invalid JSON at line L column C: msg" on failure (also
    for a ``\\uD800``-style escape of a lone UTF-16 surrogate, which is no character)."""
    try:
        obj = json.loads(text)
        if _SURROGATE_ESCAPE_STR.search(text):
            _check_surrogates(path, obj, "")
        return obj
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
        limit = xml_limit_reason(str(exc))
        if limit:
            raise LoadError(path, f"XML {limit}") from None
        raise LoadError(path, f"XML is not well-formed: {_one_line(str(exc))}") from None
    if root is None:
        raise LoadError(path, "XML is not well-formed: no root element")
    return root


def _one_line(msg: str) -> str:
    return " ".join(msg.split())


def xml_limit_reason(msg: str) -> str | None:
    """A plain reason for libxml2's resource-limit errors (which suggest an option users cannot set)."""
    m = re.search(r"Excessive depth in document: (\d+)", msg)
    if m:
        return f"is nested too deeply (more than {m.group(1)} levels of elements)"
    if "limit exceeded" in msg.lower() or "huge text node" in msg.lower():
        return "has a single text run or tag too large for the parser (over 10 MB)"
    return None


def _check_surrogates(path: Path, obj: Any, prefix: str) -> None:
    try:
        json.dumps(obj, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        raise LoadError(path, f"{prefix}invalid JSON string: a \\uD800-\\uDFFF escape that is not part of a "
                              "surrogate pair (no character)") from None


def check_line_lengths(path: Path, text: str) -> None:
    """Refuse text with a line longer than ``ingest.max_block_chars`` before it is parsed.

    Raises LoadError "line N is C characters long (limit L: ...)". Linear in the text length.
    """
    limit = current_limits().max_block_chars
    if len(text) <= limit:
        return
    start, line_no, n = 0, 1, len(text)
    while start < n:
        end = text.find("\n", start)
        end = n if end < 0 else end
        if end - start > limit:
            raise LoadError(path, f"line {line_no} is {end - start:,} characters long (limit {limit:,}: "
                                  "setting ingest.max_block_chars)")
        start, line_no = end + 1, line_no + 1


#: formats whose documents carry ids of their own (the others' doc_id falls back to the file path)
NATIVE_ID_FORMATS = frozenset({"notes", "beir", "pubmedqa", "medquad"})
#: the root elements of a MedQuAD XML file
MEDQUAD_ROOTS = frozenset({"document", "doc", "diseasefile"})


def check_document_limits(path: Path, docs: Sequence[Document]) -> None:
    """Refuse documents whose title, headings or blocks are over the limits of :func:`current_limits`.

    Raises LoadError naming the document (when it has an id of its own: notes, corpus records), the section and the
    setting: "a paragraph of 250,000 characters in section 'Methods' (limit 200,000: setting
    ingest.max_block_chars)".
    """
    limits = current_limits()
    for doc in docs:
        named = len(docs) > 1 or doc.format in NATIVE_ID_FORMATS
        where = f"document {doc.doc_id!r}: " if named else ""
        if len(doc.title) > limits.max_heading_chars:
            raise LoadError(path, f"{where}a title of {len(doc.title):,} characters (limit "
                                  f"{limits.max_heading_chars:,}: setting ingest.max_heading_chars)")
        for sec_path, section in doc.walk():
            if len(section.title) > limits.max_heading_chars:
                raise LoadError(path, f"{where}a heading of {len(section.title):,} characters (limit "
                                      f"{limits.max_heading_chars:,}: setting ingest.max_heading_chars)")
            for block in section.blocks:
                if len(block.text) > limits.max_block_chars:
                    name = " > ".join(t[:60] for t in sec_path if t)
                    inside = f" in section {name!r}" if name else ""
                    raise LoadError(path, f"{where}a {block.kind} block of {len(block.text):,} characters{inside} "
                                          f"(limit {limits.max_block_chars:,}: setting ingest.max_block_chars)")
