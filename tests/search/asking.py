"""Asking a small corpus of our own wording, and reading what went out without a handler: shared by the
search tests that hold a rule about when a value may be released."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from clauseguard.corpus.sources import open_corpus
from clauseguard.engine import Engine


def engine_over(corpus: str, folder: Path) -> Engine:
    """An engine over a corpus written as YAML text (stored in `folder`)."""
    path = folder / "corpus.yaml"
    path.write_text(corpus, encoding="utf-8")
    return Engine(open_corpus(str(path), None))


def ask(engine: Engine, payer: str, plan: str, question: str) -> dict[str, Any]:
    """A search on 2025-06-01 with a low threshold, so the rules under test, not the score, decide."""
    return engine.search({"payer_id": payer, "plan_id": plan, "effective_date": "2025-06-01", "question": question,
                          "threshold": 0.3}).as_json()


def released(r: dict[str, Any]) -> list[str | None]:
    """The values that went out without a handler (none when the answer is escalated)."""
    if r["action"] != "none":
        return []
    return [(p.get("value") or {}).get("value") for p in r["parts"] if p["status"] == "answered"]
