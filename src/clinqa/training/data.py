"""Training data for rerankers and encoders: questions with their gold passages, and hard
negatives mined with clinqa's own retrieval.

Sources of (question, gold passage) pairs:

- a BEIR folder (``queries.jsonl`` + ``qrels/<split>.tsv`` + ``corpus.jsonl``): the user's own
  question-answer pairs in the standard interchange format (e.g. the pubmedqa dev questions);
- the MedQuAD XML release (Ben Abacha & Demner-Fushman, BMC Bioinformatics 2019): every
  answered ``<QAPair>`` gives its question and, as gold, the passage id
  ``<prefix>_<file stem>_Sec<k>`` (``k`` = 1-based position of the pair in its file) used by
  the MedQuAD-derived BEIR corpus (``../shared/data/liveqa-medquad``), whose store is reused.

Hard negatives (:func:`mine_examples`): for each question, the highest-ranked chunks of the
dense list and the BM25 list (interleaved, dense first) that belong to no gold document and
whose document title differs from every gold title (MedQuAD repeats the same topic and
question type across sources - "Glaucoma (treatment)" from GARD and from MedlinePlus - so such
passages are likely unjudged positives, not negatives). Gold passages: the best-ranked chunk
of a gold document in either list, else the gold document's first chunk.

Two more kinds of negative teach whether a passage *answers* the question rather than whether it
is on its topic (for the answerability model of issue 29):

- sibling negatives: passages of the same source page answering another question about the same
  topic (MedQuAD ids ``<prefix>_<stem>_Sec<k>`` with another ``k``: "What are the symptoms of
  glaucoma?" against the page's treatment answer), the near-topic passages the hand-written rules
  fight;
- random negatives: passages drawn uniformly (seeded per question) from the rest of the corpus,
  the off-topic floor.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import zip_longest
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from tqdm.auto import tqdm

from clinqa.errors import ConfigError

if TYPE_CHECKING:
    from clinqa.pipeline import Pipeline

#: MedQuAD folder -> corpus id prefix (the rule in ../shared/data/liveqa-medquad/README.md)
MEDQUAD_PREFIX = {
    "1_CancerGov_QA": "CancerGov", "2_GARD_QA": "GARD", "3_GHR_QA": "GHR",
    "4_MPlus_Health_Topics_QA": "MPlusHealthTopics", "5_NIDDK_QA": "NIDDK", "6_NINDS_QA": "NINDS",
    "7_SeniorHealth_QA": "NIHSeniorHealth", "8_NHLBI_QA_XML": "NHLBI", "9_CDC_QA": "CDC",
    "10_MPlus_ADAM_QA": "ADAM", "11_MPlusDrugs_QA": "MPlusDrugs", "12_MPlusHerbsSupplements_QA": "MPlusHerbsSuppls",
}


@dataclass
class TrainQuery:
    """One training question and the ids of its gold corpus documents."""

    qid: str
    text: str
    positives: set[str]
    source: str = ""


@dataclass
class Example:
    """A mined training example: the question, one gold passage, hard-negative passages."""

    qid: str
    query: str
    positive: str
    negatives: list[str] = field(default_factory=list)


def medquad_queries(raw_dir: Path) -> list[TrainQuery]:
    """Answered MedQuAD question-answer pairs as :class:`TrainQuery` (gold = the pair's corpus
    id by the MedQuAD-BEIR id rule). Pairs with an empty answer are skipped. Raises
    :class:`ConfigError` when ``raw_dir`` holds none of the 12 MedQuAD subset folders."""
    from clinqa.documents.loaders._io import parse_xml, read_bytes
    from clinqa.documents.loaders.medquad import _child, _desc, _text, clean_question

    raw_dir = Path(raw_dir)
    out: list[TrainQuery] = []
    folders = [raw_dir / f for f in MEDQUAD_PREFIX if (raw_dir / f).is_dir()]
    if not folders:
        raise ConfigError(f"{raw_dir}: no MedQuAD subset folders (1_CancerGov_QA ... 12_MPlusHerbsSupplements_QA)")
    for folder in folders:
        prefix = MEDQUAD_PREFIX[folder.name]
        for path in sorted(folder.glob("*.xml")):
            root = parse_xml(path, read_bytes(path))
            for k, pair in enumerate(_desc(root, "qapair", "pair"), start=1):
                answer = _child(pair, "answer")
                question = clean_question(_text(_child(pair, "question")))
                if answer is None or not "".join(answer.itertext()).strip() or not question:
                    continue
                cid = f"{prefix}_{path.stem}_Sec{k}"
                out.append(TrainQuery(f"medquad:{cid}", question, {cid}, "medquad"))
    return out


def beir_queries(folder: Path, split: str = "test") -> list[TrainQuery]:
    """Judged queries of a BEIR folder as :class:`TrainQuery` (gold = qrels grade >= 1)."""
    from clinqa.evaluation.datasets import load_dataset

    ds = load_dataset(folder, split=split)
    return [TrainQuery(q.qid, q.text, set(ds.qrels[q.qid]), ds.name) for q in ds.queries if ds.qrels.get(q.qid)]


def in_holdout(qid: str, fraction: float, seed: int) -> bool:
    """Deterministic split: True for about ``fraction`` of ids (SHA-256 of seed and id)."""
    h = hashlib.sha256(f"{seed}:{qid}".encode()).digest()
    return int.from_bytes(h[:8], "big") / 2**64 < fraction


def split_queries(queries: list[TrainQuery], holdout: float, seed: int,
                  exclude_docs: set[str] = frozenset()) -> tuple[list[TrainQuery], list[TrainQuery]]:
    """``(train, held_out)``: queries whose gold touches ``exclude_docs`` (e.g. the gold passages
    of an evaluation set) are dropped from both; the rest split by :func:`in_holdout`."""
    keep = [q for q in queries if not (q.positives & exclude_docs)]
    train = [q for q in keep if not in_holdout(q.qid, holdout, seed)]
    held = [q for q in keep if in_holdout(q.qid, holdout, seed)]
    return train, held


def sample(queries: list[TrainQuery], n: int | None, seed: int) -> list[TrainQuery]:
    """At most ``n`` queries drawn with ``random.Random(seed)`` (all, in order, when ``n`` is None)."""
    if n is None or n >= len(queries):
        return list(queries)
    return random.Random(seed).sample(queries, n)


def sibling_key(doc_id: str) -> str | None:
    """The source page of a MedQuAD-BEIR passage id (``GARD_0000123_Sec2`` -> ``GARD_0000123``);
    None for an id without a ``_Sec<k>`` suffix (no siblings known)."""
    m = re.fullmatch(r"(.+)_Sec\d+", doc_id)
    return m.group(1) if m else None


def without_title_qualifier(text: str) -> str:
    """``text`` with the parenthesised qualifier of its first line removed when that line is a header
    (followed by a blank line): ``"Gout (treatment)\n\nNSAIDs ..."`` -> ``"Gout\n\nNSAIDs ..."``. MedQuAD titles
    name the question type a passage answers, which a model could match against the question's words
    instead of reading the passage."""
    head, sep, body = text.partition("\n\n")
    m = re.fullmatch(r"(.*\S) \([^()]*\)", head)
    return f"{m.group(1)}{sep}{body}" if sep and m else text


def mine_examples(pipe: Pipeline, queries: Iterable[TrainQuery], n_negatives: int = 3, depth: int = 30,
                  progress: bool = True, n_siblings: int = 0, n_random: int = 0, seed: int = 0,
                  strip_qualifiers: bool = False) -> list[Example]:
    """Hard negatives for ``queries`` from ``pipe``'s store (see the module docstring), then up to
    ``n_siblings`` sibling and ``n_random`` random negatives per question, in that order;
    ``strip_qualifiers`` passes every passage through :func:`without_title_qualifier`.

    Dense search is exact cosine over all chunk vectors admitted by the production filters
    (loaded once, ``(n_chunks, dim)`` float32; the same ranking as the store's exact search),
    BM25 is the store's own. Queries whose gold is not in the store are skipped.
    """
    filters = pipe.filters()
    table = pipe.store.export(["chunk_id", "doc_id", "title", "text", "vector"], filters)
    ids = table.column("chunk_id").to_pylist()
    docs = table.column("doc_id").to_pylist()
    titles = [t.lower() for t in table.column("title").to_pylist()]
    texts = table.column("text").to_pylist()
    mat = np.asarray(table.column("vector").to_pylist(), dtype=np.float32)
    row_of = {c: i for i, c in enumerate(ids)}
    first_chunk: dict[str, int] = {}
    for i, d in enumerate(docs):
        first_chunk.setdefault(d, i)
    queries = [q for q in queries if any(p in first_chunk for p in q.positives)]
    page_rows: dict[str, list[int]] = {}
    for d, i in first_chunk.items():
        k = sibling_key(d)
        if k is not None:
            page_rows.setdefault(k, []).append(i)
    clean = without_title_qualifier if strip_qualifiers else str
    vecs = pipe.encoder.encode_queries([q.text for q in queries]) if queries else np.zeros((0, mat.shape[1]))
    out: list[Example] = []
    for q, v in tqdm(list(zip(queries, vecs, strict=True)), desc="mining negatives", disable=not progress):
        scores = mat @ np.asarray(v, dtype=np.float32)
        dense = [int(i) for i in np.argsort(-scores)[:depth]]
        bm25 = [row_of[h.chunk.chunk_id] for h in pipe.store.bm25_search(q.text, depth, filters)
                if h.chunk.chunk_id in row_of]
        ranked = [x for pair in zip_longest(dense, bm25) for x in pair if x is not None]
        gold_titles = {titles[first_chunk[p]] for p in q.positives if p in first_chunk} - {""}
        pos = next((i for i in ranked if docs[i] in q.positives), None)
        if pos is None:
            pos = min(first_chunk[p] for p in q.positives if p in first_chunk)
        negs: list[str] = []
        seen: set[int] = set()
        for i in ranked:
            if i in seen or docs[i] in q.positives or titles[i] in gold_titles or texts[i] == texts[pos]:
                continue
            seen.add(i)
            negs.append(texts[i])
            if len(negs) >= n_negatives:
                break
        rng = random.Random(f"{seed}:{q.qid}")
        pages = {k for p in q.positives if (k := sibling_key(p)) is not None}
        sibs = [i for k in sorted(pages) for i in page_rows.get(k, [])
                if docs[i] not in q.positives and texts[i] != texts[pos]]
        for i in rng.sample(sibs, min(n_siblings, len(sibs))):
            negs.append(texts[i])
        tries = 0
        while n_random and tries < 20 * n_random and len(negs) < n_negatives + n_siblings + n_random:
            tries += 1
            i = rng.randrange(len(ids))
            if docs[i] in q.positives or sibling_key(docs[i]) in pages or texts[i] in negs or texts[i] == texts[pos]:
                continue
            negs.append(texts[i])
        out.append(Example(q.qid, q.text, clean(texts[pos]), [clean(t) for t in negs]))
    return out
