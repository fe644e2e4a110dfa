"""Encoder throughput by precision: fp32 and int8 (``embedding.precision``) on ONNX Runtime, and bf16 on
PyTorch where torch is installed, on the same texts in the same run.

Texts: ``--n`` seeded chunks of the LiveQA-MedQuAD corpus (``../shared/data/liveqa-medquad``; MedQuAD, NIH
sites, CC BY 4.0 per the data README) and the answer units (sentences, items, rows) of those chunks. Each
encoder runs ``--repeats`` times; the best time is reported (other load only slows a run down). Reports
texts/s for chunks and for sentences, and the cosine of each vector to fp32 (min and mean).

    python bench/encoder/precision.py --n 384 --output runs/encoder-precision
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from throughput import chunk_texts


def best_time(fn, texts: list[str], repeats: int) -> tuple[float, np.ndarray]:  # type: ignore[no-untyped-def]
    """Best wall time of ``fn(texts)`` over ``repeats`` runs (after one warm-up batch) and its output."""
    fn(texts[:32])
    best, out = float("inf"), None
    for _ in range(repeats):
        t = time.perf_counter()
        out = fn(texts)
        best = min(best, time.perf_counter() - t)
    assert out is not None
    return best, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=384)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--output", type=Path, default=Path("runs/encoder-precision"))
    a = ap.parse_args()
    from clinqa.chunking.units import embedding_texts
    from clinqa.embedding import build_encoder
    from clinqa.settings import EmbeddingSettings

    chunks = chunk_texts(a.n, a.seed)
    sentences = list(dict.fromkeys(u for c in chunks for u in embedding_texts(c.split("\n\n", 1)[-1])))[: a.n * 3]
    precisions = ["fp32", "int8"] + (["bf16"] if importlib.util.find_spec("torch") else [])
    rows, ref = [], {}
    for prec in precisions:
        enc = build_encoder(EmbeddingSettings(precision=prec, fast_queries=prec != "bf16"))
        row: dict[str, object] = {"precision": prec, "model_id": enc.model_id}
        for name, texts in (("chunks", chunks), ("sentences", sentences)):
            secs, vecs = best_time(enc.encode_passages, texts, a.repeats)
            row[f"{name}_per_s"] = round(len(texts) / secs, 1)
            if prec == "fp32":
                ref[name] = vecs
            cos = np.sum(vecs * ref[name], axis=1)
            row[f"{name}_cos_min"], row[f"{name}_cos_mean"] = round(float(cos.min()), 4), round(float(cos.mean()), 5)
        rows.append(row)
        print(json.dumps(row), flush=True)
    a.output.mkdir(parents=True, exist_ok=True)
    (a.output / "precision.json").write_text(json.dumps({"chunks": len(chunks), "sentences": len(sentences),
                                                         "rows": rows}, indent=2))


if __name__ == "__main__":
    main()
