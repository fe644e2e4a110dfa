"""The web page in a real headless Chromium (Debian's /usr/bin/chromium driven by Playwright) against
the app served for real by uvicorn on a free 127.0.0.1 port: enter a key, ask, open a citation (the
passage appears in its section with the quote in <mark>), grade the answer and read the grade back;
a refusal (its sentence once, topics once, the gate numbers in a <details>), one with related passages
that open in the page; a generated answer with its checked sentences, warnings and tokens.

Skipped only when /usr/bin/chromium is absent. A screenshot of the answered page goes to
``$CLINQA_SCREENSHOT`` when set (else the test's tmp folder)."""

from __future__ import annotations

import os
import re
import socket
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from chat_server import ChatServer
from service_data import KEYS

from clinqa.answer.types import Answer
from clinqa.cache import _answer_state, answer_key, build_cache, cache_filters
from clinqa.cli.render import refusal_sentence, related_items, source_groups
from clinqa.logs.querylog import QueryLog
from clinqa.pipeline import Pipeline
from clinqa.service.app import create_app

CHROMIUM = Path("/usr/bin/chromium")
pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not installed at "
                                "/usr/bin/chromium (apt-get install chromium); the browser test needs it")
CHROMIUM_ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
TIMEOUT_MS = 30_000


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Served:
    """The app served by uvicorn in a background thread on a free port."""

    def __init__(self, app: Any) -> None:
        import uvicorn

        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning",
                                                    lifespan="on"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> Served:
        self.thread.start()
        deadline = time.monotonic() + 60
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.05)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


def _phone_page(browser: Any) -> Any:
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True,
                              has_touch=True)
    page = ctx.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    return page


def _enter_key(page: Any, name: str) -> None:
    page.get_by_test_id("api-key").fill(KEYS[name][0])
    page.get_by_test_id("save-key").click()
    page.get_by_test_id("key-status").filter(has_text=f"Key accepted: {name}").wait_for()


def test_ask_open_citation_and_send_feedback(browser: Any, served: Served, service_pipe: Pipeline,
                                             tmp_path: Path) -> None:
    t0 = time.monotonic()
    page = _phone_page(browser)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    failed: list[str] = []
    page.on("response", lambda r: failed.append(f"{r.status} {r.url}") if r.status >= 400 else None)
    page.goto(served.url + "/")
    assert page.title().startswith("clinqa")
    _enter_key(page, "all")
    assert "every patient" in page.get_by_test_id("patient-hint").text_content()

    question = "How long does the cough last after acute bronchitis?"
    page.get_by_test_id("question").fill(question)
    with page.expect_response(lambda r: r.url.endswith("/ask")) as resp_info:
        page.get_by_test_id("ask").click()
    answer_json = resp_info.value.json()
    query_id = answer_json["query_id"]
    answer = page.get_by_test_id("answer")
    answer.get_by_test_id("cite-1").wait_for()
    assert "persist for 4 weeks" in answer.inner_text()
    assert page.get_by_test_id("mode").inner_text().startswith("Answer quoted from the sources")
    assert page.get_by_test_id("sources").get_by_test_id("source-1").is_visible()
    # one column on a phone: nothing wider than the screen
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    shot = Path(os.environ.get("CLINQA_SCREENSHOT") or tmp_path / "answer.png")
    shot.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 10_000

    # open the cited passage: shown in its section, the quote highlighted
    cite = next(c for c in answer_json["citations"] if c["n"] == 1)
    answer.get_by_test_id("cite-1").click()
    passage = page.get_by_test_id("passage")
    passage.get_by_test_id("highlight").first.wait_for()
    assert passage.get_by_test_id("passage-section").inner_text() == cite["section"]
    marks = passage.locator("mark").all_inner_texts()
    assert marks and all(" ".join(m.split()) in " ".join(cite["quote"].split()) for m in marks)
    assert " ".join("".join(marks).split()) == " ".join(cite["quote"].split())
    assert passage.get_by_test_id("passage-title").inner_text().startswith("[1] Acute bronchitis")
    if not cite["chunk_id"].endswith("#0"):  # a neighbour before it, in the same section
        assert passage.locator(".context").count() >= 1
    shot_passage = shot.with_name(shot.stem + "-passage" + shot.suffix)
    page.screenshot(path=str(shot_passage), full_page=True)

    # feedback: Acceptable + comment + category, then the page reads it back
    fb = page.get_by_test_id("feedback")
    assert fb.get_by_test_id("feedback-submit").is_disabled()
    fb.get_by_test_id("feedback-acceptable").click()
    assert fb.get_by_test_id("feedback-acceptable").get_attribute("aria-pressed") == "true"
    fb.get_by_test_id("feedback-comment").fill("Good quote, but <b>no</b> duration range")
    fb.get_by_test_id("feedback-category").select_option("content_missing")
    fb.get_by_test_id("feedback-submit").click()
    confirm = fb.get_by_test_id("feedback-confirmation")
    confirm.filter(has_text="Recorded").wait_for()
    text = confirm.inner_text()
    assert "Acceptable (0.6)" in text and "content missing" in text and "<b>no</b> duration range" in text
    assert confirm.locator("b").count() == 0  # shown as text, not markup
    logged = QueryLog.for_pipeline(service_pipe).get(query_id)
    assert logged["source"] == "web" and logged["api_key_name"] == "all" and logged["question"] == question
    assert [(f["score"], f["comment"], f["category"]) for f in logged["feedback"]] == [
        (0.6, "Good quote, but <b>no</b> duration range", "content_missing")]

    # sources numbered once: the list is not an <ol> (its [n] buttons are the numbers), every [n]
    # appears once, and passages of one section are one item ("[1] [2] Acute bronchitis")
    sources = page.get_by_test_id("sources")
    assert sources.evaluate("e => e.tagName") == "UL"
    assert sources.evaluate("e => getComputedStyle(e).listStyleType") == "none"
    cites = answer_json["citations"]
    assert sorted(int(n) for n in re.findall(r"\[(\d+)\]", sources.inner_text())) == sorted(c["n"] for c in cites)
    assert not re.search(r"\d\.\s*\[\d", sources.inner_text())
    assert sources.locator("li").count() == len(source_groups(cites))
    first_group = source_groups(cites)[0]
    assert sources.get_by_test_id("source-1").inner_text().startswith(
        " ".join(f"[{c['n']}]" for c in first_group) + " Acute bronchitis")

    # a refusal: its sentence once; topics (only when the search found some) each once; the gate
    # numbers only in a closed <details>
    page.get_by_test_id("question").fill("How do I change a car tyre?")
    with page.expect_response(lambda r: r.url.endswith("/ask")) as resp_info:
        page.get_by_test_id("ask").click()
    refused = resp_info.value.json()
    assert refused["refused"]
    page.get_by_test_id("refusal").wait_for()
    _check_refusal(page, refused)
    assert page.get_by_test_id("passage").is_hidden() and page.get_by_test_id("sources").locator("li").count() == 0

    # a key limited to P1: the patient field offers P1; a P2 question is refused with 403 on the page
    page.get_by_test_id("api-key").fill(KEYS["p1"][0])
    page.get_by_test_id("save-key").click()
    page.get_by_test_id("key-status").filter(has_text="Key accepted: p1").wait_for()
    page.get_by_test_id("filters").locator("summary").click()
    page.get_by_test_id("patient").fill("P2")
    page.get_by_test_id("question").fill("Which anticoagulant was started?")
    page.get_by_test_id("ask").click()
    page.get_by_test_id("status").filter(has_text="403").wait_for()
    status = page.get_by_test_id("status").inner_text()
    assert "may not read the notes of that patient" in status and "P2" not in status  # no 403 names a patient
    page.get_by_test_id("patient").fill("P1")
    page.get_by_test_id("ask").click()
    page.get_by_test_id("answer").filter(has_text="Apixaban").wait_for()
    assert page.evaluate("localStorage.getItem('clinqa.apiKey')") == KEYS["p1"][0]
    assert failed == [f"403 {served.url}/ask"], failed  # only the P2 question was refused
    assert all("403" in e for e in errors), errors  # the browser logs that refusal; nothing else
    print(f"browser test: {time.monotonic() - t0:.1f} s; screenshot {shot}")


def _check_refusal(page: Any, refused: dict[str, Any]) -> None:
    """The refusal on the page says its sentence once, lists each related topic once as
    "title — last heading" (none when ``related``/``related_topics`` are empty) and keeps the gate
    signal and threshold in a closed ``<details>``."""
    sentence = refusal_sentence(refused)
    assert page.get_by_test_id("refusal-reason").inner_text() == sentence
    shown = page.get_by_test_id("result").inner_text()
    assert shown.count(sentence) == 1 and "Why:" not in shown
    expected = [f"{t} — {s}" if s else t for t, s in related_items(refused)]
    topics = page.get_by_test_id("related-topic")
    assert topics.all_inner_texts() == expected
    assert page.get_by_test_id("topics-box").is_visible() == bool(expected)
    for label in expected:
        assert shown.count(label) == 1, label
    details = page.get_by_test_id("gate-details")
    assert details.evaluate("e => e.tagName") == "DETAILS" and details.get_attribute("open") is None
    gate_text = page.get_by_test_id("gate-text").text_content()
    signal = refused["gate"].get("signal")
    if signal is not None:
        number = f"{signal:.3f}"
        assert number in gate_text and f"{refused['gate']['threshold']:.3f}" in gate_text
        if number not in sentence:  # the pipeline's reason may still carry it; the page adds it nowhere else
            assert number not in shown
    details.locator("summary").click()
    assert page.get_by_test_id("gate-text").is_visible()


def test_refusal_with_related_passages(browser: Any, served: Served, service_pipe: Pipeline,
                                       tmp_path: Path) -> None:
    """A refusal in the shape the answer stage returns (reason sentence, ``related`` passages of the
    store with their chunk ids, one of them twice), served through the real answer cache: each
    topic shown once with its last heading, aligned under its bullet, opening its passage."""
    question = "What is the dose of amoxicillin for otitis media in children?"
    filters = service_pipe.filters()
    hits = service_pipe.search("amoxicillin otitis treatment antibiotics bronchitis", filters).hits
    first = next(h.chunk for h in hits if h.chunk.doc_id == "otitis")
    other = next(h.chunk for h in hits if h.chunk.doc_id == "bronchitis")
    related = [{"title": c.title, "section": c.section_path[-1], "chunk_id": c.chunk_id, "doc_id": c.doc_id}
               for c in (first, other, first)]
    reason = "The documents do not mention children."
    answer = Answer(question, True, reason, filters.to_dict(), [],
                    [f"{r['title']} > {r['section']}" for r in related], reason, "refusal",
                    {"answer": False, "signal": 0.3512, "threshold": 0.376, "kind": "dense_cosine",
                     "calibration": "shipped", "reason": reason},
                    related=related, missing_terms=["children"])
    cache = build_cache(service_pipe.settings)
    assert cache is not None
    key = answer_key(question, cache_filters(filters), _answer_state(service_pipe, question),
                     service_pipe.corpus_version())
    cache.put_answer(key, answer.to_dict())

    page = _phone_page(browser)
    page.goto(served.url + "/")
    _enter_key(page, "none")
    page.get_by_test_id("question").fill(question)
    with page.expect_response(lambda r: r.url.endswith("/ask")) as resp_info:
        page.get_by_test_id("ask").click()
    got = resp_info.value.json()
    # the response model adds note_date (null for a guideline) to each related topic
    assert got["cache_hit"] and [{k: v for k, v in r.items() if k != "note_date"} for r in got["related"]] == [
        {k: v for k, v in r.items() if k != "note_date"} for r in related] and got["missing_terms"] == ["children"]
    page.get_by_test_id("refusal").wait_for()
    _check_refusal(page, got)
    labels = page.get_by_test_id("related-topic").all_inner_texts()
    assert labels == ["Acute otitis media — Treatment", "Acute bronchitis — " + other.section_path[-1]]
    assert "children" not in page.get_by_test_id("warnings").inner_text()  # the caution is for answers only
    # each bullet on the first line of its item: the marker's top is the item's top
    tops = page.evaluate("""[...document.querySelectorAll('#topics li')].map(li => {
        const a = li.querySelector('a').getBoundingClientRect(); const r = li.getBoundingClientRect();
        return [Math.round(a.top - r.top), Math.round(a.left - r.left)]; })""")
    assert all(t <= 2 for t, _ in tops) and len({x for _, x in tops}) == 1
    shot = Path(os.environ.get("CLINQA_SCREENSHOT") or tmp_path / "answer.png")
    shot = shot.with_name(shot.stem.replace("answer", "") + "refusal" + shot.suffix)
    page.screenshot(path=str(shot), full_page=True)
    page.get_by_test_id("related-topic").first.click()
    passage = page.get_by_test_id("passage")
    passage.get_by_test_id("passage-section").wait_for()
    assert passage.get_by_test_id("passage-title").inner_text().startswith("Acute otitis media")
    assert passage.get_by_test_id("passage-section").inner_text() == first.section
    assert "amoxicillin 500 mg" in passage.get_by_test_id("passage-body").inner_text()


def test_generated_answer_on_the_page(browser: Any, service_pipe: Pipeline, chat_server: ChatServer) -> None:
    s = service_pipe.settings.model_copy(update={"llm": service_pipe.settings.llm.model_copy(update={
        "backend": "openai", "base_url": chat_server.url, "model": "gpt-4o-mini", "max_retries": 0, "timeout_s": 5})})
    pipe = Pipeline(s)
    pipe._encoder = service_pipe.encoder

    def responder(req: dict) -> str:
        user = req["messages"][-1]["content"]
        n = re.search(r"\[(\d+)\] [^\n]*\n[^\[]*persist for 4 weeks", user).group(1)
        return (f"The cough may persist for 4 weeks after the infection [{n}]. "
                "Antibiotics always cure bronchitis within 2 days [9].")

    chat_server.responder = responder
    with Served(create_app(s, pipe)) as served:
        page = _phone_page(browser)
        page.goto(served.url + "/")
        _enter_key(page, "none")
        assert page.get_by_test_id("patient").is_disabled()
        page.get_by_test_id("question").fill("How long does the cough last after acute bronchitis?")
        page.get_by_test_id("ask").click()
        page.get_by_test_id("usage").filter(has_text="tokens").wait_for(timeout=120_000)  # spaCy loads slowly
        usage = page.get_by_test_id("usage").inner_text()
        assert re.search(r"openai gpt-4o-mini: \d+ prompt \+ \d+ completion tokens \(server\), \$\d+\.\d{6}", usage)
        assert page.get_by_test_id("mode").inner_text().startswith("Answer written by the language model")
        warnings = page.get_by_test_id("warnings").inner_text()
        assert "1 of 2 generated sentences were dropped" in warnings
        # the command line's "(see 'sentences' in --json)" points at the list on the page instead
        assert "--json" not in warnings and "listed under \u201cGenerated sentences and their checks\u201d" in warnings
        assert page.get_by_test_id("sentence-supported").count() == 1
        dropped = page.get_by_test_id("sentence-unsupported")
        assert dropped.count() == 1 and dropped.is_visible() and "always cure" in dropped.inner_text()
        page.get_by_test_id("answer").get_by_role("button").first.click()
        page.get_by_test_id("passage").get_by_test_id("passage-section").wait_for()


def test_pdf_citation_shows_its_page(browser: Any, tmp_path: Path) -> None:
    """A cited passage of a two-column journal PDF shows its page on the sources list and in the opened
    passage ("p. 2"), and links the PDF at ``#page=2``. Screenshot: ``$CLINQA_SCREENSHOT_PDF`` when set."""
    from service_data import settings_for

    from documents.journal_pdfs import make_article

    art = make_article(tmp_path / "article.pdf", seed=2)
    target = next(s for s, col in art.columns.items() if col == (2, "right") and s.startswith("Observation"))
    question = "What " + " ".join(target.split()[1:-3]) + "?"
    pipe = Pipeline(settings_for(tmp_path / "store"))
    report = pipe.ingest([art.path], progress=False)
    assert report.failed == [] and report.documents == 1
    with Served(create_app(pipe.settings, pipe)) as served:
        page = browser.new_page(viewport={"width": 900, "height": 1000})
        page.set_default_timeout(TIMEOUT_MS)
        page.goto(served.url + "/")
        _enter_key(page, "all")
        page.get_by_test_id("question").fill(question)
        with page.expect_response(lambda r: r.url.endswith("/ask")) as resp_info:
            page.get_by_test_id("ask").click()
        cite = resp_info.value.json()["citations"][0]
        assert (cite["page_start"], cite["page_end"]) == (2, 2)
        source = page.get_by_test_id("sources").get_by_test_id("source-1")
        source.wait_for()
        assert source.inner_text().split("\n")[1].startswith(cite["section"] + ", p. 2")  # "Section, p. 2 · url"
        page.get_by_test_id("answer").get_by_test_id("cite-1").click()
        page.get_by_test_id("passage").get_by_test_id("highlight").first.wait_for()
        assert "p. 2" in page.get_by_test_id("passage-meta").inner_text().split(" · ")
        shot = Path(os.environ.get("CLINQA_SCREENSHOT_PDF") or tmp_path / "pdf-citation.png")
        shot.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(shot), full_page=True)
        assert shot.stat().st_size > 10_000
        page.close()
