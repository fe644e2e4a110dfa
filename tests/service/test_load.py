"""A bounded load test of the real service: ``clinqa serve --workers 2`` in its own processes on a
loopback port, 50 concurrent clients asking the real LiveQA developer questions (``POST /ask`` and
``POST /search``, rating every logged answer) while ``clinqa ingest`` adds MedQuAD passages from
another process. Fixed request count and an overall deadline; no speed is asserted, the latencies
are printed. The driver is ``bench/load/run.py`` (the long soak variant runs it with more clients,
requests and ingest rounds). Skipped when ``../shared/data`` is absent."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[2]

#: the load of the CI run: change these to scale it (about a minute on 2 cores, mostly embedding the
#: passages of the base store and of the ingest; bench/load/run.py takes the same as options)
CLIENTS = 50
REQUESTS_PER_CLIENT = 2  # alternately /ask and /search: half of all requests are /ask
BASE_PASSAGES = 100  # ingested before the service starts
INGEST_PASSAGES = 60  # ingested by `clinqa ingest` during the load
WORKERS = 2
SPREAD_S = 10.0  # a request starts within this many seconds (seeded) of its wave: the load's start for
# a client's first request, the ingest's first visible commit for its second
DEADLINE_S = 240.0  # every response must arrive within this many seconds of the load's start


def _driver() -> ModuleType:
    spec = importlib.util.spec_from_file_location("clinqa_bench_load", REPO / "bench" / "load" / "run.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses look their module up
    spec.loader.exec_module(mod)
    return mod


def test_concurrent_clients_during_ingest(shared_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    load = _driver()
    cfg = load.LoadConfig(clients=CLIENTS, requests=REQUESTS_PER_CLIENT, base_passages=BASE_PASSAGES,
                          ingest_passages=INGEST_PASSAGES, ingest_rounds=1, workers=WORKERS, spread_s=SPREAD_S,
                          deadline_s=DEADLINE_S)
    s = load.run(tmp_path, cfg, shared_dir / "liveqa-medquad")
    with capsys.disabled():
        print("\n" + load.format_summary(s))
    assert s["problems"] == []
    asks = CLIENTS * REQUESTS_PER_CLIENT // 2
    searches = CLIENTS * REQUESTS_PER_CLIENT - asks
    routes = s["routes"]
    # every request answered 200: no 5xx, no connection error, nothing past the deadline
    assert routes["/ask"]["status"] == {"200": asks}
    assert routes["/search"]["status"] == {"200": searches}
    # every /ask is logged (answers and refusals) and every answer was rated and read back
    assert routes["/feedback"]["status"] == {"200": asks}
    assert routes["/queries/{id}"]["status"] == {"200": asks}
    assert s["status"] == {"200": 3 * asks + searches}
    c = s["checks"]
    assert c["asks_with_query_id"] == c["log_rows"] == asks
    assert c["feedback_posted"] == c["feedback_rows"] == asks
    assert c["documents_after"] == BASE_PASSAGES + INGEST_PASSAGES
    assert c["ingested_doc_searchable"] is True
    assert c["service_log_problems"] == {}
    # the ingest really ran beside the clients and stored every passage
    assert [r["rc"] for r in s["ingest"]] == [0]
    assert s["ingest"][0]["documents"] == INGEST_PASSAGES
    assert s["requests_during_ingest"] > 0
    # the second half of the requests started after the ingest's first commit was visible: answers
    # were logged from the corpus before and after it
    assert len(c["corpus_versions_logged"]) >= 2


def test_two_workers_build_the_missing_fulltext_index_at_once(tmp_path: Path) -> None:
    """Found by the load test (4 workers on an empty store, `bench/load/run.py --workers 4 --base 0`):
    the first ingest commits its first batch long before it builds the full-text index, so every
    worker's first search builds it (``LanceStore._fts`` -> ``refresh_indexes``). When another
    worker's build commits first, LanceDB refuses the later one ("Retryable commit conflict ...
    CreateIndex transaction was preempted by concurrent transaction CreateIndex") and the search
    answered 500. The interleaving is forced here: worker B starts its build, worker A's commits."""
    import numpy as np

    from clinqa.chunking.base import Chunk
    from clinqa.retrieval import Filters
    from clinqa.store.lancedb import LanceStore

    path = tmp_path / "lancedb"
    chunks = [Chunk(chunk_id=f"d{i}#0", doc_id=f"d{i}", text=f"aspirin dose {i}", body=f"aspirin dose {i}")
              for i in range(20)]
    LanceStore(path).replace_documents([c.doc_id for c in chunks], chunks,
                                       np.random.default_rng(0).random((20, 8), dtype=np.float32))
    a, b = LanceStore(path), LanceStore(path)  # two workers, opened before any index exists
    build = b._table.create_index

    def racing(*args: object, **kwargs: object) -> object:
        a.refresh_indexes()  # A's build commits while B's is under way
        return build(*args, **kwargs)

    b._table.create_index = racing
    hits = b.bm25_search("aspirin", 5, Filters())
    assert len(hits) == 5 and all("aspirin" in h.chunk.text for h in hits)
