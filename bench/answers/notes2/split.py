"""Validate notes.jsonl + questions.jsonl, then split questions into dev / heldout."""
import hashlib, json, os, re, sys
from collections import Counter, defaultdict
D = os.path.dirname(os.path.abspath(__file__))
KINDS = {"current","latest_value","event","reason","note_year","uncovered"}
NOTE_TYPES = {"clinic","progress","discharge","telephone","ED","ward round"}
ROLES = {"physician","nurse","pharmacist","GP"}

def norm(s): return re.sub(r"\s+", " ", s).strip().lower()
def half(qid):
    return "dev" if int(hashlib.sha256(("clinqa-notes2-2026:" + qid).encode()).hexdigest(), 16) % 2 == 0 else "heldout"

def load(name):
    with open(os.path.join(D, name)) as f:
        return [json.loads(l) for l in f if l.strip()]

def validate(notes, qs):
    errs = []
    docs, by_pat = {}, defaultdict(list)
    for n in notes:
        key = "note:%s:%s" % (n["patient_id"], n["note_id"])
        if key in docs: errs.append("dup note " + key)
        docs[key] = norm(n["text"]); by_pat[n["patient_id"]].append(n)
        if n["note_type"] not in NOTE_TYPES: errs.append("bad note_type " + key)
        if n["author_role"] not in ROLES: errs.append("bad role " + key)
    for p, ns in by_pat.items():
        ds = [n["date"] for n in ns]
        if ds != sorted(ds) or len(set(ds)) != len(ds): errs.append("dates not ordered/distinct " + p)
        if not 4 <= len(ns) <= 8: errs.append("note count %s %d" % (p, len(ns)))
        if not all("2017" <= d[:4] <= "2026" for d in ds): errs.append("date range " + p)
    ids = [q["id"] for q in qs]
    for i, c in Counter(ids).items():
        if c > 1: errs.append("dup id " + i)
    for q in qs:
        qid, p = q["id"], q["patient_id"]
        if q["kind"] not in KINDS: errs.append(qid + " bad kind")
        pat_texts = [norm(n["text"]) for n in by_pat.get(p, [])]
        if not pat_texts: errs.append(qid + " unknown patient"); continue
        if q["kind"] == "uncovered":
            m = norm(q.get("missing", ""))
            if not m: errs.append(qid + " no missing term")
            elif any(m in t for t in pat_texts): errs.append(qid + " missing term found: " + m)
            if q["facts"] or q["forbidden"] or "doc_id" in q: errs.append(qid + " uncovered has facts/forbidden/doc_id")
            continue
        d = q.get("doc_id")
        if d not in docs: errs.append(qid + " doc_id missing " + str(d)); continue
        if not d.startswith("note:%s:" % p): errs.append(qid + " doc_id of other patient")
        if not 1 <= len(q["facts"]) <= 3: errs.append(qid + " facts count")
        for alts in q["facts"]:
            if not any(norm(a) in docs[d] for a in alts): errs.append(qid + " fact not in doc: %r" % alts)
        for fb in q["forbidden"]:
            if norm(fb) in docs[d]: errs.append(qid + " forbidden in doc: " + fb)
            if not any(norm(fb) in t for t in pat_texts): errs.append(qid + " forbidden not in patient notes: " + fb)
    return errs

if __name__ == "__main__":
    notes, qs = load("notes.jsonl"), load("questions.jsonl")
    errs = validate(notes, qs)
    if errs:
        print("VALIDATION FAILED"); print("\n".join(errs)); sys.exit(1)
    print("validator: OK (%d notes, %d questions)" % (len(notes), len(qs)))
    out = {"dev": [], "heldout": []}
    for q in qs: out[half(q["id"])].append(q)
    for h, rows in out.items():
        with open(os.path.join(D, "notes2_%s.jsonl" % h), "w") as f:
            for q in rows: f.write(json.dumps(q) + "\n")
    kinds = sorted(KINDS)
    print("%-13s %5s %8s %6s" % ("kind", "dev", "heldout", "total"))
    for k in kinds:
        a = sum(q["kind"] == k for q in out["dev"]); b = sum(q["kind"] == k for q in out["heldout"])
        print("%-13s %5d %8d %6d" % (k, a, b, a + b))
    print("%-13s %5d %8d %6d" % ("TOTAL", len(out["dev"]), len(out["heldout"]), len(qs)))
    print("styles:", dict(Counter(q["style"] for q in qs)))
