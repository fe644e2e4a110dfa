"""A conversation on the web page (issue 40) in a real headless Chromium (Debian's /usr/bin/chromium driven by
Playwright, as tests/service/test_browser.py) against the app served by uvicorn, on the small real store of
service_data: the main box starts a conversation (``conversation: true``), the follow-up box under the answer
continues it (``conversation_id``); the earlier turns stay above as a thread, each with the question as typed,
"Answering: <standalone question>" when the follow-up was read otherwise, the answer and its citations (which
still open their passage); "New conversation" starts over; ``?q=`` starts a fresh conversation. No console
error and no failed request on the way (the page's Content-Security-Policy allows no inline script).

Skipped only when /usr/bin/chromium is absent."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

import pytest
from test_browser import CHROMIUM, Served, _enter_key, _phone_page

from clinqa.service.app import PAGE_CSP

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not installed at "
                                "/usr/bin/chromium (apt-get install chromium); the browser test needs it")

COUGH_4 = "Can the cough persist for 4 weeks after acute bronchitis?"
COUGH_8 = "Can the cough persist for 8 weeks after acute bronchitis?"


def _ask_followup(page: Any, question: str) -> tuple[dict, dict]:
    page.get_by_test_id("followup").fill(question)
    with page.expect_response(lambda r: r.url.endswith("/ask")) as resp_info:
        page.get_by_test_id("ask-followup").click()
    return resp_info.value.request.post_data_json, resp_info.value.json()


def test_thread_follow_up_box_and_new_conversation(browser: Any, served: Served) -> None:
    page = _phone_page(browser)
    errors: list[str] = []
    failed: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("response", lambda r: failed.append(f"{r.status} {r.url}") if r.status >= 400 else None)
    with page.expect_response(lambda r: r.url.rstrip("/") == served.url) as page_resp:
        page.goto(served.url + "/")
    assert page_resp.value.headers["content-security-policy"] == PAGE_CSP
    _enter_key(page, "none")
    assert page.get_by_test_id("followup-form").is_hidden() and page.get_by_test_id("thread").is_hidden()

    # the first question starts a conversation
    page.get_by_test_id("question").fill(COUGH_4)
    with page.expect_response(lambda r: r.url.endswith("/ask")) as resp_info:
        page.get_by_test_id("ask").click()
    assert resp_info.value.request.post_data_json == {"question": COUGH_4, "conversation": True}
    first = resp_info.value.json()
    cid = first["conversation_id"]
    assert cid and not first["refused"]
    page.get_by_test_id("answer").get_by_test_id("cite-1").wait_for()
    assert page.get_by_test_id("asked").inner_text() == COUGH_4
    assert page.get_by_test_id("answering").is_hidden()  # a first question is answered as typed
    assert page.get_by_test_id("followup-form").is_visible() and page.get_by_test_id("thread").is_hidden()

    # a follow-up: read with the question before it, which moves up into the thread
    sent, follow = _ask_followup(page, "and 8 weeks?")
    assert sent == {"question": "and 8 weeks?", "conversation_id": cid}
    assert follow["standalone_question"] == COUGH_8 and follow["refused"]
    page.get_by_test_id("answering").filter(has_text=COUGH_8).wait_for()
    assert page.get_by_test_id("asked").inner_text() == "and 8 weeks?"
    assert page.get_by_test_id("answering").inner_text() == f"Answering: {COUGH_8}"
    assert "do not mention 8 weeks" in page.get_by_test_id("refusal-reason").inner_text()
    turns = page.get_by_test_id("turn")
    assert turns.count() == 1
    assert turns.nth(0).get_by_test_id("turn-question").inner_text() == COUGH_4
    assert turns.nth(0).get_by_test_id("turn-answering").count() == 0
    assert "4 weeks" in turns.nth(0).get_by_test_id("turn-answer").inner_text()
    assert turns.nth(0).get_by_test_id("turn-sources").inner_text().count("Acute bronchitis") >= 1
    assert page.get_by_test_id("followup").input_value() == ""
    assert parse_qs(urlsplit(page.url).query) == {"q": [COUGH_8]}  # a link asks what was answered

    # an earlier turn's citation opens its passage, highlighted, as the latest answer's do
    turns.nth(0).get_by_test_id("turn-answer").get_by_test_id("cite-1").click()
    passage = page.get_by_test_id("passage")
    passage.get_by_test_id("passage-title").filter(has_text="[1]").wait_for()
    assert passage.get_by_test_id("highlight").count() >= 1
    assert first["citations"][0]["title"] in passage.get_by_test_id("passage-title").inner_text()

    # a third turn: both earlier turns in the thread, the second with what it answered
    sent, back = _ask_followup(page, "and 4 weeks?")
    assert sent == {"question": "and 4 weeks?", "conversation_id": cid}
    assert back["standalone_question"] == COUGH_4 and back["conversation_turns"] == [2] and not back["refused"]
    page.get_by_test_id("answer").get_by_test_id("cite-1").wait_for()
    assert turns.count() == 2
    assert turns.nth(1).get_by_test_id("turn-question").inner_text() == "and 8 weeks?"
    assert turns.nth(1).get_by_test_id("turn-answering").inner_text() == f"Answering: {COUGH_8}"
    assert "do not mention 8 weeks" in turns.nth(1).get_by_test_id("turn-answer").inner_text()
    assert page.get_by_test_id("answering").inner_text() == f"Answering: {COUGH_4}"
    assert page.get_by_test_id("feedback").is_visible()  # the latest answer can be graded
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")

    # New conversation: no thread, no answer, no follow-up box, an empty question, no question in the URL
    page.get_by_test_id("new-conversation").click()
    for test_id in ("thread", "result", "followup-form", "feedback", "passage"):
        assert page.get_by_test_id(test_id).is_hidden(), test_id
    assert page.get_by_test_id("question").input_value() == "" and urlsplit(page.url).query == ""

    # the next question starts another conversation
    page.get_by_test_id("question").fill("Should beta-blockers be started on the day of surgery?")
    with page.expect_response(lambda r: r.url.endswith("/ask")) as resp_info:
        page.get_by_test_id("ask").click()
    assert resp_info.value.request.post_data_json["conversation"] is True
    assert resp_info.value.json()["conversation_id"] not in ("", cid)
    page.get_by_test_id("answer").filter(has_text="Beta-blockers").wait_for()
    assert page.get_by_test_id("thread").is_hidden() and page.get_by_test_id("followup-form").is_visible()
    assert errors == [] and failed == [], (errors, failed)
    page.context.close()


def test_a_question_in_the_url_starts_a_fresh_conversation(browser: Any, served: Served) -> None:
    page = _phone_page(browser)
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(served.url + "/")
    _enter_key(page, "none")  # saved on this device: the link asks at once
    with page.expect_response(lambda r: r.url.endswith("/ask")) as resp_info:
        page.goto(f"{served.url}/?q={quote(COUGH_4)}")
    assert resp_info.value.request.post_data_json == {"question": COUGH_4, "conversation": True}
    cid = resp_info.value.json()["conversation_id"]
    page.get_by_test_id("answer").get_by_test_id("cite-1").wait_for()
    sent, follow = _ask_followup(page, "and 8 weeks?")
    assert sent["conversation_id"] == cid and follow["standalone_question"] == COUGH_8
    page.get_by_test_id("turn").first.wait_for()
    # the same link again: a new conversation, not a turn of the last one
    with page.expect_response(lambda r: r.url.endswith("/ask")) as resp_info:
        page.goto(f"{served.url}/?q={quote(COUGH_4)}")
    assert resp_info.value.json()["conversation_id"] not in ("", cid)
    page.get_by_test_id("answer").get_by_test_id("cite-1").wait_for()
    assert page.get_by_test_id("thread").is_hidden()
    assert errors == []
    page.context.close()
