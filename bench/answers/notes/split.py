"""Validate the blind notes set and split questions into dev / held-out halves.

Usage: python3 split.py            (validates, then writes the two split files)
       python3 split.py --check    (validate only)

Split rule (seeded hash, stable per id):
  dev      if int(sha256("clinqa-notes-2026:" + id).hexdigest(), 16) % 2 == 0
  heldout  otherwise
"""
import collections
import datetime
import hashlib
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
NOTES = os.path.join(HERE, "notes.jsonl")
QUESTIONS = os.path.join(HERE, "questions.jsonl")
OUT_DEV = os.path.join(HERE, "notes_recency_dev.jsonl")
OUT_HELD = os.path.join(HERE, "notes_recency_heldout.jsonl")

KINDS = ["current", "latest_value", "event", "reason", "note_year", "uncovered"]
STYLES = {"terse", "plain", "shorthand", "lay"}
NOTE_TYPES = {"clinic", "progress", "discharge", "telephone", "pharmacy", "ED"}
ROLES = {"physician", "nurse", "pharmacist"}


def norm(s):
    return re.sub(r"\s+", " ", s).strip().lower()


def half(qid):
    h = int(hashlib.sha256(("clinqa-notes-2026:" + qid).encode()).hexdigest(), 16)
    return "dev" if h % 2 == 0 else "heldout"


def load(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def validate(notes, questions):
    errors = []
    by_doc = {}
    by_patient = collections.defaultdict(list)
    for n in notes:
        for key in ("patient_id", "note_id", "date", "note_type", "author_role", "text"):
            if key not in n:
                errors.append("note missing %s: %r" % (key, n))
        doc = "note:%s:%s" % (n["patient_id"], n["note_id"])
        if doc in by_doc:
            errors.append("duplicate note %s" % doc)
        by_doc[doc] = n
        by_patient[n["patient_id"]].append(n)
        if n["note_type"] not in NOTE_TYPES:
            errors.append("%s bad note_type %s" % (doc, n["note_type"]))
        if n["author_role"] not in ROLES:
            errors.append("%s bad author_role %s" % (doc, n["author_role"]))
        d = datetime.date.fromisoformat(n["date"])
        if not (2019 <= d.year <= 2026):
            errors.append("%s date out of range %s" % (doc, n["date"]))
    expected_patients = ["Q%02d" % i for i in range(1, 15)]
    if sorted(by_patient) != expected_patients:
        errors.append("patients are %s" % sorted(by_patient))
    for pid, ns in by_patient.items():
        if not 4 <= len(ns) <= 9:
            errors.append("%s has %d notes" % (pid, len(ns)))
        dates = [n["date"] for n in ns]
        if dates != sorted(dates) or len(set(dates)) != len(dates):
            errors.append("%s notes not in strict date order: %s" % (pid, dates))

    seen = set()
    for q in questions:
        qid = q.get("id")
        if qid in seen:
            errors.append("duplicate id %s" % qid)
        seen.add(qid)
        kind = q.get("kind")
        if kind not in KINDS:
            errors.append("%s bad kind %s" % (qid, kind))
        if q.get("style") not in STYLES:
            errors.append("%s bad style %s" % (qid, q.get("style")))
        pid = q.get("patient_id")
        if pid not in by_patient:
            errors.append("%s unknown patient %s" % (qid, pid))
            continue
        pat_texts = [norm(n["text"]) for n in by_patient[pid]]
        if kind == "uncovered":
            if "doc_id" in q:
                errors.append("%s uncovered question has doc_id" % qid)
            if q.get("facts") != [] or q.get("forbidden") != []:
                errors.append("%s uncovered needs empty facts/forbidden" % qid)
            missing = norm(q.get("missing", ""))
            if not missing:
                errors.append("%s uncovered without missing term" % qid)
            for n in by_patient[pid]:
                if missing and missing in norm(n["text"]):
                    errors.append("%s missing term %r occurs in %s" % (qid, missing, n["note_id"]))
            continue
        doc = q.get("doc_id")
        if doc not in by_doc:
            errors.append("%s doc_id %s does not exist" % (qid, doc))
            continue
        if by_doc[doc]["patient_id"] != pid:
            errors.append("%s doc_id %s belongs to another patient" % (qid, doc))
        doc_text = norm(by_doc[doc]["text"])
        facts = q.get("facts", [])
        if not 1 <= len(facts) <= 3:
            errors.append("%s has %d facts" % (qid, len(facts)))
        for fact in facts:
            if not isinstance(fact, list) or not fact:
                errors.append("%s malformed fact %r" % (qid, fact))
                continue
            for alt in fact:
                if norm(alt) not in doc_text:
                    errors.append("%s fact %r not in %s" % (qid, alt, doc))
        for bad in q.get("forbidden", []):
            if norm(bad) in doc_text:
                errors.append("%s forbidden %r occurs in doc %s" % (qid, bad, doc))
            if not any(norm(bad) in t for t in pat_texts):
                errors.append("%s forbidden %r occurs in no note of %s" % (qid, bad, pid))
    return errors


def counts_table(questions):
    c = collections.Counter((half(q["id"]), q["kind"]) for q in questions)
    lines = ["| kind | dev | heldout | total |", "|---|---|---|---|"]
    for k in KINDS:
        lines.append("| %s | %d | %d | %d |" % (k, c[("dev", k)], c[("heldout", k)],
                                               c[("dev", k)] + c[("heldout", k)]))
    dev = sum(v for (h, _), v in c.items() if h == "dev")
    held = sum(v for (h, _), v in c.items() if h == "heldout")
    lines.append("| **all** | %d | %d | %d |" % (dev, held, dev + held))
    return "\n".join(lines)


def main():
    notes = load(NOTES)
    questions = load(QUESTIONS)
    errors = validate(notes, questions)
    if errors:
        for e in errors:
            print("FAIL:", e)
        print("%d validation errors" % len(errors))
        sys.exit(1)
    print("validator: OK (%d notes, %d questions)" % (len(notes), len(questions)))
    if "--check" in sys.argv:
        return
    with open(OUT_DEV, "w") as fd, open(OUT_HELD, "w") as fh:
        for q in questions:
            (fd if half(q["id"]) == "dev" else fh).write(json.dumps(q) + "\n")
    print(counts_table(questions))


if __name__ == "__main__":
    main()
