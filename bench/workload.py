"""Synthetic determination requests over the bundled demo corpus, shared by the batch, store and impact
benchmarks: the demo's meniscectomy case across every day of 2022-2025 and several narratives, so
every request is distinct (no answer is reused) and both sides of the 2024-01-01 version change occur."""

from __future__ import annotations

import json
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from clauseguard.interfaces.cli import DEMO_DETERMINATION

NARRATIVES = (
    DEMO_DETERMINATION["narrative"],
    "Medial meniscal tear confirmed on MRI, with locking and catching. Fourteen weeks of supervised physical "
    "therapy without adequate relief.",
    "Meniscal tear confirmed on MRI. The knee is locked and cannot be fully extended.",
    "Suspected meniscal tear; MRI pending. Knee pain for three weeks.",
)


def requests(n: int, *, spread: bool = False) -> list[dict[str, Any]]:
    """`n` distinct determination requests in a fixed order (`spread`: dates across all four years)."""
    out = []
    day, start = 0, date(2022, 1, 1)
    step = max(1, 1461 * len(NARRATIVES) // max(1, n)) if spread else 1
    while len(out) < n:
        for narrative in NARRATIVES:
            out.append({**DEMO_DETERMINATION, "as_of_date": (start + timedelta(days=day)).isoformat(),
                        "narrative": f"{narrative} Case {len(out)}."})
            if len(out) == n:
                break
        day = (day + step) % 1461
    return out


def write_requests(path: Path, n: int) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in requests(n)))
    return path
