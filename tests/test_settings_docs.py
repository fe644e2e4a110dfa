"""Every shipped preset loads through the settings loader and changes what its README says; docs/settings.md
names every field of ``Settings`` (issue 48, item 6: paper-qa loads every bundled config in a test)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from clinqa.settings import PRESETS_DIR, Settings, available_presets, load_settings

ROOT = Path(__file__).resolve().parents[1]

#: what each preset sets, as src/clinqa/presets/README.md's table says ("what it changes"), dotted
PRESET_VALUES: dict[str, dict[str, Any]] = {
    "clinician-shorthand": {"answer.decisive_words": "model"},
    "consumer-questions": {"answer.key_terms": "warn"},
    "exact-ingest": {"embedding.precision": "full", "embedding.unit_vectors": "separate"},
    "fast-ingest": {"embedding.precision": "int8", "embedding.unit_vectors": "late"},
    "patient-notes": {"retrieval.parse_time": True, "retrieval.copy_threshold": 0.8, "answer.key_terms": "refuse",
                      "generation.screen_identifiers": True, "answer.refusal_threshold": None},
    "rrf-fusion": {"retrieval.fusion": "rrf", "retrieval.rrf_k": 20, "retrieval.dense_weight": 1.0,
                   "retrieval.bm25_weight": 1.2, "retrieval.document_weight": 0.3},
}
#: the values a preset pins at today's default, so they change nothing: patient-notes' (README: "(today's
#: defaults)"), rrf-fusion's k 20 and dense weight 1.0 (the convex rule's dense weight is 1.0 as well)
PINNED_DEFAULTS: dict[str, set[str]] = {
    "patient-notes": set(PRESET_VALUES["patient-notes"]),
    "rrf-fusion": {"retrieval.rrf_k", "retrieval.dense_weight"},
    # since issue 51 the ingest default is int8 with late units: fast-ingest pins the unit vectors at it
    "fast-ingest": {"embedding.unit_vectors"},
}


def _get(settings: BaseModel, dotted: str) -> Any:
    value: Any = settings
    for part in dotted.split("."):
        value = getattr(value, part)
    return value


def _fields(model: type[BaseModel], prefix: str = "") -> Iterator[str]:
    """Every leaf field of ``model`` as a dotted name ("answer.scoring.max_words"), nested models walked."""
    for name, field in model.model_fields.items():
        ann = field.annotation
        if isinstance(ann, type) and issubclass(ann, BaseModel):
            yield from _fields(ann, f"{prefix}{name}.")
        else:
            yield f"{prefix}{name}"


def test_the_presets_are_those_of_the_readme() -> None:
    readme = (PRESETS_DIR / "README.md").read_text(encoding="utf-8")
    in_table = re.findall(r"^\| `([a-z0-9-]+)` \|", readme, re.M)
    assert available_presets() == sorted(in_table) == sorted(PRESET_VALUES)


@pytest.mark.parametrize("name", sorted(PRESET_VALUES))
def test_every_preset_loads_and_sets_what_its_readme_says(name: str, tmp_path: Path) -> None:
    defaults = load_settings(data_dir=tmp_path)
    settings = load_settings(preset=name, data_dir=tmp_path)
    for dotted, value in PRESET_VALUES[name].items():
        assert _get(settings, dotted) == value, dotted
    changed = {d for d in _fields(Settings) if _get(settings, d) != _get(defaults, d)}
    # exactly what the README lists, less what it pins at the default, and nothing else
    assert changed == set(PRESET_VALUES[name]) - PINNED_DEFAULTS.get(name, set())
    assert changed or name == "patient-notes"


@pytest.mark.parametrize("name", sorted(PRESET_VALUES))
def test_every_preset_loads_as_a_config_name_too(name: str, tmp_path: Path) -> None:
    assert load_settings(Path(name), data_dir=tmp_path) == load_settings(preset=name, data_dir=tmp_path)


def test_settings_doc_names_every_field() -> None:
    doc = (ROOT / "docs" / "settings.md").read_text(encoding="utf-8")
    fields = list(_fields(Settings))
    assert len(fields) == 124
    missing = [f for f in fields if f"`{f}`" not in doc]
    assert missing == []


def test_settings_doc_table_names_no_field_that_does_not_exist() -> None:
    doc = (ROOT / "docs" / "settings.md").read_text(encoding="utf-8")
    table = doc.split("## Every setting", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `([a-z_.0-9]+)` \|", table, re.M)
    assert rows == list(_fields(Settings))  # one row each, in the order of settings.py
