"""Fixtures of the service tests: one small real store for the whole folder (see service_data)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from service_data import GUIDES, NOTES, REGISTRY, settings_for

from clinqa.pipeline import Pipeline
from clinqa.service.app import create_app


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


@pytest.fixture(scope="module")
def client(service_pipe: Pipeline) -> Iterator[TestClient]:
    with TestClient(create_app(service_pipe.settings, service_pipe)) as c:
        yield c


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's Chromium through Playwright, one per test module (the browser tests skip without it)."""
    from playwright.sync_api import sync_playwright
    from test_browser import CHROMIUM, CHROMIUM_ARGS

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture(scope="module")
def served(service_pipe: Pipeline) -> Iterator[Any]:
    """The service over ``service_pipe`` on a free local port (``test_browser.Served``), one per test module."""
    from test_browser import Served

    from clinqa.service.app import create_app

    with Served(create_app(service_pipe.settings, service_pipe)) as s:
        yield s
