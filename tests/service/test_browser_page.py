"""The web page's empty state, shareable questions and highlights in a real headless Chromium (Debian's
/usr/bin/chromium driven by Playwright, as tests/service/test_browser.py) against the app served by uvicorn:
three example questions from the ingested guidelines (never a patient's note), clickable; what the store
holds for the key (documents, sources, years) with the list of its documents; ``?q=`` asks on load and
asking puts the question in the URL; every stretch of a quote highlighted in the opened passage (a list
quoted item by item with its lead-in, a table row with its headers), a character outside the BMP before
the quote included.

Skipped only when /usr/bin/chromium is absent."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

import pytest
from service_data import KEYS, headers, settings_for
from test_browser import CHROMIUM, Served, _enter_key, _phone_page

from clinqa.pipeline import Pipeline
from clinqa.service.app import create_app, highlight_spans

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not installed at "
                                "/usr/bin/chromium (apt-get install chromium); the browser test needs it")

DOSE_GUIDE = """# Anticoagulation in atrial fibrillation

## Dosing

\U0001fa7a Usual doses for stroke prevention in adults:

- Apixaban 5 mg BID
- Dabigatran 150 mg BID
- Rivaroxaban 20 mg once daily with the evening meal

## Dose reduction

| Drug | Reduced dose |
|---|---|
| Apixaban | 2.5 mg BID |
| Rivaroxaban | 15 mg once daily |
"""


def _get(served: Served, path: str, key: str) -> Any:
    req = urllib.request.Request(served.url + path, headers=headers(key))
    with urllib.request.urlopen(req, timeout=60) as r:
        return json.loads(r.read())


def _watch(page: Any) -> tuple[list[str], list[str]]:
    """Errors the page logs and responses of 400 and above."""
    errors: list[str] = []
    failed: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("response", lambda r: failed.append(f"{r.status} {r.url}") if r.status >= 400 else None)
    return errors, failed


def test_examples_and_store_summary_on_an_empty_page(browser: Any, served: Served) -> None:
    page = _phone_page(browser)
    errors, failed = _watch(page)
    page.goto(served.url + "/")
    assert page.get_by_test_id("examples").is_hidden()  # keys are required: nothing is read before one is given
    _enter_key(page, "p1")  # a key that may read P1's notes: still no note is an example

    expected = _get(served, "/examples", "p1")["examples"]
    assert len(expected) == 3 and len({e["doc_id"] for e in expected}) == 3
    assert all(e["answered"] and not e["doc_id"].startswith("note:") for e in expected)
    assert expected == _get(served, "/examples", "none")["examples"]  # the same for every key
    buttons = page.get_by_test_id("example")
    buttons.first.wait_for()
    assert buttons.all_inner_texts() == [e["question"] for e in expected]
    assert all(b.evaluate("e => e.tagName") == "BUTTON" for b in buttons.all())
    assert page.get_by_role("button", name=expected[1]["question"]).is_visible()
    examples_text = page.get_by_test_id("examples").inner_text()
    for word in ("P1", "P2", "Apixaban", "atrial", "warfarin", "HPI", "note"):
        assert word.lower() not in examples_text.lower(), word

    # what the store holds for this key: the guidelines and P1's two notes
    summary = page.get_by_test_id("store-summary")
    summary.filter(has_text="documents").wait_for()
    assert summary.inner_text() == ("5 documents from 4 sources (notes: 2, AAFP: 1, ACC/AHA: 1, NICE: 1), dated "
                                    "2014\u20132024; notes of 1 patient this key may read.")
    doc_list = page.get_by_test_id("document-list")
    doc_list.locator("summary").click()
    items = page.get_by_test_id("document")
    items.nth(4).wait_for()
    listed = items.all_inner_texts()
    assert "Acute bronchitis (2019, NICE)" in listed and len(listed) == 5
    assert not any("P2" in t for t in listed)
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")

    # an example is asked when clicked; the question goes into the URL; the examples make room for the answer
    with page.expect_response(lambda r: r.url.endswith("/ask")) as resp_info:
        buttons.nth(1).click()
    asked = resp_info.value.request.post_data_json
    assert asked == {"question": expected[1]["question"], "conversation": True}  # each starts a conversation
    answer = resp_info.value.json()
    assert not answer["refused"]
    page.get_by_test_id("answer").get_by_test_id("cite-1").wait_for()
    assert page.get_by_test_id("question").input_value() == expected[1]["question"]
    assert parse_qs(urlsplit(page.url).query) == {"q": [expected[1]["question"]]}
    assert page.get_by_test_id("examples").is_hidden()

    # another key: the summary counts only what it may see
    page.get_by_test_id("api-key").fill(KEYS["none"][0])
    page.get_by_test_id("save-key").click()
    summary.filter(has_text="3 documents").wait_for()
    assert summary.inner_text() == "3 documents from 3 sources (AAFP: 1, ACC/AHA: 1, NICE: 1), dated 2014\u20132019."
    assert errors == [] and failed == []
    page.context.close()


def test_a_question_in_the_url_is_asked_on_load(browser: Any, served: Served) -> None:
    question = "How long does the cough last after acute bronchitis?"
    link = f"{served.url}/?q={quote(question)}&since=2015"
    # no key saved yet: the page fills the question in, says a key is needed and asks once one is saved
    page = _phone_page(browser)
    errors, failed = _watch(page)
    page.goto(link)
    assert page.get_by_test_id("question").input_value() == question
    assert "API key" in page.get_by_test_id("status").inner_text()
    page.get_by_test_id("api-key").fill("not-a-key-0123456789")
    page.get_by_test_id("save-key").click()
    page.get_by_test_id("status").filter(has_text="accepted").wait_for()  # still waiting for a key
    assert failed == [f"401 {served.url}/whoami"] and all("401" in e for e in errors), (failed, errors)
    failed.clear()
    errors.clear()
    with page.expect_response(lambda r: r.url.endswith("/ask")) as resp_info:
        _enter_key(page, "none")
    assert resp_info.value.request.post_data_json == {"question": question, "since": 2015, "conversation": True}
    page.get_by_test_id("answer").filter(has_text="persist for 4 weeks").wait_for()
    assert page.get_by_test_id("since").input_value() == "2015"
    assert page.get_by_test_id("examples").is_hidden()

    # the key is saved on this device now: opening the link asks at once
    with page.expect_response(lambda r: r.url.endswith("/ask")) as resp_info:
        page.goto(link)
    assert resp_info.value.request.post_data_json == {"question": question, "since": 2015, "conversation": True}
    page.get_by_test_id("answer").filter(has_text="persist for 4 weeks").wait_for()

    # a question asked on the page replaces the one in the URL (filters too; never the patient)
    page.get_by_test_id("since").fill("")
    page.get_by_test_id("question").fill("Should beta-blockers be started on the day of surgery?")
    with page.expect_response(lambda r: r.url.endswith("/ask")):
        page.get_by_test_id("ask").click()
    page.get_by_test_id("answer").filter(has_text="Beta-blockers").wait_for()
    assert parse_qs(urlsplit(page.url).query) == {"q": ["Should beta-blockers be started on the day of surgery?"]}
    assert errors == [] and failed == []
    page.context.close()


@pytest.fixture(scope="module")
def dose_served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Served, Pipeline]]:
    """A store of one guideline whose doses are a list under a lead-in and a table."""
    corpus = tmp_path_factory.mktemp("dose-corpus")
    (corpus / "af.md").write_text(DOSE_GUIDE)
    pipe = Pipeline(settings_for(tmp_path_factory.mktemp("dose-store")))
    report = pipe.ingest([corpus], progress=False)
    assert report.failed == [] and report.documents == 1
    with Served(create_app(pipe.settings, pipe)) as s:
        yield s, pipe


def test_every_quoted_stretch_is_highlighted(browser: Any, dose_served: tuple[Served, Pipeline]) -> None:
    """The dose line "5 mg BID" and the other items of the list, each quoted with the list's lead-in, are
    all marked, not only the first stretch; a table row quoted with its column headers marks its cells."""
    served, pipe = dose_served
    page = _phone_page(browser)
    errors, failed = _watch(page)
    page.goto(served.url + "/")
    _enter_key(page, "none")
    page.get_by_test_id("question").fill("What is the dose of apixaban for stroke prevention?")
    with page.expect_response(lambda r: r.url.endswith("/ask")) as resp_info:
        page.get_by_test_id("ask").click()
    answer = resp_info.value.json()
    assert not answer["refused"] and "5 mg BID" in answer["answer"]
    dose_cites = [c for c in answer["citations"] if "5 mg BID" in c["quote"]]
    assert dose_cites
    for c in answer["citations"]:
        page.get_by_test_id("answer").get_by_test_id(f"cite-{c['n']}").click()
        passage = page.get_by_test_id("passage")
        passage.get_by_test_id("passage-title").filter(has_text=f"[{c['n']}]").wait_for()
        passage.get_by_test_id("highlight").first.wait_for()
        body = pipe.store.get_chunks([c["chunk_id"]])[0].body
        expected = [body[s:e] for s, e in highlight_spans(body, c["quote"])]
        marks = passage.get_by_test_id("highlight").all_inner_texts()
        assert marks == expected, (c["quote"], marks)
        # every word and number of the quote is marked, but for a table's column headers
        marked = " ".join(marks).lower()
        headers_row = body.splitlines()[0].lower() if body.lstrip().startswith("|") else ""
        for word in set(c["quote"].lower().replace(";", " ").replace(":", " ").split()) - {"\U0001fa7a"}:
            assert word in marked or word in headers_row, (word, marks)
        assert passage.get_by_test_id("passage-note").is_hidden()
    first = next(c for c in dose_cites if "Usual doses" in c["quote"])
    page.get_by_test_id("answer").get_by_test_id(f"cite-{first['n']}").click()
    page.get_by_test_id("passage").get_by_test_id("passage-title").filter(has_text=f"[{first['n']}]").wait_for()
    marks = page.get_by_test_id("passage").get_by_test_id("highlight").all_inner_texts()
    assert marks[:2] == ["Usual doses for stroke prevention in adults:", "Apixaban 5 mg BID"]  # after the emoji
    assert len(marks) >= 3 and "Dabigatran 150 mg BID" in marks
    assert errors == [] and failed == []
    page.context.close()
