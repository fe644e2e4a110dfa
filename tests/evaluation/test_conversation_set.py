"""Issue 40's conversation set (bench/conversations/): written blind over the demo guidelines, each follow-up with
its category, facts and the writer's standalone rewrite; split into dev and held-out halves by a seeded hash
before the first run. Every fact string is checked against the guideline it names."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from clinqa.corpora import guidelines_path
from clinqa.evaluation.facts import normalize

HERE = Path(__file__).resolve().parents[2] / "bench" / "conversations"
DEV, HELD_OUT = HERE / "dev.jsonl", HERE / "heldout.jsonl"
CATEGORIES = {"answerable", "not_covered", "topic_switch"}


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.fixture(scope="module")
def texts() -> dict[str, str]:
    root = guidelines_path() / "content"
    return {d.name: normalize("\n".join(p.read_text(encoding="utf-8") for p in sorted(d.glob("*.md"))))
            for d in sorted(root.iterdir())}


def test_split_by_seeded_hash_and_sizes() -> None:
    """At least 60 conversations of 2-3 turns, at least 15 follow-ups of each category; each conversation in the
    half that SHA-256 of ``issue40:<id>`` names (below 0.5: held-out)."""
    dev, held = _rows(DEV), _rows(HELD_OUT)
    both = dev + held
    assert len(both) >= 60 and len({c["id"] for c in both}) == len(both)
    for c in both:
        h = int.from_bytes(hashlib.sha256(f"issue40:{c['id']}".encode()).digest()[:8], "big") / 2**64
        assert (h < 0.5) == (c in held), c["id"]
        assert 2 <= len(c["turns"]) <= 3 and c["turns"][0]["category"] == "first"
    follow = [t["category"] for c in both for t in c["turns"][1:]]
    assert set(follow) == CATEGORIES and all(follow.count(k) >= 15 for k in CATEGORIES)


@pytest.mark.parametrize("path", [DEV, HELD_OUT], ids=["dev", "heldout"])
def test_every_fact_is_in_its_guideline(texts: dict[str, str], path: Path) -> None:
    problems = []
    for c in _rows(path):
        for i, t in enumerate(c["turns"]):
            assert t["standalone"].strip(), (c["id"], i)
            if t["category"] == "not_covered":
                assert t["facts"] == [] and t["source"] == "", (c["id"], i)
                continue
            assert 1 <= len(t["facts"]) <= 3 and t["source"] in texts, (c["id"], i)
            problems += [f"{c['id']}/{i}: {f!r}" for f in t["facts"] if normalize(f) not in texts[t["source"]]]
    assert problems == []


WARD_DEV, WARD_HELD_OUT = HERE / "ward_dev.jsonl", HERE / "ward_heldout.jsonl"


def test_the_ward_set_split_by_its_own_seeded_hash() -> None:
    """Issue 50's ward follow-ups (fourteenth pass): 48 conversations of 2-3 turns, each in the half that SHA-256 of
    ``issue50g:<id>`` names (below 0.5: held-out), with every category of follow-up in each half."""
    dev, held = _rows(WARD_DEV), _rows(WARD_HELD_OUT)
    both = dev + held
    assert len(both) == 48 and len({c["id"] for c in both}) == 48
    for c in both:
        h = int.from_bytes(hashlib.sha256(f"issue50g:{c['id']}".encode()).digest()[:8], "big") / 2**64
        assert (h < 0.5) == (c in held), c["id"]
        assert 2 <= len(c["turns"]) <= 3 and c["turns"][0]["category"] == "first"
    for half in (dev, held):
        assert {t["category"] for c in half for t in c["turns"][1:]} == CATEGORIES


@pytest.mark.parametrize("path", [WARD_DEV, WARD_HELD_OUT], ids=["ward_dev", "ward_heldout"])
def test_every_fact_of_the_ward_set_is_in_its_guideline(texts: dict[str, str], path: Path) -> None:
    test_every_fact_is_in_its_guideline(texts, path)
