"""Calibration: monotone in every feature, inside [0, 1], fitted deterministically, and its metrics."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clauseguard.retrieval import LEXICAL_ONLY, MINILM, WORDLLAMA
from clauseguard.retrieval.calibration import (
    FEATURES,
    Calibrator,
    brier_score,
    calibration_file,
    expected_calibration_error,
    fit_calibration,
    fit_monotone_logistic,
    load_calibration,
    reliability_table,
)

SHIPPED = (WORDLLAMA, LEXICAL_ONLY, MINILM)
unit = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)


@pytest.mark.parametrize("backend", SHIPPED)
def test_every_shipped_calibration_loads_with_non_negative_weights(backend: str) -> None:
    calibrator = load_calibration(backend)
    assert calibrator.backend == backend
    assert calibrator.features == FEATURES
    assert all(w >= 0 for w in calibrator.weights)
    data = json.loads(calibration_file(backend).read_text())
    assert Calibrator.from_json(data) == calibrator


@settings(max_examples=200, deadline=None)
@given(
    base=st.lists(unit, min_size=len(FEATURES), max_size=len(FEATURES)),
    which=st.integers(0, len(FEATURES) - 1),
    bump=unit,
)
def test_more_evidence_never_lowers_the_score(base: list[float], which: int, bump: float) -> None:
    for backend in SHIPPED:
        calibrator = load_calibration(backend)
        low = np.asarray([base])
        high = low.copy()
        high[0, which] = min(1.0, high[0, which] + bump)
        p_low, p_high = calibrator.apply(low)[0], calibrator.apply(high)[0]
        assert 0.0 <= p_low <= p_high <= 1.0


def test_negative_weights_are_refused() -> None:
    with pytest.raises(ValueError, match=">= 0"):
        Calibrator(backend="x", weights=(1, 1, 1, 1, 1, 1, -0.1), bias=0.0)


def synthetic_pairs(n: int = 600, seed: int = 7) -> tuple[np.ndarray, np.ndarray, list[str]]:
    rng = np.random.default_rng(seed)
    x = rng.random((n, len(FEATURES)))
    logit = -4 + 3 * x[:, 0] + 2 * x[:, 2] + 1.5 * x[:, 6] - 1.0 * x[:, 3]  # a negative true effect
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)
    groups = [f"q{i // 5}" for i in range(n)]
    return x, y, groups


def test_fit_keeps_weights_non_negative_and_is_deterministic() -> None:
    x, y, groups = synthetic_pairs()
    a = fit_calibration(x, y, groups, backend="t")
    b = fit_calibration(x, y, groups, backend="t")
    assert a == b
    assert all(w >= 0 for w in a.weights)
    assert a.weights[3] == 0.0  # the feature with a negative true effect is pinned at zero
    assert a.weights[0] > 1.0 and a.weights[2] > 0.5


def test_fit_is_well_calibrated_on_its_own_distribution() -> None:
    x, y, _ = synthetic_pairs(4000, seed=3)
    fitted = fit_monotone_logistic(x, y, backend="t", l2=1e-4)
    x2, y2, _ = synthetic_pairs(4000, seed=4)
    assert expected_calibration_error(fitted.apply(x2), y2) < 0.05


def test_fit_needs_both_labels() -> None:
    with pytest.raises(ValueError, match="both"):
        fit_monotone_logistic(np.zeros((3, len(FEATURES))), [1, 1, 1], backend="t")


def test_ece_and_brier_on_known_values() -> None:
    probs = [0.05, 0.05, 0.95, 0.95]
    labels = [0, 0, 1, 1]
    assert brier_score(probs, labels) == pytest.approx(0.0025)
    assert expected_calibration_error(probs, labels) == pytest.approx(0.05)
    assert expected_calibration_error([0.5, 0.5], [0, 1]) == pytest.approx(0.0)
    assert expected_calibration_error([0.9, 0.9], [0, 0]) == pytest.approx(0.9)
    assert reliability_table([0.05, 0.95], [0, 1]) == [(0.0, 0.05, 0.0, 1), (0.9, 0.95, 1.0, 1)]
    assert expected_calibration_error([], []) == 0.0 and brier_score([], []) == 0.0
