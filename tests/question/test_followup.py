"""Reading a follow-up with the turn before it (issue 40): each rule with hand-written turns (not the
conversation set's)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from clinqa.logs.conversations import ConversationStore, ScopeChanged
from clinqa.question.followup import is_switch, leans_back, resolve
from clinqa.retrieval.synonyms import classes_of, same_class


def test_a_first_question_and_an_announced_switch_stand_alone() -> None:
    assert resolve("apixaban dose for AF?", []).kind == "first"
    r = resolve("unrelated - rivaroxaban dose for DVT?", ["apixaban dose for AF with CrCl 50?"])
    assert (r.standalone, r.kind, r.drew_on) == ("rivaroxaban dose for DVT?", "switch", [])
    assert is_switch("diff q: CURB-65 of 3?") and is_switch("quick one - KDIGO AKI stages?")
    assert not is_switch("different doses for children?")  # no separator: not an announcement


def test_a_full_question_without_a_link_back_is_a_new_topic() -> None:
    r = resolve("What vasopressin dose is used in septic shock?", ["apixaban dose for AF?"])
    assert (r.standalone, r.kind) == ("What vasopressin dose is used in septic shock?", "switch")
    assert leans_back("and in pregnancy?") and leans_back("when can I stop it?") and leans_back("max dose?")
    assert not leans_back("What vasopressin dose is used in septic shock?")


def test_a_named_value_replaces_the_earlier_one() -> None:
    r = resolve("and if CrCl is 20?", ["apixaban dose for AF with CrCl 50?"])
    assert (r.standalone, r.kind, r.drew_on) == ("apixaban dose for AF with CrCl 20?", "slot", [0])
    assert "CrCl 50" not in r.standalone and r.replaced == [("CrCl 50", "CrCl 20")]
    # a value of the same unit; a bare number when the earlier question gives one value
    assert resolve("and 25%?", ["10y ASCVD risk 8% - statin?"]).standalone == "10y ASCVD risk 25% - statin?"
    assert resolve("and if it's 7?", ["Wells 2 for DVT, next test?"]).standalone == "Wells 7 for DVT, next test?"
    # a value the earlier question did not give is added to it
    assert resolve("eGFR 25?", ["metformin dose in diabetes?"]).standalone == "metformin dose in diabetes with eGFR 25?"
    # a name typed with its digits is no value of its own (a seventh new user: "and if it is 3?" after "NEWS2 score
    # of 7 response" kept the 7 and quoted the score-0 band); a value glued to its name still is one
    assert resolve("and if it is 3?", ["NEWS2 score of 7 response"]).standalone == "NEWS2 score of 3 response?"
    assert resolve("what about 2?", ["CURB65 3 - admit?"]).standalone == "CURB65 2 - admit?"
    assert resolve("and if 5.9?", ["K3.2 in DKA - start insulin?"]).standalone == "K5.9 in DKA - start insulin?"


def test_a_population_or_age_replaces_the_earlier_one() -> None:
    r = resolve("what about in pregnancy?", ["first-line antihypertensive in adults?"])
    assert r.kind == "slot" and r.standalone == "first-line antihypertensive in pregnancy?"
    r = resolve("and a 9 yo?", ["72M, CAP, which antibiotic?"])
    assert "72M" not in r.standalone and r.standalone.endswith("in a 9 yo?")


def test_a_time_route_or_dialysis_is_a_slot() -> None:
    assert resolve("and after?", ["BP target before thrombolysis?"]).standalone == "BP target after thrombolysis?"
    assert resolve("via ETT?", ["IV epinephrine dose in neonates?"]).standalone == \
        "endotracheal epinephrine dose in neonates?"
    assert resolve("what if he's on dialysis?", ["colchicine dose for gout?"]).standalone == \
        "colchicine dose for gout on dialysis?"


def test_another_drug_replaces_the_most_similar_earlier_term() -> None:
    def similar(a: str, b: str) -> float:
        return 1.0 if same_class(a, b) else 0.0

    r = resolve("and carvedilol?", ["bisoprolol target dose in HFrEF?"], similar)
    assert (r.standalone, r.kind) == ("carvedilol target dose in HFrEF?", "slot")
    assert classes_of("carvedilol") == {"beta blocker"} and same_class("rivaroxaban", "apixaban")
    assert not same_class("apixaban", "apixaban")
    # nothing alike enough: not swapped, the follow-up frames a question about the earlier topic instead
    r = resolve("and albumin?", ["ceftriaxone dose for SBP in cirrhosis?"], similar)
    assert r.kind == "frame" and "ceftriaxone" in r.standalone and r.standalone.startswith("albumin")


def test_a_new_question_about_the_same_topic_carries_the_topic_not_the_frame() -> None:
    r = resolve("when can I stop it?", ["CAP with MRSA risk - vancomycin dose?"])
    assert r.kind == "frame" and r.standalone == "when can I stop it (CAP, MRSA, risk, vancomycin)?"
    assert "dose" not in r.standalone  # the earlier frame word is not carried: the question is when, not how much


def test_never_raises_on_odd_input() -> None:
    for q in ("", "?", "and", "and ???", "10", "it", "/sources 1"):
        assert isinstance(resolve(q, ["x?"]).standalone, str)


def test_the_conversation_store_keeps_scope_owner_turns_and_expiry(tmp_path: Path) -> None:
    store = ConversationStore(tmp_path / "c.sqlite", expire_days=30, max_turns=3)
    conv = store.open("ward", "alice", None)
    assert conv is not None and conv.turns == []
    store.add(conv, "apixaban dose?", "apixaban dose?", "first", [], "q1", False)
    store.add(conv, "and CrCl 20?", "apixaban dose with CrCl 20?", "slot", [1], "q2", False)
    again = store.open("ward", "alice", None)
    assert [t.n for t in again.turns] == [1, 2] and again.turns[1].drew_on == [1]
    assert store.get(conv.conversation_id, "alice").name == "ward"
    assert store.get("ward", "bob") is None and store.get(conv.conversation_id, "bob") is None  # another owner
    with pytest.raises(ScopeChanged, match="scoped to the reference documents"):
        store.open("ward", "alice", "P1")
    for i in range(3):
        store.add(again, f"q{i}", f"q{i}", "switch", [], None, False)
    assert [t.n for t in store.get("ward", "alice").turns] == [3, 4, 5]  # max_turns
    assert store.expire(30, now=datetime.now(UTC) + timedelta(days=31)) == 1 and store.get("ward", "alice") is None


def test_one_unit_list_for_named_and_lone_values() -> None:
    """Issue 48: the named value and the lone value take the same units (they were two lists). A lone "10 units"
    now replaces the earlier dose's units, "20 iu" the earlier "10 iu/kg" (each read as a new topic frame before)."""
    assert resolve("and 10 units?", ["insulin 4 units dose?"]).standalone == "insulin 10 units dose?"
    assert resolve("what about 20 iu?", ["heparin 10 iu/kg"]).standalone == "heparin 20 iu/kg?"
    assert resolve("22%?", ["HbA1c 12% target?"]).standalone == "HbA1c 22% target?"


TYPED = ["the first question", "and if she's pregnant?"]  # the turns as typed: the second supposes a case


def test_another_case_after_a_slot_change_replaces_it() -> None:
    """"what about X" / "what if X" after a turn that added a patient's state offers another case in its place: the
    new user's "and if she's pregnant?" then "what about with CKD and albuminuria?" was read with "pregnant" and
    refused three turns running. A drug or a value changes the case in force; "and if" adds to it."""
    from clinqa.question.followup import asks_alternative

    assert asks_alternative("what about with CKD?") and asks_alternative("And what if she's 20 wks pregnant?")
    assert asks_alternative("ok, how about kids") and not asks_alternative("and if she's pregnant?")
    htn = ["black woman 55 stage 2 htn no CKD - first line drug?",
           "black 55 stage 2 htn no CKD - first line drug in pregnant?"]
    slot = {"kinds": ["first", "slot"], "typed": TYPED}
    r = resolve("what about with CKD and albuminuria?", htn, **slot)
    assert "pregnant" not in r.standalone and "CKD and albuminuria" in r.standalone and r.drew_on == [0]
    assert "pregnant" in resolve("what about with CKD and albuminuria?", htn).standalone  # kinds unknown: as before
    assert "pregnant" in resolve("and with CKD?", htn, **slot).standalone  # "and" adds
    cap = ["healthy 35F with CAP, outpatient - abx?", "healthy 35F with CAP, outpatient - abx with COPD and diabetes?"]
    r = resolve("what if she's 20 wks pregnant?", cap, **slot)  # the conversation set's c032
    assert "COPD" not in r.standalone and "pregnant" in r.standalone
    af = ["78F AF, 58kg, creat 1.3 - apixaban dose?", "78F AF, 58kg, creat 1.3 - apixaban dose with CrCl 12?"]
    assert "CrCl 12" in resolve("what about on dialysis?", af, **slot).standalone  # a value kept
    assert "CrCl 20" in resolve("what about CrCl 20?", af, **slot).standalone
    assert resolve("what about dabigatran?", af, **slot).drew_on == [1]  # a drug: on the case in force
    # after a new topic, "what about" asks of that topic
    assert "COPD" in resolve("what about in pregnancy?", cap, kinds=["first", "switch"], typed=TYPED).standalone
    # the turn before supposed nothing ("max dose?"): "what about" asks of the case in force
    assert "COPD" in resolve("what if she's 20 wks pregnant?", cap, kinds=["first", "frame"],
                             typed=["x", "max dose?"]).standalone


def test_found_by_the_twelfth_new_user_an_age_told_a_new_weight_and_a_negated_severity() -> None:
    """"and if she's 85 and 58 kg?" after "apixaban dose for AF?" was read as a new frame, "she's 85 and 58 kg
    (apixaban, AF)?", which no passage answered; "what about inpatient non-severe?" became "... severe?" (the
    severity found inside "non-severe"), which quoted the ICU regimen."""
    r = resolve("and if she's 85 and 58 kg?", ["apixaban dose for AF?"])
    assert (r.standalone, r.kind) == ("apixaban dose for AF with 58 kg in 85 years old?", "slot")
    assert resolve("and if he is 72?", ["apixaban dose for AF?"]).standalone == "apixaban dose for AF in 72 years old?"
    # a value with a unit the earlier question did not give is added, as a named value is
    assert resolve("and if 58 kg?", ["apixaban dose for AF?"]).standalone == "apixaban dose for AF with 58 kg?"
    # "she's 12 kg" is a weight, not an age
    assert resolve("and if she's 12 kg?", ["amoxicillin dose for otitis?"]).standalone == (
        "amoxicillin dose for otitis with 12 kg?")
    # the age's number is no new value of the earlier question's one named value ("creat 1.1")
    assert resolve("and if he's 85?", ["apixaban dose for AF? 78M, 72 kg, creat 1.1"]).standalone == (
        "apixaban dose for AF?, 72 kg, creat 1.1 in 85 years old?")
    # read as a new frame, the age's rendered words are no topic words of the earlier question
    r = resolve("what if 14 hrs and she's 84?", ["M1 occlusion, NIHSS 16 - thrombectomy?"])
    assert r.kind == "frame" and "old" not in r.standalone and "years" not in r.standalone
    r = resolve("what about inpatient non-severe?", ["CAP outpatient healthy adult antibiotic?"])
    assert r.standalone == "CAP inpatient healthy adult antibiotic non-severe?"
    assert resolve("and if severe?", ["non-severe CAP inpatient antibiotic?"]).standalone == (
        "severe CAP inpatient antibiotic?")
