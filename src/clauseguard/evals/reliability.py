"""Calibration figures for a report: ECE and Brier over (score, relevant?) pairs, the reliability
table (10 equal-width bins), and the reliability diagram as a PNG written with the standard library.

The diagram: one column per bin, its filled height the share of relevant pairs in the bin, a dark
tick at the bin's mean score, the grey diagonal a perfectly calibrated map, and under it a strip
whose shade is the bin's share of all pairs. It draws no text (no font ships with the standard
library); the figures it shows are printed beside it. It never reads a case.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Final, NamedTuple

BINS: Final = 10
SIZE: Final = 320  # plot square, pixels
MARGIN: Final = 24
STRIP: Final = 16  # the pair-count strip under the plot


class Bin(NamedTuple):
    low: float
    mean_score: float
    relevant_share: float
    pairs: int


def reliability(pairs: Sequence[tuple[float, int]], bins: int = BINS) -> list[Bin]:
    """Non-empty bins in order: lower edge, mean score, share relevant, number of pairs."""
    grouped: dict[int, list[tuple[float, int]]] = {}
    for score, label in pairs:
        grouped.setdefault(min(int(score * bins), bins - 1), []).append((score, label))
    return [
        Bin(b / bins, sum(s for s, _ in members) / len(members), sum(lab for _, lab in members) / len(members), len(members))
        for b, members in sorted(grouped.items())
    ]


def summary(pairs: Sequence[tuple[float, int]], bins: int = BINS) -> dict[str, float | int | None]:
    """Pairs, ECE (bin-weighted |share relevant - mean score|) and Brier score, rounded to 4 places."""
    if not pairs:
        return {"pairs": 0, "ece": None, "brier": None}
    table = reliability(pairs, bins)
    ece = sum(b.pairs / len(pairs) * abs(b.relevant_share - b.mean_score) for b in table)
    brier = sum((s - lab) ** 2 for s, lab in pairs) / len(pairs)
    return {"pairs": len(pairs), "positives": sum(lab for _, lab in pairs), "ece": round(ece, 4), "brier": round(brier, 4)}


def _png(width: int, height: int, rows: list[bytearray]) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    raw = b"".join(b"\x00" + bytes(r) for r in rows)
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")


def diagram(pairs: Sequence[tuple[float, int]], path: Path, bins: int = BINS) -> Path:
    """Write the reliability diagram of the pairs as a PNG; deterministic (same pairs, same bytes)."""
    width, height = SIZE + 2 * MARGIN, SIZE + 2 * MARGIN + STRIP
    rows = [bytearray(b"\xff\xff\xff" * width) for _ in range(height)]

    def put(x: int, y: int, rgb: tuple[int, int, int]) -> None:
        if 0 <= x < width and 0 <= y < height:
            rows[y][3 * x:3 * x + 3] = bytes(rgb)

    def box(x0: int, y0: int, x1: int, y1: int, rgb: tuple[int, int, int]) -> None:
        for y in range(max(0, y0), min(height, y1)):
            for x in range(max(0, x0), min(width, x1)):
                put(x, y, rgb)

    left, top, bottom = MARGIN, MARGIN, MARGIN + SIZE
    total = max(1, len(pairs))
    for b in reliability(pairs, bins):
        x0 = left + round(b.low * SIZE) + 2
        x1 = left + round((b.low + 1 / bins) * SIZE) - 2
        box(x0, bottom - round(b.relevant_share * SIZE), x1, bottom, (70, 120, 200))  # share relevant
        tick = bottom - round(b.mean_score * SIZE)
        box(x0, tick - 2, x1, tick + 1, (20, 20, 20))  # mean score of the bin
        shade = 235 - round(200 * b.pairs / total)
        box(x0, bottom + 4, x1, bottom + STRIP, (shade, shade, shade))  # share of all pairs
    for i in range(SIZE):  # the diagonal: a calibrated map
        put(left + i, bottom - i, (150, 150, 150))
    box(left, top, left + 1, bottom, (0, 0, 0))
    box(left, bottom, left + SIZE, bottom + 1, (0, 0, 0))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(_png(width, height, rows))
    return path
