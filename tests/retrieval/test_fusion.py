"""Fusion of two rankings (reciprocal rank, weighted) and the rerank bonuses."""

from __future__ import annotations

import numpy as np
import pytest

from clauseguard.retrieval.fusion import FusionConfig, fuse, ranks_of, rerank, rrf, weighted


def test_ranks_break_ties_by_clause_id_order() -> None:
    scores = np.array([0.5, 0.9, 0.5, 0.1])
    tie = np.array([3, 0, 1, 2])  # clause-id order of each candidate
    present = np.array([True, True, True, False])
    assert ranks_of(scores, present, tie).tolist() == [3, 1, 2, 0]


def test_rrf_is_one_for_first_everywhere_and_ignores_absent_rankings() -> None:
    lexical = np.array([1, 2, 0])
    dense = np.array([1, 0, 2])
    fused = rrf([lexical, dense], k=60)
    assert fused[0] == pytest.approx(1.0)
    assert fused[1] == pytest.approx((1 / 62) / (2 / 61))
    assert fused[1] == pytest.approx(fused[2])
    assert (fused >= 0).all() and (fused <= 1).all()


def test_weighted_mixes_share_and_positive_cosine() -> None:
    share = np.array([1.0, 0.5, 0.0])
    cosine = np.array([-0.3, 0.5, 0.9])
    assert weighted(share, cosine, 0.5).tolist() == pytest.approx([0.5, 0.5, 0.45])
    assert weighted(share, None, 0.5).tolist() == share.tolist()


def test_fuse_dispatches_on_the_method() -> None:
    share, cosine = np.array([1.0, 0.2]), np.array([0.1, 0.9])
    lex_rank, dense_rank = np.array([1, 2]), np.array([2, 1])
    assert fuse(share, lex_rank, cosine, dense_rank, FusionConfig(method="rrf")).tolist() == pytest.approx(
        [1 / 2 * (1 / 61 + 1 / 62) * 61] * 2
    )
    assert fuse(
        share, lex_rank, cosine, dense_rank, FusionConfig(method="weighted", lexical_weight=1.0)
    ).tolist() == [1.0, 0.2]
    with pytest.raises(ValueError, match="fusion method"):
        fuse(share, lex_rank, cosine, dense_rank, FusionConfig(method="max"))  # type: ignore[arg-type]


def test_rerank_adds_kind_and_exact_bonuses() -> None:
    fused = np.array([0.60, 0.55, 0.50])
    kind = np.array([0.0, 1.0, 0.0])
    exact = np.array([0.0, 0.0, 1.0])
    config = FusionConfig(kind_bonus=0.1, exact_bonus=0.5)
    assert rerank(fused, kind, exact, config).tolist() == pytest.approx([0.60, 0.65, 1.00])
