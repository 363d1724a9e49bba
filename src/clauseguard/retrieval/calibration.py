"""Calibrated scores: one monotone map per backend from corpus-independent features to P(relevant).

The map is a logistic model with non-negative weights over features that do not depend on one
corpus's vocabulary (BM25 share of the best eligible score, cosine, term coverage, exact reference,
kind match, reciprocal rank), so more evidence never lowers a score. Parameters live as small JSON
files in `clauseguard/data/calibration/`; fitting and the report metrics (ECE, Brier) are here too.
It never reads clause text.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Final

import numpy as np

from clauseguard.errors import ClauseguardError

FEATURES: Final[tuple[str, ...]] = (
    "lexical_share",  # BM25 / best BM25 among eligible rows for this query part, in [0, 1]
    "cosine",  # dense cosine, clipped to [0, 1] (0 without a dense backend)
    "coverage",  # share of the part's distinct content terms found in the clause, in [0, 1]
    "article_match",  # 1 when the question names the clause's article number
    "code_match",  # 1 when the question names a code the clause names or its document governs
    "kind_match",  # 1 when the clause's kind answers the part's aspect, or its text states what the part asks
    "reciprocal_rank",  # 1 / position after fusion and rerank
)
CALIBRATION_FORMAT: Final = "clauseguard.calibration/v1"
DEFAULT_BINS: Final = 10


class CalibrationMissing(ClauseguardError):
    """No fitted calibration ships for a backend; the message says how to fit one."""


@dataclass(frozen=True)
class Calibrator:
    """p = sigmoid(bias + weights . features), weights >= 0: monotone in every feature, in (0, 1)."""

    backend: str
    weights: tuple[float, ...]
    bias: float
    features: tuple[str, ...] = FEATURES
    fitted_on: str = ""  # what labelled set the parameters came from
    metrics: tuple[tuple[str, float], ...] = ()  # fit-set figures, for the record

    def __post_init__(self) -> None:
        if len(self.weights) != len(self.features):
            raise ValueError(
                f"calibration for {self.backend!r}: {len(self.weights)} weights for {len(self.features)} features"
            )
        if any(w < 0 for w in self.weights):
            raise ValueError(
                f"calibration for {self.backend!r}: weights must be >= 0 to keep the map monotone"
            )

    def logits(self, features: np.ndarray) -> np.ndarray:
        return self.bias + np.asarray(features, dtype=np.float64) @ np.asarray(self.weights, dtype=np.float64)

    def apply(self, features: np.ndarray) -> np.ndarray:
        """P(relevant) for each row of a (n, len(features)) matrix, in (0, 1)."""
        z = np.clip(self.logits(features), -40.0, 40.0)
        return 1.0 / (1.0 + np.exp(-z))

    def to_json(self) -> dict[str, Any]:
        return {
            "format": CALIBRATION_FORMAT,
            "backend": self.backend,
            "model": "monotone-logistic",
            "features": list(self.features),
            "weights": [round(w, 6) for w in self.weights],
            "bias": round(self.bias, 6),
            "fitted_on": self.fitted_on,
            "metrics": {k: round(v, 6) for k, v in self.metrics},
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Calibrator:
        if data.get("format") != CALIBRATION_FORMAT:
            raise ValueError(
                f"not a calibration file (format {data.get('format')!r}, expected {CALIBRATION_FORMAT!r})"
            )
        return cls(
            backend=str(data["backend"]),
            weights=tuple(float(w) for w in data["weights"]),
            bias=float(data["bias"]),
            features=tuple(str(f) for f in data["features"]),
            fitted_on=str(data.get("fitted_on", "")),
            metrics=tuple(sorted((str(k), float(v)) for k, v in data.get("metrics", {}).items())),
        )


def uncalibrated(backend: str) -> Calibrator:
    """Hand-set weights for a backend with no fitted file (test doubles): ordered, not calibrated."""
    return Calibrator(
        backend=backend, weights=(1.5, 2.0, 2.0, 2.0, 0.5, 0.5, 1.0), bias=-4.0, fitted_on="hand-set"
    )


def calibration_file(backend: str) -> Path:
    return Path(str(resources.files("clauseguard") / "data" / "calibration" / f"{backend}.json"))


def load_calibration(backend: str) -> Calibrator:
    """The fitted map shipped for a backend."""
    path = calibration_file(backend)
    if not path.exists():
        raise CalibrationMissing(
            f"no calibration for retrieval backend {backend!r} at {path}; fit one with "
            f"`python -m clauseguard.retrieval.fitting --backend {backend}`"
        )
    return Calibrator.from_json(json.loads(path.read_text(encoding="utf-8")))


def save_calibration(calibrator: Calibrator, path: Path | None = None) -> Path:
    path = path or calibration_file(calibrator.backend)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(calibrator.to_json(), indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return path


# --- fitting -----------------------------------------------------------------------------------


def fit_monotone_logistic(
    features: np.ndarray,
    labels: Sequence[int] | np.ndarray,
    *,
    backend: str,
    l2: float = 1e-2,
    iterations: int = 4000,
    fitted_on: str = "",
    sample_weights: Sequence[float] | np.ndarray | None = None,
) -> Calibrator:
    """Maximum-likelihood logistic regression with weights constrained to be >= 0 (projected Newton
    steps on the free weights), each pair weighted (default 1). Deterministic: no sampling, fixed
    iteration count, float64."""
    x = np.asarray(features, dtype=np.float64)
    y = np.asarray(labels, dtype=np.float64)
    w = np.ones(len(y)) if sample_weights is None else np.asarray(sample_weights, dtype=np.float64)
    w = w * (len(w) / w.sum()) if len(w) and w.sum() > 0 else w
    if x.ndim != 2 or x.shape[1] != len(FEATURES) or len(y) != len(x):
        raise ValueError(f"need an (n, {len(FEATURES)}) feature matrix and n labels")
    if len(set(y.tolist())) < 2:
        raise ValueError("need both relevant and irrelevant pairs to fit a calibration")
    design = np.hstack([np.ones((len(x), 1)), x])
    theta = np.zeros(design.shape[1])
    theta[0] = np.log((y.mean() + 1e-9) / (1 - y.mean() + 1e-9))
    penalty = np.full(design.shape[1], l2)
    penalty[0] = 0.0
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-np.clip(design @ theta, -40, 40)))
        grad = design.T @ (w * (p - y)) / len(y) + penalty * theta
        hess = (design * (w * p * (1 - p))[:, None]).T @ design / len(y) + np.diag(penalty + 1e-9)
        # Weights pinned at zero with a gradient pushing them negative stay out of the step.
        free = np.ones(len(theta), dtype=bool)
        free[1:] = ~((theta[1:] <= 0) & (grad[1:] > 0))
        step = np.zeros_like(theta)
        step[free] = np.linalg.solve(hess[np.ix_(free, free)], grad[free])
        new = theta - step
        new[1:] = np.maximum(new[1:], 0.0)
        if np.max(np.abs(new - theta)) < 1e-10:
            theta = new
            break
        theta = new
    probs = 1.0 / (1.0 + np.exp(-np.clip(design @ theta, -40, 40)))
    return Calibrator(
        backend=backend,
        weights=tuple(float(w) for w in theta[1:]),
        bias=float(theta[0]),
        fitted_on=fitted_on,
        metrics=(
            ("fit_pairs", float(len(y))),
            ("fit_positive_rate", float(y.mean())),
            ("fit_ece", expected_calibration_error(probs, y)),
            ("fit_brier", brier_score(probs, y)),
        ),
    )


L2_GRID: Final[tuple[float, ...]] = (1e-2, 3e-3, 1e-3, 3e-4, 1e-4)
CV_FOLDS: Final = 5


def cross_validated_l2(
    features: np.ndarray,
    labels: Sequence[int] | np.ndarray,
    groups: Sequence[str],
    *,
    backend: str,
    grid: Sequence[float] = L2_GRID,
    folds: int = CV_FOLDS,
    sample_weights: Sequence[float] | np.ndarray | None = None,
) -> float:
    """The L2 strength with the lowest held-out log loss, folds made of whole questions (a question's
    pairs never sit on both sides). Ties go to the stronger penalty; folds are fixed by sorted id."""
    x = np.asarray(features, dtype=np.float64)
    y = np.asarray(labels, dtype=np.float64)
    w = np.ones(len(y)) if sample_weights is None else np.asarray(sample_weights, dtype=np.float64)
    names = sorted(set(groups))
    fold_of = {name: i % folds for i, name in enumerate(names)}
    fold = np.asarray([fold_of[g] for g in groups])
    best: tuple[float, float] | None = None
    for l2 in sorted(grid, reverse=True):
        loss = 0.0
        for f in range(folds):
            train, test = fold != f, fold == f
            if not test.any() or len(set(y[train].tolist())) < 2:
                continue
            p = fit_monotone_logistic(x[train], y[train], backend=backend, l2=l2, sample_weights=w[train]).apply(x[test])
            p = np.clip(p, 1e-9, 1 - 1e-9)
            loss -= float(np.sum(w[test] * (y[test] * np.log(p) + (1 - y[test]) * np.log(1 - p))))
        if best is None or loss < best[1] - 1e-9:
            best = (l2, loss)
    assert best is not None
    return best[0]


def fit_calibration(
    features: np.ndarray,
    labels: Sequence[int] | np.ndarray,
    groups: Sequence[str],
    *,
    backend: str,
    fitted_on: str = "",
    sample_weights: Sequence[float] | np.ndarray | None = None,
) -> Calibrator:
    """Choose the penalty by grouped cross-validation, then fit on every pair."""
    l2 = cross_validated_l2(features, labels, groups, backend=backend, sample_weights=sample_weights)
    fitted = fit_monotone_logistic(features, labels, backend=backend, l2=l2, fitted_on=fitted_on,
                                   sample_weights=sample_weights)
    return Calibrator(
        backend=fitted.backend,
        weights=fitted.weights,
        bias=fitted.bias,
        features=fitted.features,
        fitted_on=fitted.fitted_on,
        metrics=tuple(sorted((*fitted.metrics, ("l2", l2)))),
    )


# --- report metrics ----------------------------------------------------------------------------


def expected_calibration_error(
    probs: Sequence[float] | np.ndarray, labels: Sequence[int] | np.ndarray, bins: int = DEFAULT_BINS
) -> float:
    """ECE: the bin-weighted mean |accuracy - confidence| over equal-width probability bins."""
    p = np.asarray(probs, dtype=np.float64)
    y = np.asarray(labels, dtype=np.float64)
    if len(p) == 0:
        return 0.0
    which = np.minimum((p * bins).astype(np.int64), bins - 1)
    total = 0.0
    for b in range(bins):
        sel = which == b
        if sel.any():
            total += sel.sum() / len(p) * abs(y[sel].mean() - p[sel].mean())
    return float(total)


def brier_score(probs: Sequence[float] | np.ndarray, labels: Sequence[int] | np.ndarray) -> float:
    """Mean squared difference between the score and the 0/1 label."""
    p = np.asarray(probs, dtype=np.float64)
    y = np.asarray(labels, dtype=np.float64)
    return float(np.mean((p - y) ** 2)) if len(p) else 0.0


def reliability_table(
    probs: Sequence[float] | np.ndarray, labels: Sequence[int] | np.ndarray, bins: int = DEFAULT_BINS
) -> list[tuple[float, float, float, int]]:
    """(bin low, mean score, share relevant, count) per non-empty bin: what ECE summarises."""
    p = np.asarray(probs, dtype=np.float64)
    y = np.asarray(labels, dtype=np.float64)
    which = np.minimum((p * bins).astype(np.int64), bins - 1)
    rows = []
    for b in range(bins):
        sel = which == b
        if sel.any():
            rows.append((b / bins, float(p[sel].mean()), float(y[sel].mean()), int(sel.sum())))
    return rows
