"""Fusing lexical and dense rankings (reciprocal rank or weighted), then the rerank by question part.

Inputs are per-candidate arrays over eligible rows only; it never widens the candidate set. The
rerank is feature-based (no cross-encoder ships offline): a clause of the kind the part asks about,
or one the question names exactly (article number, code), moves up.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

import numpy as np

RRF_K: Final = 60  # the usual reciprocal-rank constant: flattens the head, keeps the tail
DEFAULT_METHOD: Final = "weighted"
DEFAULT_LEXICAL_WEIGHT: Final = 0.5
DEFAULT_KIND_BONUS: Final = 0.15
DEFAULT_EXACT_BONUS: Final = 0.5


@dataclass(frozen=True)
class FusionConfig:
    """How two rankings become one, and how much the part's aspect and exact matches count."""

    method: Literal["rrf", "weighted"] = DEFAULT_METHOD
    lexical_weight: float = DEFAULT_LEXICAL_WEIGHT  # weighted only; dense gets the rest
    rrf_k: int = RRF_K
    kind_bonus: float = DEFAULT_KIND_BONUS
    exact_bonus: float = DEFAULT_EXACT_BONUS


DEFAULT_FUSION: Final = FusionConfig()


def ranks_of(scores: np.ndarray, present: np.ndarray, tie_order: np.ndarray) -> np.ndarray:
    """1-based rank of each candidate by (-score, clause id) among those `present`; 0 where absent."""
    ranks = np.zeros(len(scores), dtype=np.int64)
    where = np.flatnonzero(present)
    if len(where):
        order = where[np.lexsort((tie_order[where], -scores[where]))]
        ranks[order] = np.arange(1, len(order) + 1)
    return ranks


def rrf(rank_lists: list[np.ndarray], k: int = RRF_K) -> np.ndarray:
    """Reciprocal rank fusion, scaled to [0, 1]: 1 for a candidate first in every ranking.

    A rank of 0 means "not retrieved by that backend" and contributes nothing.
    """
    total = np.zeros(len(rank_lists[0]), dtype=np.float64)
    for ranks in rank_lists:
        total += np.where(ranks > 0, 1.0 / (k + np.maximum(ranks, 1)), 0.0)
    return total / (len(rank_lists) / (k + 1))


def weighted(lexical_share: np.ndarray, cosine: np.ndarray | None, lexical_weight: float) -> np.ndarray:
    """A convex mix of the BM25 share (score / best eligible score) and the positive cosine, in [0, 1]."""
    if cosine is None:
        return lexical_share.astype(np.float64)
    dense = np.clip(cosine, 0.0, 1.0)
    return lexical_weight * lexical_share + (1.0 - lexical_weight) * dense


def fuse(
    lexical_share: np.ndarray,
    lexical_rank: np.ndarray,
    cosine: np.ndarray | None,
    dense_rank: np.ndarray | None,
    config: FusionConfig = DEFAULT_FUSION,
) -> np.ndarray:
    """The fused score of each candidate under the configured method."""
    if config.method == "rrf":
        lists = [lexical_rank] if dense_rank is None else [lexical_rank, dense_rank]
        return rrf(lists, config.rrf_k)
    if config.method == "weighted":
        return weighted(lexical_share, cosine, config.lexical_weight)
    raise ValueError(f"unknown fusion method {config.method!r}; use 'rrf' or 'weighted'")


def rerank(
    fused: np.ndarray, kind_match: np.ndarray, exact: np.ndarray, config: FusionConfig = DEFAULT_FUSION
) -> np.ndarray:
    """The fused score plus the part's preferences: the clause kind it asks about, and exact references."""
    return fused + config.kind_bonus * kind_match + config.exact_bonus * exact
