"""The retrieval call: filter, lexical + dense, fuse, rerank by question part, calibrate, top k.

Eligibility is one boolean mask over clause rows, required by every call and applied by every
backend before any top-k; nothing here can widen it. The excluded pass is a separate, bounded call
over the ineligible rows. Output order is (-score, clause id), so equal inputs give equal outputs.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Final, NamedTuple

import numpy as np

from clauseguard.reading.extract import quantity_asked
from clauseguard.reading.stated import paying_terms
from clauseguard.retrieval.clauses import check_mask, sort_by_score, top_k
from clauseguard.retrieval.fusion import DEFAULT_FUSION, FusionConfig, fuse, ranks_of, rerank
from clauseguard.retrieval.index import RetrievalIndex
from clauseguard.retrieval.parts import (
    COVERAGE,
    EXCLUSION,
    QUANTITY_ASPECTS,
    QuestionPart,
    answers_aspect,
    aspect_of,
    bare_subject,
    split_question,
    subject_words,
)
from clauseguard.retrieval.tokens import article_references, code_references, content_terms

ANSWER_KINDS: Final[dict[str, frozenset[str]]] = {
    "duration": frozenset({"duration"}),
    "count": frozenset({"count"}),
    "rate": frozenset({"rate"}),
    "amount": frozenset({"amount", "count"}),
    "money": frozenset({"amount"}),
    "payment": frozenset({"amount", "rate"}),
    "unclear": frozenset({"count", "duration"}),  # a part naming both: either may be the clause that answers
}
# The words for "the plan pays for it", one meaning in every house style (cover, reimburse, pay), as index terms.
PAYING_TERMS: Final = paying_terms()  # data/search/cues.yaml
CANDIDATE_POOL: Final = 50  # per backend, before fusion; at least 5 k
DEFAULT_K: Final = 3


class Hit(NamedTuple):
    """One retrieved clause: its row and id, the calibrated score, and the features behind it."""

    clause_index: int
    clause_id: str
    score: float  # calibrated P(relevant) in [0, 1]
    lexical: float  # raw BM25 (0 when no term matched)
    lexical_share: float  # BM25 / best BM25 among the rows searched
    cosine: float  # dense cosine (0 without a dense backend)
    coverage: float  # share of the part's distinct content terms found in the clause
    subject: float  # share of the part's subject weight (IDF) found in the clause
    article_match: float  # 1 when the part names this clause's article number
    code_match: float  # 1 when the part names a code the clause names or its document governs
    kind_match: float  # 1 when the clause answers the part's aspect (its kind, or a stated coverage)
    fused: float  # fused score plus rerank bonuses
    rank: int  # 1-based position after fusion and rerank, before calibration


def answer_kinds(part: QuestionPart) -> frozenset[str]:
    """What a clause must state to answer the part, read from the part's words: a value of the
    kind it asks (a cap: an amount or a count; a rate: a percentage; a wait: a duration), or, for a
    coverage or exclusion part, that cover is granted or refused. Empty when the part asks neither."""
    asked = quantity_asked(part.label, part.aspect)
    if asked is not None:
        return ANSWER_KINDS[asked]
    if part.aspect in (COVERAGE, EXCLUSION):
        return frozenset({"grants", "denies"})
    return frozenset()


def as_part(question: QuestionPart | str) -> QuestionPart:
    """A plain string is taken as one part (not split); its aspect is read from it."""
    if isinstance(question, QuestionPart):
        return question
    aspect = aspect_of(question)
    return QuestionPart(question, question, subject_words(question), aspect, aspect in QUANTITY_ASPECTS)


def _named_rows(lookup: Mapping[str, np.ndarray], keys: Sequence[str], mask: np.ndarray) -> np.ndarray:
    """Sorted rows under the mask that any of the keys (article numbers, codes) points at."""
    found = [lookup[key] for key in keys if key in lookup]
    if not found:
        return np.empty(0, np.int64)
    rows = np.unique(np.concatenate(found))
    return rows[mask[rows]].astype(np.int64)


class Candidates(NamedTuple):
    """Every candidate row for one part under one mask, with its features (parallel arrays)."""

    rows: np.ndarray  # int64, sorted
    lexical: np.ndarray
    lexical_share: np.ndarray
    cosine: np.ndarray
    coverage: np.ndarray
    subject: np.ndarray  # share of the subject's IDF weight in the row
    article_match: np.ndarray
    code_match: np.ndarray
    kind_match: np.ndarray
    fused: np.ndarray
    rank: np.ndarray  # 1-based, by fused (then clause id)
    tie: np.ndarray  # clause-id order of each row

    def features(self) -> np.ndarray:
        """The calibration features (in `calibration.FEATURES` order), one row per candidate."""
        return np.column_stack(
            [
                self.lexical_share,
                np.clip(self.cosine, 0.0, 1.0),
                self.coverage,
                self.article_match,
                self.code_match,
                self.kind_match,
                1.0 / self.rank,
            ]
        )


def _lookup(rows: np.ndarray | None, values: np.ndarray | None, wanted: np.ndarray) -> np.ndarray:
    """values[rows == w] for each wanted row (rows sorted), 0 where absent."""
    out = np.zeros(len(wanted), dtype=np.float64)
    if rows is None or values is None or len(rows) == 0:
        return out
    at = np.minimum(np.searchsorted(rows, wanted), len(rows) - 1)
    found = rows[at] == wanted
    out[found] = values[at[found]]
    return out


def _member(rows: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    return np.isin(wanted, rows).astype(np.float64)


def _coverage(index: RetrievalIndex, terms: Sequence[str], pool: np.ndarray) -> np.ndarray:
    """Share of the part's distinct content terms each row contains (its body, or a code its
    document governs): corpus-independent, unlike BM25, which weighs terms by this corpus's counts."""
    if not terms:
        return np.zeros(len(pool))
    present = index.lexical.presence(terms, pool)
    paying = [t for t in terms if t in PAYING_TERMS]
    if paying:  # "reimbursed", "covered", "paid" say one thing: a row that says the plan pays has the term
        any_paying = index.lexical.presence(sorted(PAYING_TERMS), pool).any(axis=0)
        any_paying &= np.asarray(["grants" in index.states(r) for r in pool.tolist()], dtype=bool)
    for i, term in enumerate(terms):
        governed = index.document_code_rows.get(term.upper())
        if governed is not None:
            present[i] |= np.isin(pool, governed)
        if term in PAYING_TERMS:
            present[i] |= any_paying
    return present.sum(axis=0) / len(terms)


def subject_share(index: RetrievalIndex, subject: str, rows: Sequence[int]) -> np.ndarray:
    """For each row, the share of the subject's weight (inverse document frequency) its text contains.

    A passage that matches a question's generic words ("treatment", "covered") but none of its
    subject ("IVF") is about something else; rare subject words weigh most, words the corpus never
    uses weigh as much as its rarest.
    """
    terms = sorted(set(content_terms(subject)))
    pool = np.asarray(rows, dtype=np.int64)
    if not terms or len(pool) == 0:
        return np.ones(len(pool))
    size = max(1, index.size)
    weights = np.array(
        [math.log((size + 1) / (index.lexical.body.document_frequency(t) + 0.5)) for t in terms]
    )
    present = index.lexical.presence(terms, pool)
    return (weights[:, None] * present).sum(axis=0) / weights.sum()


def candidates(
    index: RetrievalIndex, part: QuestionPart, mask: np.ndarray, k: int, fusion: FusionConfig = DEFAULT_FUSION
) -> Candidates | None:
    """The candidate pool for one part: the best rows of each backend under the mask, plus rows the
    part names exactly, each with its features, fused and reranked. None when nothing is eligible."""
    if not mask.any():
        return None
    table = index.clauses
    pool_size = max(CANDIDATE_POOL, 5 * k)

    lexical = index.lexical.search(part.text, mask)
    best_bm25 = float(lexical.scores.max()) if len(lexical.scores) else 0.0
    pools = [top_k(lexical.indices, lexical.scores, table.id_order, pool_size)]

    query_vector: np.ndarray | None = None
    if index.dense is not None:
        query_vector = index.dense.embed_query(part.text)
        dense = index.dense.search_vector(query_vector, mask, limit=pool_size)
        pools.append(top_k(dense.indices, dense.scores, table.id_order, pool_size))

    codes = code_references(part.text)
    article_rows = _named_rows(index.article_rows, article_references(part.text), mask)
    code_rows = np.union1d(
        _named_rows(index.code_rows, codes, mask), _named_rows(index.document_code_rows, codes, mask)
    )
    pools += [article_rows[:pool_size], code_rows[:pool_size]]
    pool = np.unique(np.concatenate(pools)).astype(np.int64)
    if len(pool) == 0:
        return None

    bm25 = _lookup(lexical.indices, lexical.scores, pool)
    share = bm25 / best_bm25 if best_bm25 > 0 else bm25
    has_dense = index.dense is not None and query_vector is not None
    if index.dense is not None and query_vector is not None:
        cosine = index.dense.similarities(query_vector, pool)
    else:
        cosine = np.zeros(len(pool))
    article_match = _member(article_rows, pool)
    code_match = _member(code_rows, pool)

    terms = content_terms(part.text)
    coverage = _coverage(index, terms, pool)
    subject = subject_share(index, bare_subject(part), pool.tolist())
    wanted = answer_kinds(part)
    # the corpus's own kind decides when it gives one; a clause without a kind is judged by what its text states
    kind_match = np.asarray(
        [answers_aspect(part.aspect, table.rows[r].kind, table.rows[r].coverage_type)
         if table.rows[r].kind is not None or table.rows[r].coverage_type is not None
         else bool(wanted & index.states(r)) for r in pool.tolist()],
        dtype=np.float64,
    )

    tie = table.id_order[pool]
    everyone = np.ones(len(pool), dtype=bool)
    lexical_rank = ranks_of(bm25, bm25 > 0, tie)
    dense_rank = ranks_of(cosine, everyone, tie) if has_dense else None
    fused = rerank(
        fuse(share, lexical_rank, cosine if has_dense else None, dense_rank, fusion),
        kind_match,
        np.maximum(article_match, code_match),
        fusion,
    )
    rank = ranks_of(fused, everyone, tie)
    return Candidates(
        pool, bm25, share, cosine, coverage, subject, article_match, code_match, kind_match, fused, rank, tie
    )


def _rank(
    index: RetrievalIndex, part: QuestionPart, mask: np.ndarray, k: int, fusion: FusionConfig
) -> list[Hit]:
    """Score the rows under `mask` for one part and return the best k by (-score, clause id)."""
    if k <= 0:
        return []
    found = candidates(index, part, mask, k, fusion)
    if found is None:
        return []
    score = np.clip(index.calibrator.apply(found.features()), 0.0, 1.0)
    order = sort_by_score(np.arange(len(found.rows)), score, found.tie)[:k]
    rows = index.clauses.rows
    return [
        Hit(
            clause_index=int(found.rows[i]),
            clause_id=rows[int(found.rows[i])].clause_id,
            score=float(score[i]),
            lexical=float(found.lexical[i]),
            lexical_share=float(found.lexical_share[i]),
            cosine=float(found.cosine[i]),
            coverage=float(found.coverage[i]),
            subject=float(found.subject[i]),
            article_match=float(found.article_match[i]),
            code_match=float(found.code_match[i]),
            kind_match=float(found.kind_match[i]),
            fused=float(found.fused[i]),
            rank=int(found.rank[i]),
        )
        for i in order.tolist()
    ]


def retrieve(
    index: RetrievalIndex,
    question_part: QuestionPart | str,
    eligible_mask: np.ndarray,
    k: int = DEFAULT_K,
    *,
    fusion: FusionConfig = DEFAULT_FUSION,
) -> list[Hit]:
    """The best k eligible clauses for one question part, best first, scores calibrated to [0, 1].

    Only rows where `eligible_mask` is True are scored, fused or ranked: an ineligible clause never
    takes a slot, however well it matches. Fewer than k hits when fewer rows are eligible.
    """
    check_mask(eligible_mask, index.size)
    return _rank(index, as_part(question_part), eligible_mask, k, fusion)


def best_ineligible(
    index: RetrievalIndex,
    question: str | Sequence[QuestionPart],
    ineligible_mask: np.ndarray,
    k: int = DEFAULT_K,
    *,
    fusion: FusionConfig = DEFAULT_FUSION,
) -> list[Hit]:
    """The at most k best-matching clauses among the ineligible rows (for `excluded`), best first.

    A separate, bounded pass: each part of the question is scored over `ineligible_mask` only, a
    clause keeps its best part's hit, and k clauses are returned in total. Pass the complement of
    the request's eligible mask (or a subset of it); it never reads an eligible row.
    """
    check_mask(ineligible_mask, index.size, "ineligible_mask")
    parts = split_question(question) if isinstance(question, str) else list(question)
    best: dict[int, Hit] = {}
    for part in parts:
        for hit in _rank(index, part, ineligible_mask, k, fusion):
            kept = best.get(hit.clause_index)
            if kept is None or (hit.score, -hit.rank) > (kept.score, -kept.rank):
                best[hit.clause_index] = hit
    ordered = sorted(best.values(), key=lambda h: (-h.score, h.clause_id))
    return ordered[:k]
