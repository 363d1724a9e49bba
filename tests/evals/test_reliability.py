"""The calibration figures of the eval report: ECE, Brier, the reliability table and its PNG."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import pytest

from clauseguard.evals.reliability import diagram, reliability, summary
from clauseguard.retrieval.calibration import brier_score, expected_calibration_error

PAIRS = [(0.05, 0), (0.08, 0), (0.12, 1), (0.15, 0), (0.55, 1), (0.58, 0), (0.91, 1), (0.97, 1), (1.0, 1)]


def test_summary_agrees_with_the_calibration_modules_metrics() -> None:
    scores, labels = [s for s, _ in PAIRS], [lab for _, lab in PAIRS]
    found = summary(PAIRS)
    assert found["pairs"] == len(PAIRS) and found["positives"] == 5
    assert found["ece"] == pytest.approx(expected_calibration_error(scores, labels), abs=1e-4)
    assert found["brier"] == pytest.approx(brier_score(scores, labels), abs=1e-4)
    assert summary([]) == {"pairs": 0, "ece": None, "brier": None}


def test_reliability_bins_are_ten_equal_widths_and_a_score_of_one_is_in_the_last() -> None:
    bins = reliability(PAIRS)
    assert [round(b.low, 1) for b in bins] == [0.0, 0.1, 0.5, 0.9]
    assert bins[-1].pairs == 3 and bins[-1].relevant_share == 1.0
    assert sum(b.pairs for b in bins) == len(PAIRS)


def test_the_diagram_is_a_valid_png_and_the_same_pairs_give_the_same_bytes(tmp_path: Path) -> None:
    a = diagram(PAIRS, tmp_path / "a.png").read_bytes()
    b = diagram(list(PAIRS), tmp_path / "sub" / "b.png").read_bytes()
    assert a == b and a.startswith(b"\x89PNG\r\n\x1a\n")
    length, kind = struct.unpack(">I4s", a[8:16])
    assert kind == b"IHDR"
    width, height = struct.unpack(">II", a[16:24])
    idat = a.index(b"IDAT")
    (size,) = struct.unpack(">I", a[idat - 4 : idat])
    raw = zlib.decompress(a[idat + 4 : idat + 4 + size])
    assert len(raw) == height * (1 + 3 * width)  # one filter byte and RGB per pixel, every row
