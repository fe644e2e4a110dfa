"""Training pairs for the answer model: does this passage answer this question? (issue 39)

Every row is ``(question, passage, label)`` with its source, its kind and, for the rows that teach which
word of a question decides, the word that was swapped in or the words that were inserted. Kinds:

- ``positive``: a question with its gold passage; ``positive_unit``: with the sentence or list item of the
  gold passage that holds the answer (a guideline fact, a COVID-QA answer span);
- ``leave_gold_out``: the question against the best-ranked passages of its own corpus once its gold
  passages are removed (BM25, :mod:`bm25s`): the near-topic passages an uncovered question meets; for an
  uncovered guideline question every top passage is one;
- ``related`` / ``incorrect``: MEDIQA 2019 answers judged "related but not answering" / "incorrect"
  (ReferenceScore 2 / 1; scores 4 "excellent" and 3 "correct but incomplete" are positives);
- ``sibling``: a MedQuAD answer of the same page to another question about the same topic;
- ``swap``: the question with its decisive word (a drug, condition, test: a word rarer than Zipf 3.5 that the
  gold passage has) replaced by a neighbour from the same corpus that the gold passage lacks (nearest by
  the shipped encoder, not a spelling variant of it), or with a population, severity, setting or step
  changed or added (:data:`SLOT_SWAPS`, :data:`POPULATION_ADDS`), against the original gold passage;
- ``rewrite``: the question as clinicians type it (:func:`rewrite`: age/sex shorthand, abbreviations,
  British spellings, lay and brand names, dropped function words, a typo) with its gold passage;
  the label does not change.

What may train (the issue's rule): BioASQ 7B-8B on a seeded half of its questions only (the other half's
ids go to the manifest for evaluation); MedQuAD less the gold passages of the evaluation sets
(:data:`EVALUATION_SETS`), PubMedQA (PQA-L) less the questions of the pubmedqa evaluation set (all 500 the
shared copy carries, so none is left), MEDIQA 2019 training and validation sets (its test set is kept back),
COVID-QA; the guideline corpus's passages as negatives and swap
targets, and the questions of the given guideline question sets (the clinician dev set). Never the
blind held-out half, ``bench/answers/heldout.jsonl``, the vignettes, the refusal set or LiveQA: the
builder refuses a question file whose name says it is one of them.

Sources: BioASQ (Tsatsaronis et al. 2015), MedQuAD (Ben Abacha & Demner-Fushman 2019, CC BY 4.0),
PubMedQA (Jin et al. 2019, MIT), MEDIQA 2019 task 3 (Ben Abacha et al. 2019), COVID-QA (Möller et al.
2020, Apache-2.0), open-medicine guideline summaries (MIT).
"""

from __future__ import annotations

import gzip
import json
import random
import re
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from difflib import SequenceMatcher
from pathlib import Path

import numpy as np

from clinqa.errors import ConfigError
from clinqa.text.unicode import normalize
from clinqa.text.words import NON_SPACE, SPACES, bounded_word, whole_word
from clinqa.text.zipf import zipf
from clinqa.training.data import in_holdout

#: a word of a question or passage (letters first, then letters, digits, hyphens)
WORD = re.compile(r"[A-Za-z][A-Za-z0-9\-]*[A-Za-z0-9]|[A-Za-z]")
#: question sets that must never be trained on (by file name)
FORBIDDEN_SETS = ("heldout", "vignettes", "refusal", "liveqa", "_test")
#: a word at most this frequent in general English (wordfreq Zipf) may be a decisive entity to swap
SWAP_ZIPF = 3.5


@dataclass
class Pair:
    """One training row. ``label`` is 1.0 (the passage answers) or 0.0. ``swapped``: the word put into the
    question by an entity swap (decisive: the passage lacks it); ``inserted``: words a rewrite added
    (shorthand and fillers: not decisive)."""

    qid: str
    source: str
    kind: str
    query: str
    passage: str
    label: float
    swapped: str = ""
    inserted: list[str] = field(default_factory=list)


def words(text: str) -> list[str]:
    """The words of ``text`` (:data:`WORD`), as written."""
    return WORD.findall(text)


def has_word(text_low: str, word: str) -> bool:
    """Does ``text_low`` (lower case) contain ``word`` as a whole word (case-insensitive)?"""
    return whole_word(word.lower()).search(text_low) is not None


# ----------------------------------------------------------------------------------------------------------
# rewrites: how clinicians type (label unchanged)

#: American -> British spellings, as substrings of a word
BRITISH = (("hemorrh", "haemorrh"), ("hemat", "haemat"), ("hemo", "haemo"), ("ischem", "ischaem"),
           ("edema", "oedema"), ("esophag", "oesophag"), ("pediatric", "paediatric"), ("anemi", "anaemi"),
           ("leukemi", "leukaemi"), ("glycemi", "glycaemi"), ("kalemi", "kalaemi"), ("natremi", "natraemi"),
           ("septicemi", "septicaemi"), ("orthoped", "orthopaed"), ("estrogen", "oestrogen"), ("fetal", "foetal"),
           ("tumor", "tumour"), ("color", "colour"), ("behavior", "behaviour"), ("center", "centre"),
           ("liter", "litre"), ("gynecol", "gynaecol"), ("diarrhea", "diarrhoea"), ("anesthe", "anaesthe"))
#: international -> British, older or brand names and lay words (both ways are how people type)
OTHER_NAMES = (("acetaminophen", "paracetamol"), ("furosemide", "frusemide"), ("epinephrine", "adrenaline"),
               ("norepinephrine", "noradrenaline"), ("albuterol", "salbutamol"), ("apixaban", "Eliquis"),
               ("rivaroxaban", "Xarelto"), ("warfarin", "Coumadin"), ("atorvastatin", "Lipitor"),
               ("metformin", "Glucophage"), ("alteplase", "tPA"), ("myocardial infarction", "heart attack"),
               ("hypertension", "high blood pressure"), ("anticoagulation", "blood thinners"),
               ("anticoagulant", "blood thinner"), ("diuretic", "water tablet"), ("stroke", "CVA"),
               ("glucocorticoid", "steroid"), ("corticosteroid", "steroid"), ("antibiotics", "abx"),
               ("antibiotic", "abx"), ("emergency department", "ED"), ("intensive care unit", "ICU"),
               ("blood pressure", "BP"), ("heart rate", "HR"), ("liver function tests", "LFTs"),
               ("nil by mouth", "NBM"), ("as needed", "PRN"), ("twice daily", "BD"), ("once daily", "OD"),
               ("patient", "pt"), ("history", "hx"), ("treatment", "tx"), ("diagnosis", "dx"),
               ("with", "w/"), ("without", "w/o"), ("years old", "yo"), ("creatinine clearance", "CrCl"))
#: words a terse clinician drops
FUNCTION_WORDS = frozenset("what is the a an of for are which does do should be to in with how".split())
AGE_SEX = ("{a}F", "{a}M", "{a}yo F", "{a}yo M", "{a} y/o woman", "{a}M pt", "pt {a}F", "{a} year old man")


def _british(q: str, rng: random.Random) -> tuple[str, list[str]]:
    out = q
    for us, gb in BRITISH:
        out = re.sub(us, gb, out, flags=re.IGNORECASE) if rng.random() < 0.9 else out
    return out, []


def _other_names(q: str, rng: random.Random) -> tuple[str, list[str]]:
    out, added = q, []
    for a, b in OTHER_NAMES:
        named = bounded_word(a, re.IGNORECASE)
        if named.search(out) and rng.random() < 0.8:
            out = named.sub(b, out)
            added += words(b)
    return out, added


def _terse(q: str, rng: random.Random) -> tuple[str, list[str]]:
    kept = [w for w in q.rstrip("?").split() if w.lower() not in FUNCTION_WORDS or rng.random() < 0.2]
    return " ".join(kept) + ("?" if rng.random() < 0.5 else ""), []


def _age_sex(q: str, rng: random.Random) -> tuple[str, list[str]]:
    tag = rng.choice(AGE_SEX).format(a=rng.randint(19, 88))
    extra = rng.choice(["", f", {rng.randint(45, 110)}kg", f", Cr {rng.randint(60, 180)}", ", hx HTN",
                        ", T2DM", f", HR {rng.randint(60, 130)}",
                        f", BP {rng.randint(95, 180)}/{rng.randint(55, 100)}"])
    return f"{tag}{extra} - {q[0].lower()}{q[1:]}", words(tag + extra)


def _typo(q: str, rng: random.Random) -> tuple[str, list[str]]:
    long = [w for w in words(q) if len(w) >= 7]
    if not long:
        return q, []
    w = rng.choice(long)
    i = rng.randrange(1, len(w) - 2)
    t = w[:i] + w[i + 1] + w[i] + w[i + 2:] if rng.random() < 0.5 else w[:i] + w[i + 1:]
    return q.replace(w, t, 1), []


def _clip(q: str, rng: random.Random) -> tuple[str, list[str]]:
    long = [w for w in words(q) if len(w) >= 9 and w.isalpha() and zipf(w.lower()) < 3.5]
    if not long:
        return q, []
    w = rng.choice(long)
    cut_to = w[:rng.randint(4, 5)] if rng.random() < 0.7 else w[-rng.randint(5, 6):]
    return q.replace(w, cut_to, 1), [cut_to]


#: one space or hyphen: the split between the words of an acronym's phrase (each part gives a letter)
_ONE_SPACE_OR_HYPHEN = re.compile(r"[ -]")
_PHRASE = re.compile(r"\b([A-Za-z]{3,}(?:[ -][A-Za-z]{3,}){1,3})\b")


def _acronym(q: str, rng: random.Random) -> tuple[str, list[str]]:
    runs = [m.group(1) for m in _PHRASE.finditer(q)
            if not any(w.lower() in FUNCTION_WORDS for w in _ONE_SPACE_OR_HYPHEN.split(m.group(1)))]
    if not runs:
        return q, []
    phrase = rng.choice(runs)
    short = "".join(w[0] for w in _ONE_SPACE_OR_HYPHEN.split(phrase)).upper()
    return q.replace(phrase, short, 1), [short]


REWRITES: tuple[Callable[[str, random.Random], tuple[str, list[str]]], ...] = (
    _british, _other_names, _terse, _age_sex, _typo, _clip, _acronym)


def rewrite(question: str, rng: random.Random) -> tuple[str, list[str]]:
    """``question`` as a clinician might type it: one to three of :data:`REWRITES` (British spellings, other names,
    dropped function words, an age/sex tag, a typo, a clipped word, an acronym), chosen by ``rng``.
    Returns the new text and the words it inserted (shorthand, fillers: never what decides)."""
    out, added = question, []
    for fn in rng.sample(REWRITES, rng.randint(1, 3)):
        out, more = fn(out, rng)
        added += more
    return out, added


# ----------------------------------------------------------------------------------------------------------
# swaps: the question no longer answered by its passage (label 0)

#: slot values that change what is asked: each group's members replace one another
SLOT_SWAPS: tuple[tuple[str, ...], ...] = (
    ("non-severe", "severe", "mild", "moderate"), ("adult", "child", "infant", "adolescent"),
    ("adults", "children", "infants", "adolescents"), ("outpatient", "inpatient", "ICU"),
    ("step 1", "step 2", "step 3", "step 4", "step 5"), ("stage 1", "stage 2", "stage 3", "stage 4"),
    ("type 1", "type 2"), ("acute", "chronic"), ("first-line", "second-line"), ("men", "women"),
    ("male", "female"), ("prevention", "treatment"), ("primary", "secondary"), ("initial", "maintenance"),
    ("oral", "intravenous"), ("upper", "lower"), ("left", "right"),
)
#: populations added to a question whose gold passage never mentions them (pattern, phrase to add)
POPULATION_ADDS = ((r"pregnan|gestation|antenatal", "in pregnancy"), (r"child|paediatric|pediatric", "in children"),
                   (r"dialysis|haemodialysis|hemodialysis", "on dialysis"),
                   (r"breastfeed|lactat", "when breastfeeding"), (r"infant|neonat|newborn", "in a neonate"),
                   (r"elderly|older|frail", "in the frail elderly"))


def slot_swap(question: str, passage_low: str, rng: random.Random) -> tuple[str, str] | None:
    """``question`` with one slot value (:data:`SLOT_SWAPS`) that ``passage_low`` (lower case) has replaced by
    one it lacks, or with a population the passage never names added (:data:`POPULATION_ADDS`); ``(new
    question, the word put in)``, or None when neither applies."""
    low = question.lower()
    options: list[tuple[str, str]] = []
    for group in SLOT_SWAPS:
        for v in group:
            if has_word(low, v):
                for other in group:
                    if other != v and not has_word(passage_low, other) and not has_word(low, other):
                        new = whole_word(v, re.IGNORECASE).sub(other, question, count=1)
                        options.append((new, other))
    for pattern, phrase in POPULATION_ADDS:
        if not re.search(pattern, passage_low) and not re.search(pattern, low):
            q = question.rstrip(" ?")
            options.append((f"{q} {phrase}?", phrase.split()[-1]))
    return rng.choice(options) if options else None


class Neighbours:
    """Rare words of a corpus and their nearest neighbours by the shipped encoder (cosine of the
    word alone), for entity swaps. ``vocab``: word -> count in the corpus (lower case); ``cased``: the form
    each word is most often written in ("PERC", "SGLT2"), which a swap puts into the question."""

    def __init__(self, vocab: Counter[str], encode: Callable[[list[str]], np.ndarray], most: int = 6000,
                 min_count: int = 2, cased: dict[str, str] | None = None) -> None:
        cands = [w for w, c in vocab.most_common() if c >= min_count and len(w) >= 3 and zipf(w) < SWAP_ZIPF
                 and not w.replace("-", "").isdigit()][:most]
        self.cased = cased or {}
        self.words = cands
        self.index = {w: i for i, w in enumerate(cands)}
        self.mat = encode(cands) if cands else np.zeros((0, 1), dtype=np.float32)

    def near(self, word: str, k: int = 8) -> list[str]:
        """Up to ``k`` neighbours of ``word`` (a word of the corpus), nearest first, spelling variants of it
        (SequenceMatcher ratio >= 0.75, or the same first 5 letters) left out. Empty for an unknown word."""
        i = self.index.get(word.lower())
        if i is None:
            return []
        sims = self.mat @ self.mat[i]
        out = []
        for j in np.argsort(-sims)[1:60]:
            w = self.words[int(j)]
            if w[:5] == word.lower()[:5] or SequenceMatcher(None, w, word.lower()).ratio() >= 0.75:
                continue
            out.append(self.cased.get(w, w))
            if len(out) >= k:
                break
        return out


def entity_swap(question: str, passage_low: str, nb: Neighbours, rng: random.Random) -> tuple[str, str] | None:
    """``question`` with one of its rare words that ``passage_low`` has (the entity the passage answers about)
    replaced by a corpus neighbour the passage lacks (:class:`Neighbours`); ``(new question, new word)``."""
    cands = [w for w in words(question) if len(w) >= 3 and zipf(w.lower()) < SWAP_ZIPF
             and has_word(passage_low, w) and w.lower() in nb.index]
    rng.shuffle(cands)
    for w in cands:
        near = [n for n in nb.near(w) if not has_word(passage_low, n) and not has_word(question.lower(), n)]
        if near:
            new = rng.choice(near[:4])
            return whole_word(w).sub(new, question, count=1), new
    return None


# ----------------------------------------------------------------------------------------------------------
# passages and BM25

def cut(text: str, chars: int = 1200) -> str:
    """``text`` normalised (:func:`clinqa.text.unicode.normalize`), whitespace runs collapsed and cut to
    ``chars`` characters (128 tokens read about 600; the rest is storage)."""
    return SPACES.sub(" ", normalize(text)).strip()[:chars]


class Bm25:
    """BM25 (:mod:`bm25s`, Lucene variant) over ``texts``; :meth:`top` gives indices, best first."""

    def __init__(self, texts: Sequence[str]) -> None:
        import bm25s

        self.n = len(texts)
        self.retriever = bm25s.BM25()
        self.retriever.index(bm25s.tokenize(list(texts), stopwords="en", show_progress=False), show_progress=False)

    def top(self, queries: Sequence[str], k: int) -> list[list[int]]:
        import bm25s

        k = min(k, self.n)
        res, _ = self.retriever.retrieve(bm25s.tokenize(list(queries), stopwords="en", show_progress=False), k=k,
                                         show_progress=False, n_threads=1)
        return [[int(i) for i in row] for row in res]


def line_units(text: str) -> list[str]:
    """The sentences and list items of a passage, split lightly (lines first, then sentence ends: ". " before a
    capital): the answering sentence of a guideline fact (not :func:`clinqa.chunking.units.units_of`, which
    labels list items with their lead-in)."""
    out = []
    for line in re.split(r"\n+", text):
        out += [s.strip() for s in re.split(r"(?<=[.;])\s+(?=[A-Z(])", line) if len(s.strip()) > 3]
    return out


# ----------------------------------------------------------------------------------------------------------
# sources: each yields (qid, question, gold passages, gold units, negatives given by the source)

@dataclass
class Item:
    """One training question: ``gold`` passages (empty: the corpus does not answer it), ``units`` the gold
    sentences, ``negatives`` judged by the source (kind, text), ``pool``: the corpus mined for
    leave-gold-out negatives (a name in :func:`build`'s pools) and ``exclude``: pool indices that are gold."""

    qid: str
    source: str
    question: str
    gold: list[str]
    units: list[str] = field(default_factory=list)
    negatives: list[tuple[str, str]] = field(default_factory=list)
    pool: str = ""
    exclude: set[int] = field(default_factory=set)


def bioasq_items(folder: Path, seed: int) -> tuple[list[Item], list[str], list[str]]:
    """BioASQ (BEIR layout): the training half of its questions (``in_holdout(qid, 0.5, seed)`` False) with
    their gold snippets, the corpus texts (pool ``bioasq``), and the evaluation half's ids."""
    corpus = [json.loads(line) for line in (folder / "corpus.jsonl").open(encoding="utf-8")]
    row = {d["_id"]: i for i, d in enumerate(corpus)}
    texts = [cut(((d.get("title") or "") + "\n" + d["text"]).strip()) for d in corpus]
    qrels: dict[str, set[str]] = {}
    for line in (folder / "qrels" / "test.tsv").read_text().splitlines()[1:]:
        q, c, s = line.split("\t")
        if int(s) > 0:
            qrels.setdefault(q, set()).add(c)
    items, held = [], []
    for line in (folder / "queries.jsonl").open(encoding="utf-8"):
        q = json.loads(line)
        if in_holdout(q["_id"], 0.5, seed):
            held.append(q["_id"])
            continue
        gold = [row[c] for c in sorted(qrels.get(q["_id"], ())) if c in row]
        if gold:
            items.append(Item(f"bioasq:{q['_id']}", "bioasq", q["text"], [texts[i] for i in gold[:3]],
                              pool="bioasq", exclude=set(gold)))
    return items, texts, held


def mediqa_items(folder: Path) -> list[Item]:
    """MEDIQA 2019 task 3 training (Alexa) and validation sets: answers with ReferenceScore 4 or 3 are gold,
    2 ("related") and 1 ("incorrect") are negatives given by the source. The test set is kept back."""
    items = []
    for path in sorted(folder.glob("MEDIQA2019-Task3-QA-*.xml")):
        if "TestSet" in path.name:
            continue
        for qel in ET.parse(path).getroot().iter("Question"):
            text = (qel.findtext("QuestionText") or "").strip()
            gold, negs = [], []
            for a in qel.iter("Answer"):
                score = int(a.get("ReferenceScore") or 0)
                body = cut(a.findtext("AnswerText") or "")
                if not body:
                    continue
                if score >= 3:
                    gold.append(body)
                elif score in (1, 2):
                    negs.append(("related" if score == 2 else "incorrect", body))
            if text and (gold or negs):
                items.append(Item(f"mediqa:{path.stem.split('-')[-1]}:{qel.get('QID')}", "mediqa", text, gold[:2],
                                  negatives=negs[:3]))
    return items


def covidqa_items(path: Path, window: int = 90) -> tuple[list[Item], list[str]]:
    """COVID-QA (SQuAD layout): each article cut into windows of ``window`` words (pool ``covidqa``); the
    window holding the answer start is gold, the answer's sentence its unit; the article's other windows
    are mined as leave-gold-out negatives (same article: the nearest topic there is)."""
    data = json.loads(path.read_text(encoding="utf-8"))["data"]
    texts: list[str] = []
    items = []
    for art in data:
        for par in art["paragraphs"]:
            ctx = par["context"]
            spans = [m.start() for m in NON_SPACE.finditer(ctx)]
            first = len(texts)
            bounds = []
            for k in range(0, len(spans), window):
                a = spans[k]
                b = spans[k + window] if k + window < len(spans) else len(ctx)
                bounds.append((a, b))
                texts.append(cut(ctx[a:b]))
            for qa in par["qas"]:
                if qa.get("is_impossible") or not qa["answers"]:
                    continue
                ans = qa["answers"][0]
                s = ans["answer_start"]
                k = next((i for i, (a, b) in enumerate(bounds) if a <= s < b), None)
                if k is None:
                    continue
                unit = cut(ans["text"], 600)
                items.append(Item(f"covidqa:{qa['id']}", "covidqa", qa["question"], [texts[first + k]],
                                  [unit] if len(unit.split()) >= 4 else [], pool=f"covidqa:{first}:{len(texts)}",
                                  exclude={first + k}))
    return items, texts


def medquad_items(raw: Path, most: int, seed: int, exclude: set[str] = frozenset()) -> list[Item]:
    """MedQuAD XML: at most ``most`` answered pairs (seeded sample), each with its answer as gold and up to two
    answers of the same page to other questions as ``sibling`` negatives. A pair whose passage id
    (``<prefix>_<file stem>_Sec<k>``, the MedQuAD-BEIR rule) is in ``exclude`` (the gold of an evaluation set)
    is left out, as a positive and as a sibling."""
    from clinqa.training.data import MEDQUAD_PREFIX

    pages: list[list[tuple[str, str, str]]] = []
    for name, prefix in MEDQUAD_PREFIX.items():
        for path in sorted((raw / name).glob("*.xml")) if (raw / name).is_dir() else []:
            try:
                root = ET.parse(path).getroot()
            except ET.ParseError:
                continue
            qa = [((p.findtext("Question") or "").strip(), cut(p.findtext("Answer") or ""),
                   f"{prefix}_{path.stem}_Sec{k}") for k, p in enumerate(root.iter("QAPair"), start=1)]
            qa = [(q, a, cid) for q, a, cid in qa if q and a and cid not in exclude]
            if qa:
                pages.append(qa)
    rng = random.Random(seed)
    flat = [(pi, k) for pi, page in enumerate(pages) for k in range(len(page))]
    items = []
    for pi, k in rng.sample(flat, min(most, len(flat))):
        q, a, cid = pages[pi][k]
        sibs = [b for j, (_, b, _) in enumerate(pages[pi]) if j != k and b != a]
        items.append(Item(f"medquad:{cid}", "medquad", q, [a],
                          negatives=[("sibling", s) for s in rng.sample(sibs, min(2, len(sibs)))]))
    return items


def pubmedqa_items(path: Path, exclude: set[str] = frozenset()) -> tuple[list[Item], list[str]]:
    """PubMedQA PQA-L (``ori_pqal.json``): each question with its abstract's contexts as gold (pool
    ``pubmedqa``: every abstract, the 500 of the test split without their questions too)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    texts, items = [], []
    for pmid, d in data.items():
        texts.append(cut(" ".join(d.get("CONTEXTS", []))))
        if not d.get("QUESTION") or pmid in exclude:  # the test split's questions were removed from the shared
            continue  # copy; ``exclude``: the questions of the pubmedqa evaluation set
        items.append(Item(f"pubmedqa:{pmid}", "pubmedqa", d["QUESTION"], [texts[-1]], pool="pubmedqa",
                          exclude={len(texts) - 1}))
    return items, texts


def refuse_evaluation_set(path: Path) -> None:
    """Raise :class:`ConfigError` when ``path``'s name says it is a set that may not be trained on
    (:data:`FORBIDDEN_SETS`: held-out halves, vignettes, the refusal set, LiveQA, test splits)."""
    if any(f in Path(path).name.lower() for f in FORBIDDEN_SETS):
        raise ConfigError(f"{path}: an evaluation set that may not be trained on (issue 39)")


def guideline_items(question_files: Sequence[Path], chunks: list[tuple[str, str]]) -> list[Item]:
    """Questions of clinician question sets over the guideline corpus (``bench/answers`` format) against the
    store's chunks ``[(doc_id, text)]`` (pool ``guidelines``): the chunks of the question's document that
    hold one of its facts are gold, the sentences holding a fact its units. An uncovered question has no
    gold: every passage mined for it is a negative. Raises :class:`ConfigError` for a set that may not be
    trained on (:data:`FORBIDDEN_SETS`)."""
    from clinqa.evaluation.facts import load_questions

    low = [normalize(t).lower() for _, t in chunks]
    items = []
    for path in question_files:
        refuse_evaluation_set(path)
        for q in load_questions(Path(path)):
            alts = [normalize(a).lower() for f in q.facts for a in f]
            gold = [i for i, (d, _) in enumerate(chunks) if d == q.doc_id and any(a in low[i] for a in alts)]
            units = sorted({u for i in gold for u in line_units(chunks[i][1])
                            if any(a in normalize(u).lower() for a in alts)})
            if q.answerable and not gold:
                continue
            items.append(Item(f"guidelines:{Path(path).stem}:{q.qid}", "guidelines", q.question,
                              [cut(chunks[i][1]) for i in gold[:2]], [cut(u, 600) for u in units[:2]],
                              pool="guidelines", exclude=set(gold)))
    return items


# ----------------------------------------------------------------------------------------------------------

def pairs_for(item: Item, pools: dict[str, list[str]], mined: list[int], rng: random.Random,
              nb: Neighbours | None, n_mined: int, n_rewrites: int) -> Iterator[Pair]:
    """The rows of one question: positives, units, source negatives, ``n_mined`` leave-gold-out negatives
    (``mined``: pool indices, best first), one entity or slot swap per gold passage, ``n_rewrites``
    rewrites."""
    q = item.question
    for g in item.gold:
        yield Pair(item.qid, item.source, "positive", q, g, 1.0)
    for u in item.units:
        yield Pair(item.qid, item.source, "positive_unit", q, u, 1.0)
    for kind, text in item.negatives:
        yield Pair(item.qid, item.source, kind, q, text, 0.0)
    pool = pools.get(item.pool.split(":")[0], [])
    gold_set = set(item.gold)
    taken = 0
    for i in mined:
        if i in item.exclude or pool[i] in gold_set:
            continue
        yield Pair(item.qid, item.source, "leave_gold_out", q, pool[i], 0.0)
        taken += 1
        if taken >= (n_mined if item.gold else n_mined + 2):
            break
    for g in item.gold[:1] + item.units[:1]:
        low = g.lower()
        swap = entity_swap(q, low, nb, rng) if nb is not None and rng.random() < 0.6 else None
        swap = swap or slot_swap(q, low, rng)
        if swap is None and nb is not None:
            swap = entity_swap(q, low, nb, rng)
        if swap:
            yield Pair(item.qid, item.source, "swap", swap[0], g, 0.0, swapped=swap[1])
    for _ in range(n_rewrites if item.gold else 0):
        new, added = rewrite(q, rng)
        if new != q:
            yield Pair(item.qid, item.source, "rewrite", new, rng.choice(item.gold + item.units), 1.0,
                       inserted=added)
    if not item.gold and n_rewrites:  # an uncovered question typed otherwise is still uncovered
        new, added = rewrite(q, rng)
        for i in mined[:1]:
            yield Pair(item.qid, item.source, "leave_gold_out", new, pool[i], 0.0, inserted=added)


def vocab_of(texts: Iterable[str]) -> Counter[str]:
    """Lower-case word counts of ``texts``."""
    c: Counter[str] = Counter()
    for t in texts:
        c.update(w.lower() for w in words(t))
    return c


def cased_of(texts: Iterable[str]) -> dict[str, str]:
    """Lower-case word -> the form it is most often written in across ``texts``."""
    c: Counter[str] = Counter()
    for t in texts:
        c.update(words(t))
    out: dict[str, str] = {}
    for w, _ in c.most_common():
        out.setdefault(w.lower(), w)
    return out


def neighbours_of(texts: Sequence[str], encode: Callable[[list[str]], np.ndarray]) -> Neighbours:
    """:class:`Neighbours` of the words of ``texts``, written as the texts write them."""
    return Neighbours(vocab_of(texts), encode, cased=cased_of(texts))


#: evaluation sets (BEIR folders under shared/data) whose questions and gold passages are never trained on
EVALUATION_SETS = ("pubmedqa", "liveqa-medquad", "medquad-selfqa")


def evaluation_gold(shared: Path) -> set[str]:
    """The query ids and gold passage ids of :data:`EVALUATION_SETS` (every qrels file of each)."""
    out: set[str] = set()
    for name in EVALUATION_SETS:
        for path in sorted((shared / name / "qrels").glob("*.tsv")):
            for line in path.read_text(encoding="utf-8").splitlines()[1:]:
                q, c, *_ = line.split("\t")
                out.update((q, c))
    return out


def build(shared: Path, out: Path, guideline_chunks: list[tuple[str, str]], question_files: Sequence[Path],
          encode: Callable[[list[str]], np.ndarray], seed: int = 0, medquad_most: int = 4000,
          n_mined: int = 3, n_rewrites: int = 2, progress: bool = True) -> dict:
    """Build ``out/pairs.jsonl.gz`` and ``out/manifest.json`` from ``shared`` (the ``shared/data`` folder) and
    the guideline store's chunks; returns the manifest. ``encode``: unit vectors of short texts (the shipped
    encoder's queries), for the swap neighbours. Raises :class:`ConfigError` when a source is missing."""
    from tqdm.auto import tqdm

    raw = shared / "raw"
    need = [shared / "bioasq", raw / "mediqa2019", raw / "covid-qa", raw / "medquad", raw / "pubmedqa"]
    for p in need:
        if not p.exists():
            raise ConfigError(f"{p}: training source missing (see shared/data/README.md)")
    bio, bio_texts, bio_held = bioasq_items(shared / "bioasq", seed)
    cov, cov_texts = covidqa_items(raw / "covid-qa" / "200423_covidQA.json")
    held = evaluation_gold(shared)
    pmq, pmq_texts = pubmedqa_items(raw / "pubmedqa" / "ori_pqal.json", held)
    gl_texts = [cut(t) for _, t in guideline_chunks]
    gl = guideline_items(question_files, guideline_chunks)
    items = {"guidelines": gl, "bioasq": bio, "covidqa": cov, "pubmedqa": pmq,
             "mediqa": mediqa_items(raw / "mediqa2019"),
             "medquad": medquad_items(raw / "medquad", medquad_most, seed, held)}
    pools = {"guidelines": gl_texts, "bioasq": bio_texts, "covidqa": cov_texts, "pubmedqa": pmq_texts}
    neighbours = {name: neighbours_of(texts, encode) for name, texts in
                  (("guidelines", gl_texts), ("bioasq", bio_texts), ("covidqa", cov_texts), ("pubmedqa", pmq_texts))}
    neighbours["medquad"] = neighbours["mediqa"] = neighbours_of([g for it in items["medquad"] for g in it.gold],
                                                                 encode)
    rng = random.Random(seed)
    out.mkdir(parents=True, exist_ok=True)
    counts: Counter[str] = Counter()
    ids: dict[str, list[str]] = {}
    with gzip.open(out / "pairs.jsonl.gz", "wt", encoding="utf-8") as f:
        for name, its in items.items():
            ids[name] = [it.qid for it in its]
            mined: list[list[int]] = [[] for _ in its]
            if its and its[0].pool:
                if name == "covidqa":  # within the article only
                    for k, it in enumerate(its):
                        _, a, b = it.pool.split(":")
                        sub = Bm25(cov_texts[int(a):int(b)]) if int(b) - int(a) > 1 else None
                        mined[k] = [int(a) + i for i in sub.top([it.question], 6)[0]] if sub else []
                else:
                    mined = Bm25(pools[name]).top([it.question for it in its], 12)
            for it, m in tqdm(list(zip(its, mined, strict=True)), desc=f"pairs {name}", disable=not progress):
                for p in pairs_for(it, pools, m, rng, neighbours.get(name), n_mined, n_rewrites):
                    counts[f"{name}/{p.kind}"] += 1
                    f.write(json.dumps(asdict(p), ensure_ascii=False) + "\n")
    manifest = {
        "seed": seed, "sources": {k: len(v) for k, v in items.items()}, "rows": dict(sorted(counts.items())),
        "question_files": [str(p) for p in question_files], "train_question_ids": ids,
        "bioasq_eval_ids": bio_held,
        "never_trained": ["blind held-out half", "bench/answers/heldout.jsonl", "bench/answers/vignettes.jsonl",
                          "shared/data/refusal", "shared/data/liveqa-medquad (questions and gold passages)",
                          "shared/data/pubmedqa (its 500 questions)", "shared/data/medquad-selfqa (gold passages)",
                          "MEDIQA 2019 test set",
                          "BioASQ evaluation half (bioasq_eval_ids)"],
        "licences": {"bioasq": "BioASQ terms of use (development only; not redistributed)",
                     "medquad": "CC BY 4.0", "pubmedqa": "MIT",
                     "mediqa": "MEDIQA 2019 (Ben Abacha et al.), research use",
                     "covidqa": "Apache-2.0", "guidelines": "open-medicine, MIT"},
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1), encoding="utf-8")
    return manifest


def read_pairs(path: Path) -> list[Pair]:
    """The rows of a ``pairs.jsonl.gz`` written by :func:`build`."""
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return [Pair(**json.loads(line)) for line in f]


#: rows drawn per source for training, at most (guideline rows are the target domain: all, repeated)
SOURCE_CAPS = {"guidelines": None, "bioasq": 5000, "covidqa": 7000, "pubmedqa": 3000, "mediqa": None, "medquad": 9000}


def training_rows(pairs: Sequence[Pair], seed: int = 0, repeat_guidelines: int = 3,
                  caps: dict[str, int | None] | None = None) -> dict[str, list]:
    """Rows for :func:`clinqa.training.trainer.train_reranker_rows`: per source at most ``caps[source]`` rows
    (:data:`SOURCE_CAPS`, seeded sample), the guideline rows ``repeat_guidelines`` times, shuffled."""
    caps = SOURCE_CAPS if caps is None else caps
    rng = random.Random(seed)
    by_source: dict[str, list[Pair]] = {}
    for p in pairs:
        by_source.setdefault(p.source, []).append(p)
    chosen: list[Pair] = []
    for src, ps in sorted(by_source.items()):
        cap = caps.get(src)
        take = list(ps) if cap is None or cap >= len(ps) else rng.sample(ps, cap)
        chosen += take * (repeat_guidelines if src == "guidelines" else 1)
    rng.shuffle(chosen)
    return {"query": [p.query for p in chosen], "passage": [p.passage for p in chosen],
            "label": [p.label for p in chosen]}
