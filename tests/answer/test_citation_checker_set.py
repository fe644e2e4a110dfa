"""The citation checker on hand-written claims about real passages (issue 16, part 3).

``tests/data/citation_checker/sentences.jsonl``: 111 correct paraphrases of sentences of 38 real
passages (28 MedQuAD passages of the liveqa-medquad corpus, 10 of the demo corpus), each with wrong
twins (negation flipped, number changed, population changed; 179 in all). Each claim is checked
citing its passage ``[1]`` as stored and hard-wrapped at 60 columns (as PDF and e-mail text is).
Measured false-rejection rate: see docs/generation.md.

``heldout.jsonl``: 21 more claims (26 twins) on 9 other passages, written after the rules were
settled and measured once, never tuned on: 3 of 21 correct claims are rejected there (a morphological
negation, "uncircumcised" for "not circumcised"; a relative clause whose antecedent carries another
clause's negation; "over 5 to 10 years" read as a lower bound). The test keeps that figure as a bound.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from clinqa.answer.citations import verify_answer

DATA = Path(__file__).resolve().parents[1] / "data" / "citation_checker" / "sentences.jsonl"
ROWS = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines() if line.strip()]
HELDOUT = [json.loads(line) for line in DATA.with_name("heldout.jsonl").read_text(encoding="utf-8").splitlines()
           if line.strip()]


def cite(sentence: str) -> str:
    """``"Text."`` -> ``"Text [1]."``"""
    return sentence.rstrip().rstrip(".") + " [1]."


def hard_wrap(passage: str, width: int = 60) -> str:
    """Every line wrapped at ``width`` columns; a list item's continuation lines are indented."""
    out = []
    for line in passage.splitlines():
        indent = "  " if line.lstrip().startswith(("- ", "* ")) else ""
        out.append(textwrap.fill(line, width, subsequent_indent=indent) if line.strip() else "")
    return "\n".join(out)


def supported(claim: str, passage: str) -> bool:
    return verify_answer(cite(claim), {1: passage}).sentences[0].supported


def false_rejections(wrap: bool, rows: list[dict] = ROWS) -> list[str]:
    return [r["id"] for r in rows if not supported(r["correct"], hard_wrap(r["passage"]) if wrap else r["passage"])]


def test_the_set_is_large_enough() -> None:
    assert len(ROWS) >= 100 and len({r["id"] for r in ROWS}) == len(ROWS)
    kinds = [t["kind"] for r in ROWS for t in r["twins"]]
    assert {k: kinds.count(k) for k in ("negation", "number", "population")} == {
        "negation": 85, "number": 65, "population": 29}
    assert all(hard_wrap(r["passage"]) != r["passage"] for r in ROWS if len(r["passage"]) > 60)


@pytest.mark.parametrize("wrap", [False, True], ids=["as stored", "hard-wrapped"])
def test_false_rejection_rate_at_most_5_percent(wrap: bool) -> None:
    rejected = false_rejections(wrap)
    assert len(rejected) / len(ROWS) <= 0.05, rejected


@pytest.mark.parametrize("wrap", [False, True], ids=["as stored", "hard-wrapped"])
def test_every_wrong_twin_is_rejected(wrap: bool) -> None:
    accepted = [(r["id"], t["kind"], t["text"]) for r in ROWS for t in r["twins"]
                if supported(t["text"], hard_wrap(r["passage"]) if wrap else r["passage"])]
    assert accepted == []


@pytest.mark.parametrize("wrap", [False, True], ids=["as stored", "hard-wrapped"])
def test_held_out_set(wrap: bool) -> None:
    assert len(HELDOUT) == 21 and sum(len(r["twins"]) for r in HELDOUT) == 26
    assert false_rejections(wrap, HELDOUT) == ["NIDDK_0000223_Sec3/2", "NIDDK_0000196_Sec4/1", "NINDS_0000203_Sec3/0"]
    accepted = [r["id"] for r in HELDOUT for t in r["twins"]
                if supported(t["text"], hard_wrap(r["passage"]) if wrap else r["passage"])]
    assert accepted == []
