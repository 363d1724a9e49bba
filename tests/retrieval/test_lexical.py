"""BM25 through bm25s: parity with a reference computed by hand, and the mask applied before selection."""

from __future__ import annotations

import math

import numpy as np
import pytest

from clauseguard.retrieval.clauses import ClauseTable, lexical_text, title_text
from clauseguard.retrieval.lexical import DEFAULT_B, DEFAULT_K1, LexicalIndex
from clauseguard.retrieval.retriever import Retriever
from clauseguard.retrieval.tokens import tokens

from .conftest import clause, tiny_corpus

TEXTS = [
    "Dental implants are covered at fifty percent of the agreed tariff.",
    "A waiting period of twelve months applies to implants and crowns.",
    "Crowns and bridges are reimbursed at sixty percent.",
    "Claims must reach the insurer within six months of treatment.",
    "Implant implant implant: the implant crown is included.",
]


def reference_bm25(docs: list[list[str]], query: list[str], k1: float, b: float) -> list[float]:
    """Textbook BM25 (Lucene idf, Robertson tf saturation), over distinct query terms."""
    n = len(docs)
    avg = sum(len(d) for d in docs) / n
    scores = []
    for doc in docs:
        total = 0.0
        for term in sorted(set(query)):
            df = sum(1 for d in docs if term in d)
            if df == 0:
                continue
            idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
            tf = doc.count(term)
            total += idf * tf / (tf + k1 * (1 - b + b * len(doc) / avg))
        scores.append(total)
    return scores


@pytest.fixture
def table() -> ClauseTable:
    return ClauseTable.from_corpus(tiny_corpus([clause(f"DOC.v1.C{i}", t) for i, t in enumerate(TEXTS, 1)]))


@pytest.mark.parametrize(
    "query", ["dental implant", "waiting period implants", "crowns percent", "claims six months"]
)
def test_bm25_matches_a_reference_computation(table: ClauseTable, query: str) -> None:
    index = LexicalIndex.build(table, title_weight=0.0)
    got = index.search(query, np.ones(len(table), dtype=bool))
    body = [tokens(lexical_text(r)) for r in table.rows]
    expected = reference_bm25(body, tokens(query), DEFAULT_K1, DEFAULT_B)
    full = np.zeros(len(table))
    full[got.indices] = got.scores
    assert full == pytest.approx(expected, rel=1e-5, abs=1e-6)
    assert set(got.indices.tolist()) == {i for i, s in enumerate(expected) if s > 0}


def test_title_field_adds_a_weighted_bm25(table: ClauseTable) -> None:
    with_title = LexicalIndex.build(table, title_weight=0.3)
    body_only = LexicalIndex.build(table, title_weight=0.0)
    mask = np.ones(len(table), dtype=bool)
    query = "policy implant"
    titles = [tokens(title_text(r)) for r in table.rows]
    title_ref = reference_bm25(titles, tokens(query), DEFAULT_K1, DEFAULT_B)
    a, b = with_title.search(query, mask), body_only.search(query, mask)
    full_a, full_b = np.zeros(len(table)), np.zeros(len(table))
    full_a[a.indices], full_b[b.indices] = a.scores, b.scores
    assert full_a == pytest.approx(full_b + 0.3 * np.asarray(title_ref), rel=1e-5)


def test_masked_rows_are_never_candidates_and_zero_scores_are_dropped(table: ClauseTable) -> None:
    index = LexicalIndex.build(table)
    mask = np.array([False, True, True, True, False])
    got = index.search("implant crown", mask)
    assert set(got.indices.tolist()) <= {1, 2}  # row 4 is the best match but masked; row 3 has no term
    assert (got.scores > 0).all()


def test_query_without_known_terms_finds_nothing(table: ClauseTable) -> None:
    got = LexicalIndex.build(table).search("the of and", np.ones(len(table), dtype=bool))
    assert len(got.indices) == 0


def test_lexical_index_is_a_retriever(table: ClauseTable) -> None:
    assert isinstance(LexicalIndex.build(table), Retriever)


def test_a_mask_of_the_wrong_shape_or_type_is_refused(table: ClauseTable) -> None:
    index = LexicalIndex.build(table)
    with pytest.raises(ValueError, match="numpy bool array"):
        index.search("implant", np.ones(len(table)))  # float, not bool
    with pytest.raises(ValueError, match="shape"):
        index.search("implant", np.ones(len(table) + 1, dtype=bool))


def test_term_presence_matches_the_clause_token_sets(table: ClauseTable) -> None:
    index = LexicalIndex.build(table)
    terms = tokens("implant crown waiting claims tariff absentword")
    rows = np.arange(len(table), dtype=np.int64)
    present = index.presence(terms, rows)
    for i, term in enumerate(terms):
        for j, row in enumerate(table.rows):
            assert present[i, j] == (term in set(tokens(lexical_text(row))))
