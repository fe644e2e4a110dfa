"""Fixtures of the service tests: one small real store for the whole folder (see service_data)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from service_data import GUIDES, NOTES, REGISTRY, settings_for

from clinqa.pipeline import Pipeline


@pytest.fixture(scope="session")
def service_corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("service-corpus")
    g = d / "guides"
    g.mkdir()
    for name, text in GUIDES.items():
        (g / name).write_text(text)
    (g / "registry.json").write_text(json.dumps(REGISTRY))
    (d / "notes.jsonl").write_text("".join(json.dumps(n) + "\n" for n in NOTES))
    return d


@pytest.fixture(scope="session")
def service_pipe(tmp_path_factory: pytest.TempPathFactory, service_corpus: Path) -> Pipeline:
    """The ingested store (one per test session of this folder)."""
    p = Pipeline(settings_for(tmp_path_factory.mktemp("service-store")))
    report = p.ingest([service_corpus / "guides", service_corpus / "notes.jsonl"], progress=False)
    assert report.failed == [] and report.documents == len(GUIDES) + len(NOTES)
    return p
