"""Hand-made passages and questions shared by several test folders (importable as ``tiny_data``:
the tests folder is on sys.path; a module named ``conftest`` is not safe to import by name)."""

import json
from pathlib import Path

import numpy as np

from clinqa.chunking.base import Chunk
from clinqa.chunking.tokens import WordCounter
from clinqa.pipeline import Pipeline
from clinqa.retrieval.hybrid import Retrieved
from clinqa.settings import Settings

#: a hand-made BEIR folder for tiny training runs: (query, gold passage) pairs plus distractors
TINY_DOCS = {
    "d1": ("Apixaban", "Apixaban 5 mg twice daily is used for stroke prevention in atrial fibrillation."),
    "d2": ("Metformin", "Metformin is the first-line drug for type 2 diabetes; reduce the dose when eGFR is low."),
    "d3": ("Sepsis fluids", "Give 30 mL/kg of intravenous crystalloid within the first 3 hours of sepsis."),
    "d4": ("Asthma", "Inhaled corticosteroids are the controller treatment for persistent asthma."),
    "d5": ("Gout", "Allopurinol lowers urate; start low and titrate to a serum urate below 6 mg/dL."),
    "d6": ("Hypertension", "Thiazides, ACE inhibitors, ARBs or calcium-channel blockers are first-line."),
    "d7": ("Warfarin", "Warfarin needs INR monitoring with a target INR of 2 to 3 in atrial fibrillation."),
    "d8": ("Pneumonia", "Amoxicillin is first-line for low-severity community-acquired pneumonia."),
}
TINY_QUERIES = {
    "q1": ("What dose of apixaban prevents stroke in AF?", "d1"),
    "q2": ("First-line drug for type 2 diabetes?", "d2"),
    "q3": ("How much fluid in sepsis?", "d3"),
    "q4": ("What controls persistent asthma?", "d4"),
    "q5": ("How to lower urate in gout?", "d5"),
    "q6": ("What INR target for warfarin?", "d7"),
}


class WordsPlusSpecial(WordCounter):
    """Whitespace words plus 2 special tokens: additive like WordPiece, fast, and countable by hand
    (the chunking and fuzz tests' token counter)."""

    special_tokens = 2

    def count(self, text: str) -> int:
        return len(text.split()) + 2

    def count_many(self, texts: list[str]) -> list[int]:
        return [self.count(t) for t in texts]


class KeywordEncoder:
    """A transparent stand-in for a bi-encoder in unit tests: one dimension per keyword."""

    words = ("heparin", "insulin", "warfarin")
    dim = 3
    model_id = "kw"
    max_tokens = 512

    def encode_passages(self, texts, progress=False):
        v = np.array([[t.lower().count(w) for w in self.words] for t in texts], dtype=np.float32) + 1e-6
        return v / np.linalg.norm(v, axis=1, keepdims=True)

    encode_queries = encode_passages


def chunk_hit(cid: str, body: str, rank: int, section: list[str], dense: float = 0.5) -> Retrieved:
    chunk = Chunk(chunk_id=cid, doc_id=cid.split("#")[0], text=body, body=body, title="T", section_path=section)
    return Retrieved(chunk, 1 / (60 + rank), rank, scores={"dense": dense})


class FlatEncoder(KeywordEncoder):
    """Every text the same vector: selection is decided by the lexical and structural rules alone."""

    def encode_passages(self, texts, progress=False):
        return np.ones((len(texts), 3), dtype=np.float32) / np.sqrt(3)

    encode_queries = encode_passages


def with_llm(base: Pipeline, url: str, generation: dict[str, object] | None = None, **answer: object) -> Pipeline:
    """``base``'s pipeline (its store and loaded encoder) answering through the OpenAI-compatible server at ``url``
    (the real client; tests/llm/chat_server.py), no retries, 5 s timeout; ``answer``: answer settings changed too
    (``lexicon=False``); ``generation``: generation settings changed too (``{"unsupported": "flag"}``)."""
    s = base.settings.model_copy(update={
        "llm": base.settings.llm.model_copy(update={"backend": "openai", "base_url": url, "model": "gpt-4o-mini",
                                                    "max_retries": 0, "timeout_s": 5}),
        "answer": base.settings.answer.model_copy(update=answer),
        "generation": base.settings.generation.model_copy(update=generation or {})})
    p = Pipeline(s)
    p._encoder = base.encoder
    return p


# -- the per-scope BM25 tests' corpus (tests/store/test_scoped_bm25.py on Qdrant, test_lance_scoped_bm25.py on
# LanceDB): reference guidelines, two patients' notes, and the notes added later (a new patient P3, more of P2)
SCOPE_REFERENCE = {"g1": "Warfarin dosing: target INR 2 to 3 in atrial fibrillation.",
                   "g2": "Apixaban or warfarin for stroke prevention; check renal function.",
                   "g3": "Statins after myocardial infarction lower the risk of stroke."}
SCOPE_NOTES = {"P1": {"n1": "Patient on warfarin, INR 2.4 today; no bleeding.",
                      "n2": "Renal function stable on apixaban."},
               "P2": {"n3": "Warfarin stopped after a bleed; INR high."}}
SCOPE_LATER = {"P3": {"n4": "Warfarin warfarin INR INR stroke", "n5": "Started warfarin for fibrillation."},
               "P2": {"n6": "Warfarin restarted at 3 mg; INR target 2 to 3; stroke risk."}}
SCOPE_QUERY = "warfarin INR stroke"


class GivenDocuments:
    """Whole documents' chunks given by hand, handed to the choice of passages as
    :class:`clinqa.evidence.passages.DocumentChunks` hands a store's (its ``chunks_of``): ``by_doc`` maps a document
    id to its chunks, ``other`` is what any other document has; ``asked`` records the documents asked for."""

    def __init__(self, by_doc: dict[str, list[Chunk]] | None = None, other: list[Chunk] | None = None) -> None:
        self.by_doc, self.other, self.asked = by_doc or {}, other or [], []

    def chunks_of(self, doc_id: str) -> list[Chunk]:
        self.asked.append(doc_id)
        return list(self.by_doc.get(doc_id, self.other))


def notes_pipeline(folder: Path, patient_id: str, notes: list[tuple[str, str, str]]) -> Pipeline:
    """A pipeline over one patient's clinic notes, ``(note id, ISO date, text)`` each, written to
    ``folder/notes.jsonl`` in the notes format and ingested into ``folder/data``."""
    src = folder / "notes.jsonl"
    src.write_text("".join(json.dumps({"patient_id": patient_id, "note_id": n, "date": day, "note_type": "clinic",
                                       "author_role": "physician", "text": text}) + "\n" for n, day, text in notes))
    p = Pipeline(Settings(data_dir=folder / "data"))
    p.ingest([src], progress=False)
    return p
