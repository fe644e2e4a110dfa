"""SYNTHETIC longitudinal clinical notes and questions for the clinqa notes benchmark.

Every patient, note, date, value and event here is made up from templates by a seeded random
generator: there is no real patient data in the output, and nothing in it describes a real person.

    python bench/notes/generate.py --patients 50 --seed 0 --output DIR

writes
- DIR/notes.jsonl: one note a line in clinqa's notes format (patient_id, note_id, date, note_type,
  author_role, text with HPI:/MEDICATIONS:/ASSESSMENT:/PLAN: sections) plus "synthetic": true; a note
  that copies a paragraph forward from the previous note also has "copied_from" (that note_id) and
  "copied_section" ("HPI" or "MEDICATIONS"). The notes loader ignores fields it does not know.
- DIR/questions.jsonl: {"_id", "patient_id", "text", "gold_note_ids", "answer", "kind", "event",
  "group", "form", "answerable", "synthetic"}: one question per event in the notes' own words (group
  "own_words"), then questions in lay words (kind and group "lay"), by drug class ("drug_class") and
  unanswerable ones ("unanswerable": "answerable": false, gold empty, answer "");
- DIR/README.md: says the data are synthetic and how they were made.

Rules: patients "P0001".. have 2-4 conditions from one small shared list (so many patients mention the
same drugs: retrieval must be scoped by patient) and 6-15 notes on distinct dates in 2018-2025. Each
patient has 1-3 events, each in its own note (never the first). Question kinds and gold notes:
event_date -> the event note, answer its ISO date; in_year -> every note of the event's year whose text
mentions the topic (regex TOPICS), answer a summary of the event; current -> the patient's last note
(its medication list is current), answer the final regimen; since_year (year <= the event year) -> the
event note, answer "Yes, on DATE". Lay and drug-class questions (EXTRA_Q, from a second RNG seeded
"SEED:PATIENT_ID:extra", so the notes and own-words questions are the same bytes as before they
existed): one per applicable (event, kind) pair,
gold = the event note ("When was the patient's blood thinner changed?", "What SGLT2 inhibitor was
started?"), plus one standing-medication question ("Is the patient on a statin?", "What water pill is the
patient on?"), gold = every note whose text names the drug. Unanswerable questions (UNANSWERABLE): two per
patient, drawn from those whose evidence regex matches none of the patient's notes (warfarin for a patient
never on it, a pneumonia admission that never happened, a heart attack, insulin, a beta blocker ...).
Copy-forward: each later note, with probability 0.5, copies the
previous note's HPI background paragraph (or, when no medication changed, its MEDICATIONS paragraph),
verbatim or with one word swapped (SWAPS). Fresh paragraphs use a different template than the previous
note's, but template reuse further back also makes similar, unmarked text. Same seed -> identical bytes
(one random.Random per patient, seeded with "SEED:PATIENT_ID").
"""

from __future__ import annotations

import argparse
import json
import random
import re
from datetime import date, timedelta
from pathlib import Path

START, END = date(2018, 1, 1), date(2025, 12, 31)
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
          "October", "November", "December")
CONDITIONS = ("atrial fibrillation", "type 2 diabetes", "CKD stage 3", "heart failure", "COPD", "hypertension")
WARFARIN, APIXABAN = "warfarin (INR target 2-3)", "apixaban 5 mg twice daily"
BASE_MEDS = {"type 2 diabetes": "metformin 1000 mg twice daily", "heart failure": "furosemide 40 mg daily",
             "COPD": "tiotropium 18 mcg inhaled daily", "hypertension": "lisinopril 20 mg daily"}
ROLES = ("physician", "nurse practitioner", "pharmacist")
HOMES = ("with a spouse", "with a daughter", "alone", "with a partner")
BACKGROUND = (  # the HPI paragraph that gets copied forward; each has words in SWAPS
    "{age}-year-old {sex} with a history of {conds}, seen for ongoing management. {hist}Lives at home {home} "
    "and reports good adherence to medications.",
    "Patient is a {age}-year-old {sex} followed for {conds}. {hist}Independent in daily activities, lives "
    "{home} and walks without an assistive device.",
    "{Sex} aged {age} with known {conds}, here for follow-up. {hist}Continues to live {home} and manages "
    "current medications without help.",
)
MEDS_LEAD = ("Current medications: {meds}.", "Medications reviewed today: {meds}.", "Takes {meds}; adherence "
             "reviewed.")
ROUTINE = ("No interval hospitalizations or emergency visits. Reports stable energy and appetite.",
           "Doing well since the last visit with no new complaints.",
           "Reports mild fatigue but no chest pain or dyspnea at rest.", "No interval events; weight stable.")
ROUTINE_PLAN = ("Continue current medications. Follow up in 3 months.",
                "No changes today; repeat labs before the next visit.", "Continue the current regimen and "
                "return in 6 months.")
SWAPS = {"reports": "notes", "lives": "resides", "history": "background", "walks": "ambulates",
         "ongoing": "continued", "follow-up": "review", "current": "active", "takes": "uses",
         "reviewed": "checked", "known": "established", "manages": "handles"}
TOPICS = {"anticoagulation": r"\b(?:warfarin|apixaban|anticoagula\w*|INR)\b",
          "kidney function": r"\b(?:eGFR|CKD|renal|kidney)\b", "the fall": r"\bfalls?\b"}
SINCE = {"bleed": "a GI bleed", "fall": "a fall", "pneumonia": "an admission for pneumonia"}
EVENT_DATE_Q = {"switch": "When was this patient switched from warfarin to apixaban?",
                "pneumonia": "When was this patient admitted for pneumonia?"}


# (event, kind) -> (question, answer template); {year} = the event note's year, {date} its date
EXTRA_Q = {
    ("switch", "lay"): ("When was the patient's blood thinner changed?", "warfarin to apixaban on {date}"),
    ("switch", "drug_class"): ("When was the patient switched to a DOAC?", "apixaban from {date}"),
    ("bleed", "lay"): ("Why was the patient's blood thinner stopped?", "a GI bleed on {date}"),
    ("bleed", "drug_class"): ("When was a PPI started?", "pantoprazole 40 mg twice daily from {date}"),
    ("egfr", "lay"): ("What happened to the patient's kidney function in {year}?", "eGFR fell to 38 on {date}"),
    ("egfr_t2d", "lay"): ("What medication was started for blood sugar in {year}?", "empagliflozin 10 mg daily"),
    ("egfr_t2d", "drug_class"): ("What SGLT2 inhibitor was started?", "empagliflozin 10 mg daily on {date}"),
    ("empagliflozin", "lay"): ("What was done about the patient's blood sugar in {year}?",
                               "empagliflozin 10 mg daily added to metformin on {date}"),
    ("empagliflozin", "drug_class"): ("What SGLT2 inhibitor was started?", "empagliflozin 10 mg daily on {date}"),
    ("fall", "lay"): ("Did the patient break a bone in the fall?", "no fracture on x-ray ({date})"),
    ("pneumonia", "lay"): ("When was the patient in hospital for a chest infection?", "{date}"),
    ("pneumonia", "drug_class"): ("Which antibiotic was given for the pneumonia?",
                                  "amoxicillin-clavulanate for 5 days ({date})"),
}
# standing medication questions: (form, condition or None for everyone, kind, question, drug regex, answer)
STANDING_Q = (
    ("statin", None, "drug_class", "Is the patient on a statin?", r"\batorvastatin\b",
     "Yes, atorvastatin 20 mg nightly"),
    ("ace_inhibitor", "hypertension", "drug_class", "Which ACE inhibitor is the patient taking?", r"\blisinopril\b",
     "lisinopril 20 mg daily"),
    ("water_pill", "heart failure", "lay", "What water pill is the patient on?", r"\bfurosemide\b",
     "furosemide 40 mg daily"),
    ("loop_diuretic", "heart failure", "drug_class", "Which loop diuretic is the patient on?", r"\bfurosemide\b",
     "furosemide 40 mg daily"),
    ("inhaler", "COPD", "lay", "What inhaler does the patient use?", r"\btiotropium\b",
     "tiotropium 18 mcg inhaled daily"),
)
# unanswerable: (form, question, evidence regex that must match none of the patient's notes)
UNANSWERABLE = (
    ("warfarin_stopped", "Why was warfarin stopped?", r"\bwarfarin\b"),
    ("blood_thinner_started", "When was the patient started on a blood thinner?",
     r"\b(?:warfarin|apixaban|anticoagula\w*)\b"),
    ("pneumonia_admission", "When was this patient admitted for pneumonia?", r"\bpneumonia\b"),
    ("gi_bleed", "Has the patient had a GI bleed since 2018?", r"\bbleed\w*\b"),
    ("sglt2_started", "What SGLT2 inhibitor was started?", r"\b\w+gliflozin\b"),
    ("heart_attack", "When did the patient have a heart attack?", r"\b(?:MI|myocardial infarction|heart attack)\b"),
    ("insulin", "When was insulin started?", r"\binsulin\b"),
    ("beta_blocker", "Which beta blocker was started?", r"\b\w+olol\b"),
    ("stroke", "When did the patient have a stroke?", r"\b(?:stroke|CVA)\b"),
    ("dialysis", "When was dialysis started?", r"\bdialysis\b"),
    ("water_pill", "What dose of water pill is the patient taking?", r"\b(?:furosemide|diuretic\w*)\b"),
    ("fall", "What injuries did the patient have from the fall?", r"\bfalls?\b"),
)


def month(d: date) -> str:
    return f"{MONTHS[d.month - 1]} {d.year}"


def one_word_swapped(text: str, rng: random.Random) -> str:
    """``text`` with one word from SWAPS replaced (first letter case kept); unchanged if none."""
    hits = [m for m in re.finditer(r"[A-Za-z-]+", text) if m.group().lower() in SWAPS]
    if not hits:
        return text
    m = rng.choice(hits)
    new = SWAPS[m.group().lower()]
    return text[: m.start()] + (new.capitalize() if m.group()[0].isupper() else new) + text[m.end():]


def apply_event(name: str, d: date, st: dict, conds: list[str], rng: random.Random) -> dict:
    """Change the patient state ``st`` for event ``name`` on ``d``; the note's texts and answers."""
    meds = st["meds"]
    if name == "switch":
        meds["anticoagulation"] = APIXABAN
        st["hist"].append(f"a switch from warfarin to apixaban in {month(d)} for labile INR")
        return {"hpi": f"INR has been labile (recent values {rng.choice(('1.6', '1.7'))} and "
                       f"{rng.choice(('3.8', '4.1'))}) despite dose adjustments.",
                "plan": "Stop warfarin and start apixaban 5 mg twice daily today; no further INR checks needed.",
                "answer": f"switched from warfarin to apixaban 5 mg twice daily on {d} for labile INR",
                "topic": "anticoagulation", "kinds": ("event_date", "in_year")}
    if name == "bleed":
        drug = meds.pop("anticoagulation").split()[0]
        meds["gi"] = "pantoprazole 40 mg twice daily"
        st["held"] = True
        st["hist"].append(f"a GI bleed in {month(d)} with {drug} stopped")
        return {"hpi": f"Presented with melena and hemoglobin {rng.choice(('7.9', '8.4'))} g/dL; endoscopy showed "
                       "a bleeding gastric ulcer (GI bleed).",
                "plan": f"Stop {drug} after the GI bleed; start pantoprazole 40 mg twice daily; revisit "
                        "anticoagulation in 3 months.",
                "answer": f"{drug} stopped after a GI bleed on {d}", "topic": "anticoagulation",
                "kinds": ("since_year", "in_year")}
    if name == "egfr":
        st["egfr"] = 38
        st["hist"].append(f"an eGFR decline to 38 in {month(d)}")
        t2d = "type 2 diabetes" in conds
        if t2d:
            meds["diabetes"] = "metformin 500 mg twice daily and empagliflozin 10 mg daily"
        plan = ("Reduce metformin to 500 mg twice daily for eGFR 38 and start empagliflozin 10 mg daily." if t2d
                else "Avoid NSAIDs, repeat the renal panel in 4 weeks and refer to nephrology.")
        return {"hpi": "Routine labs show the eGFR down to 38 from the low 50s.", "plan": plan,
                "answer": f"eGFR fell to 38 on {d}; " + plan[0].lower() + plan[1:-1], "topic": "kidney function",
                "kinds": ("current",) if t2d else ("in_year",)}
    if name == "empagliflozin":
        meds["diabetes"] = "metformin 1000 mg twice daily and empagliflozin 10 mg daily"
        st["hist"].append(f"addition of empagliflozin in {month(d)}")
        return {"hpi": f"A1c is {rng.choice(('8.4', '8.9'))}% on metformin alone.",
                "plan": "Add empagliflozin 10 mg daily to metformin 1000 mg twice daily.", "kinds": ("current",)}
    if name == "fall":
        st["hist"].append(f"a fall at home in {month(d)} without fracture")
        return {"hpi": "Had a fall at home this week after tripping on a rug; no head strike and x-rays show no "
                       "fracture.", "plan": "Physical therapy and a home safety evaluation after the fall.",
                "answer": f"fall at home on {d} without fracture; physical therapy and home safety evaluation",
                "topic": "the fall", "kinds": ("in_year", "since_year")}
    st["hist"].append(f"an admission for pneumonia in {month(d)}")
    return {"hpi": "Admitted with fever, productive cough and a right lower lobe infiltrate; treated for "
                   "community-acquired pneumonia.", "type": "discharge",
            "plan": "Complete 5 days of amoxicillin-clavulanate; chest x-ray in 6 weeks.",
            "kinds": ("event_date", "since_year")}


def assessment(st: dict, conds: list[str], rng: random.Random, pneumonia: bool) -> str:
    out = []
    for c in conds:
        if c == "atrial fibrillation":
            out.append("Atrial fibrillation, rate controlled; anticoagulation on hold after GI bleed." if st["held"]
                       else f"Atrial fibrillation, rate controlled, on {st['meds']['anticoagulation'].split()[0]}.")
        elif c == "type 2 diabetes":
            out.append(f"Type 2 diabetes, A1c {rng.uniform(6.4, 8.2):.1f}%.")
        elif c == "CKD stage 3":
            out.append(f"CKD stage 3, eGFR {st['egfr'] + rng.randint(-2, 3)}.")
        elif c == "heart failure":
            out.append(f"Heart failure with reduced ejection fraction, euvolemic, weight {rng.randint(68, 96)} kg.")
        elif c == "COPD":
            out.append("COPD, recovering after pneumonia." if pneumonia else "COPD without recent exacerbation.")
        else:
            out.append(f"Hypertension, blood pressure {rng.randint(118, 148)}/{rng.randint(68, 88)}.")
    return " ".join(out)


def patient(pid: str, seed: int) -> tuple[list[dict], list[dict]]:
    """Notes and questions of one patient (its own RNG, so a patient does not depend on the count)."""
    rng = random.Random(f"{seed}:{pid}")
    conds = sorted(rng.sample(CONDITIONS, rng.randint(2, 4)), key=CONDITIONS.index)
    n = rng.randint(6, 15)
    dates = [START + timedelta(days=k) for k in sorted(rng.sample(range((END - START).days + 1), n))]
    age0, sex, home = rng.randint(52, 84), rng.choice(("man", "woman")), rng.choice(HOMES)
    st: dict = {"meds": {}, "hist": [], "held": False, "egfr": rng.randint(48, 56)}
    if "atrial fibrillation" in conds:
        st["meds"]["anticoagulation"] = WARFARIN if rng.random() < 0.7 else APIXABAN
    st["meds"].update({k: v for k, v in BASE_MEDS.items() if k in conds})
    st["meds"]["statin"] = "atorvastatin 20 mg nightly"
    ok = {"switch": st["meds"].get("anticoagulation") == WARFARIN, "bleed": "atrial fibrillation" in conds,
          "egfr": "CKD stage 3" in conds, "empagliflozin": "type 2 diabetes" in conds and "CKD stage 3" not in conds,
          "fall": rng.random() < 0.4, "pneumonia": "COPD" in conds or "heart failure" in conds}
    names = [e for e in ok if ok[e]] or ["fall"]  # fixed order: a bleed comes after a switch
    chosen = set(rng.sample(names, rng.randint(1, min(3, len(names)))))
    names = [e for e in names if e in chosen]
    at = dict(zip(sorted(rng.sample(range(1, n), len(names))), names, strict=True))
    notes: list[dict] = []
    events: list[tuple[str, dict, dict]] = []
    prev = {"bg": "", "meds": "", "bg_t": -1, "meds_t": -1}
    for i, d in enumerate(dates):
        before = dict(st["meds"])
        ev = apply_event(at[i], d, st, conds, rng) if i in at else None
        past = st["hist"][:-1] if ev else st["hist"]  # this note's own event is in its interval paragraph
        hist = f"Course notable for {'; '.join(past)}. " if past else ""
        bg_t = rng.choice([t for t in range(len(BACKGROUND)) if t != prev["bg_t"]])
        bg = BACKGROUND[bg_t].format(age=age0 + d.year - dates[0].year, sex=sex, Sex=sex.capitalize(),
                                     conds=", ".join(conds), hist=hist, home=home)
        meds_t = rng.choice([t for t in range(len(MEDS_LEAD)) if t != prev["meds_t"]])
        med = MEDS_LEAD[meds_t].format(meds="; ".join(st["meds"].values()))
        note = {"patient_id": pid, "note_id": f"{pid}-N{i + 1:02d}", "date": d.isoformat(),
                "note_type": (ev or {}).get("type") or rng.choice(("clinic", "consult") if i == 0 else
                                                                    ("progress", "progress", "clinic", "consult")),
                "author_role": rng.choice(ROLES), "text": "", "synthetic": True}
        if i and rng.random() < 0.5:
            section = "HPI" if st["meds"] != before else rng.choice(("HPI", "MEDICATIONS"))
            copied = prev["bg"] if section == "HPI" else prev["meds"]
            copied = copied if rng.random() < 0.5 else one_word_swapped(copied, rng)
            if section == "HPI":  # the copy keeps the previous note's template
                bg, bg_t = copied, prev["bg_t"]
            else:
                med, meds_t = copied, prev["meds_t"]
            note |= {"copied_from": notes[-1]["note_id"], "copied_section": section}
        interval = ev["hpi"] if ev else rng.choice(ROUTINE)
        plan = ev["plan"] if ev else rng.choice(ROUTINE_PLAN)
        note["text"] = (f"HPI:\n{bg}\n\n{interval}\n\nMEDICATIONS:\n{med}\n\nASSESSMENT:\n"
                        f"{assessment(st, conds, rng, at.get(i) == 'pneumonia')}\n\nPLAN:\n{plan}\n")
        notes.append(note)
        prev = {"bg": bg, "meds": med, "bg_t": bg_t, "meds_t": meds_t}
        if ev:
            events.append((at[i], ev, note))
    questions = []
    for j, (name, ev, note) in enumerate(events, start=1):
        kind, d = rng.choice(ev["kinds"]), date.fromisoformat(note["date"])
        gold, answer = [note["note_id"]], f"Yes, on {d}"
        if kind == "event_date":
            text, answer = EVENT_DATE_Q[name], d.isoformat()
        elif kind == "since_year":
            text = f"Has the patient had {SINCE[name]} since {max(START.year, d.year - rng.randint(0, 2))}?"
        elif kind == "current":
            text, gold = "What is the patient's current diabetes medication?", [notes[-1]["note_id"]]
            answer = st["meds"]["diabetes"]
        else:
            gold = [x["note_id"] for x in notes if x["date"][:4] == str(d.year)
                    and re.search(TOPICS[ev["topic"]], x["text"], re.IGNORECASE)]
            text = f"What did the {d.year} {'notes' if len(gold) > 1 else 'note'} say about {ev['topic']}?"
            answer = ev["answer"]
        questions.append({"_id": f"{pid}-Q{j}", "patient_id": pid, "text": text, "gold_note_ids": gold,
                          "answer": answer, "kind": kind, "event": name, "group": "own_words", "form": kind,
                          "answerable": True, "synthetic": True})
    questions += extra_questions(pid, seed, conds, events, notes, len(questions) + 1)
    return notes, questions


def extra_questions(pid: str, seed: int, conds: list[str], events: list[tuple[str, dict, dict]],
                    notes: list[dict], first: int) -> list[dict]:
    """Lay-word, drug-class and unanswerable questions of one patient (EXTRA_Q, STANDING_Q,
    UNANSWERABLE), numbered from ``first``; their own RNG, so the notes do not change."""
    rng = random.Random(f"{seed}:{pid}:extra")
    out: list[dict] = []

    def add(text: str, gold: list[str], answer: str, kind: str, event: str, form: str, group: str) -> None:
        out.append({"_id": f"{pid}-Q{first + len(out)}", "patient_id": pid, "text": text, "gold_note_ids": gold,
                    "answer": answer, "kind": kind, "event": event, "group": group, "form": form,
                    "answerable": bool(gold), "synthetic": True})

    for name, _, note in events:
        key = "egfr_t2d" if name == "egfr" and "type 2 diabetes" in conds else name
        for kind in ("lay", "drug_class"):
            if (key, kind) not in EXTRA_Q and (name, kind) not in EXTRA_Q:
                continue
            text, answer = EXTRA_Q.get((key, kind)) or EXTRA_Q[(name, kind)]
            fmt = {"year": note["date"][:4], "date": note["date"]}
            add(text.format(**fmt), [note["note_id"]], answer.format(**fmt), kind, name,
                f"{key}:{kind}", kind)
    standing = [q for q in STANDING_Q if q[1] is None or q[1] in conds]
    form, _, kind, text, rx, answer = rng.choice(standing)
    gold = [x["note_id"] for x in notes if re.search(rx, x["text"])]
    add(text, gold, answer, kind, "", f"standing:{form}", kind)
    absent = [u for u in UNANSWERABLE if not any(re.search(u[2], x["text"]) for x in notes)]
    for form, text, _ in rng.sample(absent, min(2, len(absent))):
        add(text, [], "", "unanswerable", "", f"absent:{form}", "unanswerable")
    return out


def write_jsonl(path: Path, records: list[dict]) -> None:
    with path.open("w", encoding="utf-8", newline="\n") as f:
        f.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in records)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Generate SYNTHETIC longitudinal notes and questions (no real data).")
    ap.add_argument("--patients", type=int, default=50)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--output", type=Path, required=True)
    args = ap.parse_args(argv)
    if not 1 <= args.patients <= 9999:
        ap.error("--patients must be in 1..9999")
    made = [patient(f"P{k:04d}", args.seed) for k in range(1, args.patients + 1)]
    notes, questions = [x for ns, _ in made for x in ns], [q for _, qs in made for q in qs]
    args.output.mkdir(parents=True, exist_ok=True)
    write_jsonl(args.output / "notes.jsonl", notes)
    write_jsonl(args.output / "questions.jsonl", questions)
    n_copies = sum("copied_from" in x for x in notes)
    (args.output / "README.md").write_text(
        "# SYNTHETIC clinical notes - not real patient data\n\n"
        f"Generated by bench/notes/generate.py --patients {args.patients} --seed {args.seed}: {len(notes)} notes, "
        f"{len(questions)} questions, {n_copies} notes with a copied-forward paragraph. Every patient, date, value "
        "and event is invented from templates; see the generator's docstring for the rules.\n",
        encoding="utf-8", newline="\n")
    print(f"SYNTHETIC data: {len(notes)} notes, {len(questions)} questions, {n_copies} copies -> {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
