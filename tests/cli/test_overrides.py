"""Settings overrides of the CLI: ``--set section.field=value`` (repeatable, validated by the
Settings model), ``--preset NAME``, their order with ``--config`` and the daily flags, and the one
error wrapper of every command (:func:`clinqa.cli.common.handle_errors`)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import typer
import yaml
from typer.testing import CliRunner

from clinqa.cli import app
from clinqa.cli.common import handle_errors, parse_set, settings_for
from clinqa.errors import ClinqaError, ConfigError
from clinqa.settings import PRESETS_DIR, Settings

DOCS = {
    "sepsis.md": "# Sepsis\n\n## Initial fluid resuscitation\n\nGive 30 mL/kg of intravenous crystalloid within the "
                 "first 3 hours of sepsis-induced hypoperfusion. Reassess the volume status frequently.\n",
    "gout.md": "# Gout\n\n## Urate-lowering therapy\n\nAllopurinol lowers serum urate: start at 100 mg daily and "
               "titrate to a serum urate below 6 mg/dL.\n",
}
NOTES = [
    {"patient_id": "P1", "note_id": "N1", "date": "2024-03-01", "note_type": "progress note", "author_role": "MD",
     "text": "MEDICATIONS: Started dapagliflozin 10 mg daily for type 2 diabetes. Metformin continued."},
    {"patient_id": "P2", "note_id": "N1", "date": "2024-04-02", "note_type": "progress note", "author_role": "MD",
     "text": "MEDICATIONS: Warfarin stopped after a gastrointestinal bleed; apixaban started."},
]
SEPSIS = "How much intravenous crystalloid should be given in sepsis?"


def _run(*args: str):
    return CliRunner().invoke(app, list(args))


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data dir holding the two Markdown documents and two patients' notes, ingested by the CLI."""
    src = tmp_path_factory.mktemp("src") / "docs"
    src.mkdir()
    for name, text in DOCS.items():
        (src / name).write_text(text)
    (src / "notes.jsonl").write_text("".join(json.dumps(n) + "\n" for n in NOTES))
    data = tmp_path_factory.mktemp("store") / "data"
    r = _run("ingest", str(src), "--quiet", "--json", "--data-dir", str(data))
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["documents"] == 4
    return data


# -- parsing and validation ------------------------------------------------------------------------

def test_set_values_are_yaml_scalars() -> None:
    assert parse_set("retrieval.rrf_k=10") == ("retrieval.rrf_k", 10)
    assert parse_set("retrieval.dense_weight=0.3") == ("retrieval.dense_weight", 0.3)
    assert parse_set("retrieval.parse_time=false") == ("retrieval.parse_time", False)
    assert parse_set("rerank.model=null") == ("rerank.model", None)
    assert parse_set("retrieval.exclude_levels=[document, references]") == (
        "retrieval.exclude_levels", ["document", "references"])
    assert parse_set("llm.base_url=http://h:1/v1?a=b") == ("llm.base_url", "http://h:1/v1?a=b")  # first '=' splits
    with pytest.raises(ConfigError, match=r"^--set retrieval\.rrf_k: expected SECTION\.FIELD=VALUE"):
        parse_set("retrieval.rrf_k")


def test_set_is_visible_in_the_settings_and_nothing_else_moves(tmp_path: Path) -> None:
    s = settings_for(tmp_path, sets=["retrieval.rrf_k=10", "answer.key_terms=warn", "llm.model=4",
                                     "retrieval.exclude_levels=[document]"])
    assert s.retrieval.rrf_k == 10 and s.answer.key_terms == "warn"
    assert s.llm.model == "4"  # a number typed for a text setting stays the text typed
    assert s.retrieval.exclude_levels == ["document"]
    default = Settings(data_dir=tmp_path)
    changed = {("retrieval", "rrf_k"), ("answer", "key_terms"), ("llm", "model"), ("retrieval", "exclude_levels")}
    for section, fields in default.model_dump().items():
        if isinstance(fields, dict):
            for name in fields:
                if (section, name) not in changed:
                    assert getattr(getattr(s, section), name) == getattr(getattr(default, section), name), name


def test_order_preset_config_set_then_daily_flags(tmp_path: Path) -> None:
    cfg = tmp_path / "c.yaml"
    cfg.write_text("answer: {key_terms: ignore}\nretrieval: {rrf_k: 20}\n")
    # consumer-questions sets answer.key_terms: warn; the config file wins over it, key by key
    s = settings_for(tmp_path, cfg, "consumer-questions")
    assert (s.answer.key_terms, s.retrieval.rrf_k, s.retrieval.bm25_k) == ("ignore", 20, 30)
    s = settings_for(tmp_path, cfg, "consumer-questions", ["answer.key_terms=refuse", "rerank.model=/a"],
                     reranker="/b")
    assert (s.answer.key_terms, s.rerank.model) == ("refuse", "/b")
    # a later --set of the same key wins
    assert settings_for(tmp_path, sets=["retrieval.rrf_k=5", "retrieval.rrf_k=7"]).retrieval.rrf_k == 7
    # --config still takes a preset name
    assert settings_for(tmp_path, Path("consumer-questions")).answer.key_terms == "warn"


def test_bad_overrides_are_one_line_naming_the_option(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as e:
        settings_for(tmp_path, sets=["retrieval.dense_weight=0", "retrieval.bm25_weight=0"])
    assert str(e.value) == ("--set retrieval.dense_weight=0 and --set retrieval.bm25_weight=0: invalid value for "
                            "retrieval: dense_weight and bm25_weight cannot both be 0")
    with pytest.raises(ConfigError) as e:
        settings_for(tmp_path, chunker="bogus")
    assert str(e.value) == ("--chunker bogus: invalid value for chunking.strategy: Input should be 'hierarchical', "
                            "'fixed', 'section' or 'hybrid'")
    with pytest.raises(ConfigError) as e:
        settings_for(tmp_path, sets=["retrieval=1"])
    assert str(e.value).startswith("--set retrieval=1: 'retrieval' is a section, not a setting (it has: dense_k, ")
    shipped = r"clinician-shorthand, consumer-questions, exact-ingest, fast-ingest, patient-notes, rrf-fusion"
    with pytest.raises(ConfigError, match=rf"^unknown preset 'nope' \(shipped: {shipped}\)$"):
        settings_for(tmp_path, preset="nope")


@pytest.mark.parametrize(("args", "message"), [
    (["--set", "retrieval.rrf=10"],
     "error: --set retrieval.rrf=10: unknown setting 'retrieval.rrf' (retrieval has: dense_k, bm25_k, fusion, rrf_k, "
     "dense_weight, bm25_weight, top_k, document_weight, document_k, exclude_levels, keep_undated, parse_time, "
     "recency_weight, expand_synonyms, copy_threshold, repair_spelling)"),
    (["--set", "retrieval.rrf_k=ten"],
     "error: --set retrieval.rrf_k=ten: invalid value for retrieval.rrf_k: Input should be a valid integer, "
     "unable to parse string as an integer"),
    (["--set", "retrieval.rrf_k=0"],
     "error: --set retrieval.rrf_k=0: invalid value for retrieval.rrf_k: Input should be greater than or equal to 1"),
    (["--preset", "nope"],
     "error: unknown preset 'nope' (shipped: clinician-shorthand, consumer-questions, exact-ingest, fast-ingest, "
     "patient-notes, rrf-fusion)"),
])
def test_cli_rejects_bad_overrides_with_exit_2(tmp_path: Path, args: list[str], message: str) -> None:
    for command in (["stats"], ["search", "sepsis"], ["ask", "sepsis?"]):
        r = _run(*command, *args, "--data-dir", str(tmp_path))
        assert r.exit_code == 2, (command, r.output)
        assert r.stderr.strip() == message and r.stdout == ""


def _commands(group: typer.Typer) -> dict[str, object]:
    """Every leaf command of the app as ``{"eval retrieval": click command}``."""
    from typer.main import get_command

    out: dict[str, object] = {}

    def walk(cmd: object, prefix: str) -> None:
        subs = getattr(cmd, "commands", None)
        if subs:
            for name, sub in subs.items():
                walk(sub, f"{prefix} {name}".strip())
        else:
            out[prefix] = cmd

    walk(get_command(group), "")
    return out


def test_every_command_that_builds_settings_takes_set_and_preset() -> None:
    commands = _commands(app)
    with_config = sorted(n for n, c in commands.items() if any("--config" in p.opts for p in c.params))
    # all 28 commands but `eval report` and `eval compare`, which read run folders, `train export`, which
    # converts a model folder, and `train answer-model`, which trains from a pairs file
    assert len(with_config) == 24
    for name in with_config:
        opts = {o for p in commands[name].params for o in p.opts}
        assert {"--set", "--preset", "--data-dir"} <= opts, name
    assert sorted(set(commands) - set(with_config)) == ["eval compare", "eval report", "train answer-model",
                                                        "train export"]


# -- through the commands --------------------------------------------------------------------------

def test_set_reaches_the_pipeline_of_ask(store: Path) -> None:
    r = _run("ask", SEPSIS, "--json", "--data-dir", str(store))
    assert r.exit_code == 0, r.output
    plain = json.loads(r.stdout)
    assert plain["refused"] is False and plain["citations"][0]["doc_id"] == "docs/sepsis"
    r = _run("ask", SEPSIS, "--json", "--data-dir", str(store), "--set", "answer.refusal_threshold=0.99")
    assert r.exit_code == 0, r.output
    strict = json.loads(r.stdout)
    assert strict["gate"]["threshold"] == 0.99 and strict["refused"] is True
    assert strict["gate"]["signal"] == pytest.approx(plain["gate"]["signal"], abs=1e-6)
    # search -k is a daily flag; --set retrieval.bm25_k=1 keeps BM25 to one candidate
    r = _run("search", "serum urate allopurinol", "--json", "--data-dir", str(store), "--set", "retrieval.bm25_k=1",
             "--set", "retrieval.dense_k=1")
    assert r.exit_code == 0, r.output
    hits = json.loads(r.stdout)["hits"]
    assert len(hits) == 1 and hits[0]["doc_id"] == "docs/gout"
    # the fused score is "score" (convex by default); "rrf" keeps the same number for older clients. One
    # chunk, first in each list of one (normalised 1 + 1), of the document first in the document list
    # (weight 0.4 x 1): 2.4
    assert hits[0]["score"] == hits[0]["rrf"] == pytest.approx(2.4)


def test_preset_patient_notes(store: Path, tmp_path: Path) -> None:
    path = PRESETS_DIR / "patient-notes.yaml"
    raw = yaml.safe_load(path.read_text())
    s = settings_for(tmp_path, preset="patient-notes")
    for section, fields in raw.items():
        for name, value in fields.items():
            assert getattr(getattr(s, section), name) == value, (section, name)
    # the preset leaves the gate to the calibrations (one per scope); a threshold here would override both
    assert s.answer.refusal_threshold is None and s.answer.key_term_max_zipf is None
    assert s.answer.related_threshold is None
    # a patient-scoped question under the preset is gated by the shipped patient calibration (dense floor 0.20)
    r = _run("ask", "What SGLT2 inhibitor was started?", "--patient", "P1", "--json", "--preset", "patient-notes",
             "--data-dir", str(store))
    assert r.exit_code == 0, r.output
    ans = json.loads(r.stdout)
    assert ans["gate"]["threshold"] == 0.2 and ans["refused"] is False
    assert {c["doc_id"] for c in ans["citations"]} == {"note:P1:N1"}  # never the other patient's note
    # warfarin is in P2's notes only: for P1 the key-term test refuses and names it
    r = _run("ask", "Why was warfarin stopped?", "--patient", "P1", "--json", "--preset", "patient-notes",
             "--data-dir", str(store))
    ans = json.loads(r.stdout)
    assert ans["refused"] is True and "warfarin" in ans["reason"]
    assert all(c["doc_id"] != "note:P2:N1" for c in ans["citations"])


# -- the error wrapper -----------------------------------------------------------------------------

def _app_raising(exc: BaseException, *also: type[Exception]) -> typer.Typer:
    demo = typer.Typer()

    @demo.command()
    @handle_errors(*also)
    def eval_retrieval(x: int = 1) -> None:
        """Raises ``exc``."""
        raise exc

    @demo.command()
    def other() -> None:
        """A second command, so that the first keeps its name."""

    return demo


def test_error_wrapper_turns_clinqa_errors_into_one_line_and_exit_2() -> None:
    r = CliRunner().invoke(_app_raising(ClinqaError("data/x.md: empty file")), ["eval-retrieval"])
    assert (r.exit_code, r.stderr, r.stdout) == (2, "error: data/x.md: empty file\n", "")
    r = CliRunner().invoke(_app_raising(KeyError("no query 'abc' in the log"), KeyError), ["eval-retrieval"])
    assert (r.exit_code, r.stderr) == (2, "error: no query 'abc' in the log\n")  # no quotes around a KeyError
    # an exception not named passes unchanged (a bug, with its traceback)
    r = CliRunner().invoke(_app_raising(ValueError("bug")), ["eval-retrieval"])
    assert r.exit_code == 1 and isinstance(r.exception, ValueError)


def test_error_wrapper_names_a_missing_extra_and_reraises_a_missing_core_module() -> None:
    missing = ModuleNotFoundError("No module named 'ir_measures'", name="ir_measures")
    r = CliRunner().invoke(_app_raising(missing), ["eval-retrieval"])
    assert r.exit_code == 2
    assert r.stderr == ("error: clinqa eval retrieval needs ir-measures, which is not installed: "
                        "pip install 'clinqa[eval]'\n")
    core = ModuleNotFoundError("No module named 'numpy'", name="numpy")
    r = CliRunner().invoke(_app_raising(core), ["eval-retrieval"])
    assert r.exit_code == 1 and r.exception is core


def test_exit_codes_of_the_commands_are_unchanged(store: Path, tmp_path: Path) -> None:
    r = _run("remove", "no-such-doc", "--data-dir", str(store))
    assert (r.exit_code, r.stderr) == (1, "error: no document 'no-such-doc' in the store\n")
    r = _run("ask", "   ", "--data-dir", str(store))
    assert (r.exit_code, r.stderr) == (2, "error: the question is empty\n")
    r = _run("ingest", str(tmp_path / "missing.md"), "--data-dir", str(store))
    assert (r.exit_code, r.stderr) == (2, f"error: {tmp_path / 'missing.md'}: no such file or directory\n")
    r = _run("migrate", "--to", "elastic", "--data-dir", str(store))
    assert (r.exit_code, r.stderr) == (2, "error: --to 'elastic': the only targets are 'qdrant' and 'qdrant-edge'\n")


def test_python_dash_m_clinqa_runs_the_cli() -> None:
    import subprocess

    for module in ("clinqa", "clinqa.cli"):
        r = subprocess.run([sys.executable, "-m", module, "--help"], capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr
        assert "clinqa: answers from your clinical corpus" in r.stdout and "ingest" in r.stdout
