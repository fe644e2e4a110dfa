"""What every command shares: the option types, the settings and pipeline builder (preset, config
file, ``--set``, daily flags), the error wrapper, the output-folder helper and small parsers.

Settings are built in one order everywhere (:func:`settings_for`): the shipped preset
(``--preset``), the config file (``--config``, a path or a preset name), each ``--set
section.field=value`` in the order given, then the few flags people type daily (``--data-dir``,
``--reranker``, ``--chunker``, ``--llm`` ...), each of which is just a named ``--set``
(:data:`DAILY`). The result is validated by the pydantic :class:`~clinqa.settings.Settings` model;
an unknown key or a bad value is one line and exit code 2.
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn, TypeVar

import typer

from clinqa.errors import ClinqaError, ConfigError

if TYPE_CHECKING:
    from clinqa.pipeline import Pipeline
    from clinqa.retrieval.filters import Filters
    from clinqa.settings import Settings

#: plain click help and errors (rich_markup_mode None): rendering them with rich imports ~0.3 s of
#: modules, most of `clinqa --help`'s start-up (bench/cold_start.py)
PLAIN: dict[str, Any] = {"rich_markup_mode": None}

#: exit code of every error a user can act on (bad input, bad settings, a missing extra)
EXIT_ERROR = 2

DataDir = Annotated[Path | None, typer.Option("--data-dir", envvar="CLINQA_DATA_DIR",
                                              help="Where the store and caches live.")]
Config = Annotated[Path | None, typer.Option("--config", help="YAML/TOML/JSON settings file, or the name of "
                                             "a shipped preset.")]
Preset = Annotated[str | None, typer.Option("--preset", help="Shipped settings preset applied first: "
                                            "clinician-shorthand, consumer-questions, exact-ingest, fast-ingest, "
                                            "patient-notes, rrf-fusion (src/clinqa/presets).")]
Sets = Annotated[list[str] | None, typer.Option("--set", metavar="SECTION.FIELD=VALUE",
                                                help="Override one setting, e.g. retrieval.rrf_k=10 (repeatable; "
                                                "the value is a YAML scalar or flow list; applied after "
                                                "--preset and --config).")]
Reranker = Annotated[str | None, typer.Option("--reranker", help="Cross-encoder folder to rerank the candidate "
                                              "pool with (overrides rerank.model).")]
Patient = Annotated[str | None, typer.Option("--patient", help="Restrict to this patient's notes.")]
Since = Annotated[int | None, typer.Option("--since", help="Only documents from this year on.")]
Until = Annotated[int | None, typer.Option("--until", help="Only documents up to this year.")]
Source = Annotated[list[str] | None, typer.Option("--source", help="Only this source (repeatable).")]
LLM = Annotated[str | None, typer.Option("--llm", help="Generate the answer with a language model: openai "
                                         "(any OpenAI-compatible server; $OPENAI_BASE_URL, $OPENAI_API_KEY), "
                                         "local (llama-cpp-python, clinqa[local-llm]) or none (extractive; "
                                         "overrides llm.backend).")]
LLMModel = Annotated[str | None, typer.Option("--llm-model", help="Model id for --llm (overrides llm.model).")]
LLMUrl = Annotated[str | None, typer.Option("--llm-url", help="Server URL for --llm openai (overrides "
                                            "llm.base_url and $OPENAI_BASE_URL).")]

#: daily flag -> the setting it overrides (a flag is a named ``--set``)
DAILY: dict[str, str] = {
    "data_dir": "data_dir",
    "reranker": "rerank.model",
    "chunker": "chunking.strategy",
    "llm": "llm.backend",
    "llm_model": "llm.model",
    "llm_url": "llm.base_url",
    "store_backend": "store.backend",
    "qdrant_url": "store.qdrant_url",
}
#: how each daily flag is spelt on the command line, for error messages
#: (its name with dashes, but ``--to`` for ``store_backend``)
FLAG_NAMES: dict[str, str] = {name: "--" + name.replace("_", "-") for name in DAILY} | {"store_backend": "--to"}


def parse_set(text: str) -> tuple[str, Any]:
    """``"retrieval.rrf_k=10"`` -> ``("retrieval.rrf_k", 10)``: the key before the first ``=``, the
    value after it read as YAML (``10`` int, ``0.3`` float, ``true`` bool, ``null`` None,
    ``[document]`` a list, anything else a string). Raises :class:`ConfigError` naming the option
    when there is no ``=`` or no key, or the value is not YAML."""
    import yaml

    key, sep, value = text.partition("=")
    key = key.strip()
    if not sep or not key:
        raise ConfigError(f"--set {text}: expected SECTION.FIELD=VALUE, e.g. --set retrieval.rrf_k=10")
    try:
        parsed = yaml.safe_load(value) if value.strip() else None
    except yaml.YAMLError as exc:
        raise ConfigError(f"--set {text}: the value is not a YAML scalar: {exc}".splitlines()[0]) from None
    return key, parsed


def settings_for(data_dir: Path | None = None, config: Path | None = None, preset: str | None = None,
                 sets: Iterable[str] | None = None, **daily: Any) -> Settings:
    """The settings of one command: ``preset``, then the ``config`` file (or preset name), then each
    ``--set`` of ``sets`` in order, then the daily flags (``data_dir`` and the keys of :data:`DAILY`;
    None = not given), validated as a whole (:func:`clinqa.settings.apply_overrides`). Raises
    :class:`ConfigError` with one line naming the file or the option at fault."""
    from clinqa.settings import apply_overrides, load_settings

    unknown = set(daily) - set(DAILY)
    if unknown:
        raise TypeError(f"settings_for: no daily flag {sorted(unknown)}")
    # data_dir also goes in first, as before: the default's $CLINQA_DATA_DIR is then never checked in its place
    settings = load_settings(config, preset=preset, data_dir=data_dir)
    overrides: list[tuple[str, Any, str]] = []
    for text in sets or ():
        key, value = parse_set(text)
        overrides.append((key, value, f"--set {text}"))
    daily = {"data_dir": data_dir, **daily}
    overrides += [(DAILY[name], value, f"{FLAG_NAMES[name]} {value}") for name, value in daily.items()
                  if value is not None]
    return apply_overrides(settings, overrides)


def pipeline(data_dir: Path | None = None, config: Path | None = None, preset: str | None = None,
             sets: Iterable[str] | None = None, **daily: Any) -> Pipeline:
    """A :class:`~clinqa.pipeline.Pipeline` on :func:`settings_for` (same arguments, same errors)."""
    from clinqa.pipeline import Pipeline

    return Pipeline(settings_for(data_dir, config, preset, sets, **daily))


def llm_flags(llm: str | None, model: str | None, url: str | None) -> dict[str, Any]:
    """The ``--llm``/``--llm-model``/``--llm-url`` flags as daily overrides for :func:`settings_for`.
    Raises :class:`ClinqaError` ``"--llm must be openai, local or none, not 'x'"``."""
    if llm is not None and llm not in ("none", "openai", "local"):
        raise ClinqaError(f"--llm must be openai, local or none, not {llm!r}")
    return {"llm": llm, "llm_model": model, "llm_url": url}


def fail(message: object, code: int = EXIT_ERROR) -> typer.Exit:
    """Print ``error: <message>`` on stderr and return the :class:`typer.Exit` to raise."""
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(code)


F = TypeVar("F", bound=Callable[..., Any])


def _command_words(func: Callable[..., Any]) -> str:
    """``"clinqa eval retrieval"`` for the command function ``eval_retrieval`` (``train_reranker_cmd``:
    ``"clinqa train reranker"``): each command is named ``<group>_<command>`` after its words."""
    return "clinqa " + func.__name__.removesuffix("_cmd").replace("_", " ")


def handle_errors(*also: type[Exception]) -> Callable[[F], F]:
    """Decorator of every command: a :class:`ClinqaError` (or one of ``also``, e.g. ``ValueError``
    where a library's message is the user's answer) becomes ``error: <message>`` on stderr and exit
    code 2; a ``ModuleNotFoundError`` of an optional extra's module becomes ``error: clinqa eval
    retrieval needs ir-measures, which is not installed: pip install 'clinqa[eval]'`` and exit 2
    (:func:`clinqa.extras.missing_extra`, the command named after its function, ``eval_retrieval``;
    a missing core module is re-raised: a broken install). A
    ``KeyError`` in ``also`` is shown by its message, without quotes. :class:`typer.Exit` and other
    exceptions pass unchanged. The signature seen by typer is the command's own."""
    catch = (ClinqaError, *also)

    def wrap(func: F) -> F:
        @functools.wraps(func)
        def run(*args: Any, **kwargs: Any) -> Any:
            try:
                return func(*args, **kwargs)
            except catch as exc:
                message = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
                raise fail(message) from None
            except ModuleNotFoundError as exc:
                from clinqa.extras import missing_extra

                found = missing_extra(exc, needed_by=_command_words(func))
                if found is None:
                    raise
                raise fail(found) from None

        return run  # type: ignore[return-value]

    return wrap


def require_text(text: str) -> None:
    """Raise ClinqaError ``"the question is empty"`` (exit 2) for an empty or whitespace-only question
    or query."""
    from clinqa.text.unicode import is_blank

    if is_blank(text):
        raise ClinqaError("the question is empty")


def filters(pipe: Pipeline, patient: str | None, since: int | None, until: int | None,
            source: list[str] | None) -> Filters:
    """The :class:`~clinqa.retrieval.filters.Filters` of ``--patient``, ``--since``, ``--until`` and
    ``--source``; ClinqaError when ``--since`` is after ``--until``."""
    if since is not None and until is not None and since > until:
        raise ClinqaError(f"--since {since} is after --until {until}")
    return pipe.filters(patient_id=patient, since=since, until=until, sources=source or ())


def read_ids(path: Path) -> set[str]:
    """Query ids from a file, one per line (blank lines and ``#`` comments ignored); ClinqaError naming
    the file when it cannot be read."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise ClinqaError(f"{path}: cannot read query ids: {exc}") from exc
    return {x.strip() for x in lines if x.strip() and not x.startswith("#")}


def _day(value: str | None, option: str, end: bool = False) -> Any:
    """``YYYY-MM-DD`` as a UTC datetime at the start of that day (``end``: of the next day), or None."""
    import datetime as dt

    if value is None:
        return None
    try:
        day = dt.date.fromisoformat(value)
    except ValueError:
        raise ClinqaError(f"{option} {value!r}: expected a day as YYYY-MM-DD") from None
    start = dt.datetime(day.year, day.month, day.day, tzinfo=dt.UTC)
    return start + dt.timedelta(days=1) if end else start


def days(since: str | None, until: str | None) -> tuple[Any, Any]:
    """``(since, until)`` of the ``--since``/``--until`` days as UTC datetimes (``until`` at the end of
    its day; None when not given); ClinqaError naming the option for a malformed day, and naming
    both days when ``since`` is after ``until`` (that window holds no question: an error, not an
    empty report)."""
    start, end = _day(since, "--since"), _day(until, "--until", end=True)
    if start is not None and end is not None and start >= end:
        raise ClinqaError(f"--since {since} is after --until {until}: no day is in that window")
    return start, end


Content = str | bytes | Callable[[Path], Any]


def write_outputs(folder: Path | None, files: Mapping[str, Content]) -> list[str]:
    """Create ``folder`` (with its parents) and write each ``name -> content`` into it: text as UTF-8,
    bytes as they are, a callable is called with the file's path (plots, writers that open the file
    themselves). Returns the names written, in order; nothing is done when ``folder`` is None."""
    if folder is None:
        return []
    folder.mkdir(parents=True, exist_ok=True)
    for name, content in files.items():
        path = folder / name
        if isinstance(content, str):
            path.write_text(content, encoding="utf-8")
        elif isinstance(content, bytes):
            path.write_bytes(content)
        else:
            content(path)
    return list(files)


def exit_now(code: object) -> NoReturn:
    """Leave the process with ``code`` (of a ``SystemExit``) as ``sys.exit`` does at the end of a command:
    non-daemon threads joined (``threading._shutdown``), every ``atexit`` handler run, stdout and stderr
    flushed; then ``os._exit``, skipping only the interpreter's final clean-up of every module and object,
    which a cold ``clinqa ask`` spent 0.1-0.4 s on after its answer was printed (LanceDB, PyArrow, pandas and
    ONNX Runtime loaded; ``bench/cold_start.py``). Nothing is left to write by then: the query log is closed
    and the stores commit every write. A code that is not an int or None (a message) exits as usual, and so
    does a failed flush (a closed pipe), which the usual exit reports."""
    import atexit
    import threading

    if code is not None and not isinstance(code, int):
        sys.exit(code)
    shutdown = getattr(threading, "_shutdown", None)
    if shutdown is not None:
        shutdown()
    atexit._run_exitfuncs()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except Exception:
        sys.exit(code)
    os._exit(code or 0)
