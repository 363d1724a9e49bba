"""What the model has cost: one line per call appended to `$CLAUSEGUARD_HOME/model_usage.jsonl`.

Append-only, summed per calendar month (UTC) for the monthly budget and `clauseguard model status`.
It never records prompts or answers (they may quote a narrative), only counts and dollars.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Final

from clauseguard.corpus.sources import home_dir

USAGE_FILE: Final = "model_usage.jsonl"


def this_month(now: datetime | None = None) -> str:
    return (now or datetime.now(UTC)).strftime("%Y-%m")


class UsageLedger:
    """Spend per month; the current month's sum is read once and kept up to date in memory."""

    def __init__(self, path: Path | None = None, month: Callable[[], str] = this_month) -> None:
        self.path = path or home_dir() / USAGE_FILE
        self._month = month
        self._spent: dict[str, float] = {}

    def spent(self, month: str | None = None) -> float:
        key = month or self._month()
        if key not in self._spent:
            total = 0.0
            if self.path.exists():
                for line in self.path.read_text(encoding="utf-8").splitlines():
                    try:
                        row = json.loads(line)
                    except json.JSONDecodeError:
                        continue  # a line cut short by a crash is skipped, never fatal
                    if isinstance(row, dict) and row.get("month") == key:
                        total += float(row.get("usd") or 0.0)
            self._spent[key] = total
        return self._spent[key]

    def record(self, *, provider: str, model: str, role: str, input_tokens: int, output_tokens: int, usd: float) -> None:
        key = self._month()
        self.spent(key)
        self._spent[key] += usd
        self.path.parent.mkdir(parents=True, exist_ok=True)
        row = {"month": key, "at": datetime.now(UTC).isoformat(timespec="seconds"), "provider": provider,
               "model": model, "role": role, "input_tokens": input_tokens, "output_tokens": output_tokens,
               "usd": round(usd, 8)}
        with self.path.open("a", encoding="utf-8") as out:
            out.write(json.dumps(row, sort_keys=True) + "\n")
