"""Qdrant Edge (``store.backend: qdrant-edge``) beyond the shared contract (``test_contract.py`` runs the
whole contract on it): the BM25 score with the idf of the search's scope, worked out by hand, also after a
deletion; the payload
indexes the layout asks for; one process per shard (a second process gets a clinqa error naming the
folder and the alternatives, ``clinqa serve --workers 2`` is refused); build_store and the settings."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from clinqa.chunking.base import Chunk
from clinqa.cli import app
from clinqa.errors import ConfigError
from clinqa.settings import Settings, StoreSettings
from clinqa.store import build_store, check_workers
from clinqa.store.filters import Filters
from clinqa.store.qdrant_layout import PAYLOAD_INDEXES

qe = pytest.importorskip("qdrant_edge", reason="qdrant-edge-py is not installed (pip install 'clinqa[qdrant]')")
from clinqa.store.qdrant_edge import EdgeStore  # noqa: E402


def chunk(cid: str, text: str, **kw) -> Chunk:
    return Chunk(chunk_id=cid, doc_id=cid.split("#")[0], text=text, body=text, **kw)


def test_bm25_score_is_the_formula_with_the_scopes_idf(tmp_path: Path) -> None:
    s = EdgeStore(tmp_path / "e")
    cs = [chunk("d0#s#0", "warfarin dosing"), chunk("d1#s#0", "statins after MI"),
          chunk("d2#s#0", "warfarin warfarin INR target")]
    s.replace_documents(["d0", "d1", "d2"], cs, np.eye(4, dtype=np.float32)[:3])
    assert s.avgdl() == pytest.approx(3.0)
    hits = s.bm25_search("warfarin", 5, Filters())
    idf = math.log(1 + (3 - 2 + 0.5) / (2 + 0.5))  # N = 3 chunks, df = 2
    w0 = 1 * 2.2 / (1 + 1.2 * (0.25 + 0.75 * 2 / 3))
    w2 = 2 * 2.2 / (2 + 1.2 * (0.25 + 0.75 * 4 / 3))
    assert [h.chunk.chunk_id for h in hits] == ["d2#s#0", "d0#s#0"]
    assert [h.score for h in hits] == pytest.approx([idf * w2, idf * w0], rel=1e-6)
    # a deletion: N falls to 2, df stays 2, at once (the engine's own IDF modifier kept counting the
    # deleted point until the shard was loaded again; the idf is now the query's, from the scope statistics)
    s.delete_document("d1")
    assert s.count() == 2
    after = math.log(1 + 0.5 / 2.5) * w2
    assert s.bm25_search("warfarin", 1, Filters())[0].score == pytest.approx(after, rel=1e-6)
    s.close()
    s = EdgeStore(tmp_path / "e")
    assert s.bm25_search("warfarin", 1, Filters())[0].score == pytest.approx(after, rel=1e-6)
    s.close()


def test_payload_indexes_of_the_layout(tmp_path: Path) -> None:
    s = EdgeStore(tmp_path / "e")
    s.replace_documents(["n"], [chunk("n#s#0", "note", patient_id="A", year=2024, source="EHR")], np.ones((1, 4)))
    schema = s._sh.shard.info().payload_schema
    assert set(schema) == {name for name, _ in PAYLOAD_INDEXES}
    assert schema["patient_id"].params.is_tenant is True
    assert schema["year"].data_type == qe.PayloadSchemaType.Integer
    assert schema["patient_id"].points == 1 and schema["source_lc"].points == 1
    s.close()


def test_a_second_process_gets_a_clear_error(tmp_path: Path) -> None:
    s = EdgeStore(tmp_path / "e")
    s.replace_documents(["g"], [chunk("g#s#0", "warfarin")], np.ones((1, 4)))
    with pytest.raises(Exception, match="WouldBlock"):  # the engine itself: the shard's WAL is locked
        qe.EdgeShard.load(str(tmp_path / "e" / "shard"))
    code = f"from clinqa.store.qdrant_edge import EdgeStore; EdgeStore({str(tmp_path / 'e')!r})"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 1
    last = r.stderr.strip().splitlines()[-1]
    assert last.startswith("clinqa.errors.ConfigError: " + str(tmp_path / "e"))
    assert "open in another process" in last and "--workers 1" in last and "Qdrant server" in last
    assert "lancedb" in last
    s.close()  # released: another process opens it now
    r = subprocess.run([sys.executable, "-c", code + ".count()"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr


def test_serve_with_two_workers_is_refused(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, store=StoreSettings(backend="qdrant-edge"))
    with pytest.raises(ConfigError, match="held by one process"):
        check_workers(settings, 2)
    check_workers(settings, 1)
    check_workers(Settings(data_dir=tmp_path), 4)  # LanceDB: any number
    r = CliRunner().invoke(app, ["serve", "--workers", "2", "--data-dir", str(tmp_path),
                                 "--set", "store.backend=qdrant-edge"])
    assert r.exit_code == 2
    assert r.stderr.startswith("error: store.backend: qdrant-edge is held by one process, so clinqa serve runs "
                               "one worker, not 2: use one process (clinqa serve --workers 1), or move the store "
                               "to a Qdrant server")


def test_build_store_and_empty_folder(tmp_path: Path) -> None:
    s = build_store(Settings(data_dir=tmp_path, store=StoreSettings(backend="qdrant-edge")))
    assert isinstance(s, EdgeStore) and s.path == tmp_path / "qdrant-edge"
    assert s.sync() is False and not (tmp_path / "qdrant-edge" / "shard").exists()  # made on the first write
    s.replace_documents(["g"], [chunk("g#s#0", "warfarin")], np.ones((1, 4)))
    assert (tmp_path / "qdrant-edge" / "shard" / "edge_config.json").exists()
    assert (tmp_path / "qdrant-edge" / "meta.json").exists()
    s.drop()
    assert s.count() == 0 and s.sync() is False
    s.close()


def test_threads_share_one_shard(tmp_path: Path) -> None:
    """Service threads share the process's one shard: two store objects, concurrent reads and a write."""
    from concurrent.futures import ThreadPoolExecutor

    a, b = EdgeStore(tmp_path / "e"), EdgeStore(tmp_path / "e")
    cs = [chunk(f"d{i}#s#0", f"warfarin note {i}") for i in range(6)]
    a.replace_documents([c.doc_id for c in cs], cs, np.eye(6, dtype=np.float32))
    q = np.arange(6, dtype=np.float32)
    want = [h.chunk.chunk_id for h in b.dense_search(q, 3, Filters())]
    assert want == ["d5#s#0", "d4#s#0", "d3#s#0"]

    def work(i: int) -> list[str]:
        s = a if i % 2 else b
        if i == 7:
            s.replace_documents(["x"], [chunk("x#s#0", "unrelated text")], np.ones((1, 6)) * -1)
        assert len(s.bm25_search("warfarin", 3, Filters())) == 3
        return [h.chunk.chunk_id for h in s.dense_search(q, 3, Filters())]

    with ThreadPoolExecutor(4) as pool:
        assert all(r == want for r in pool.map(work, range(40)))
    a.close()
    assert b.count() == 7  # the shard stays open while another store uses it
    b.close()
