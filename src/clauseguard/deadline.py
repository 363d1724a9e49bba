"""The per-request deadline: a budget of seconds a determination may spend before it goes to a human.

`StageClock` is the dict the pipeline records its stage timings in; once the deadline has passed,
the next stage boundary raises `DeadlineExceeded`, and the engine answers REVIEW naming the budget.
It never interrupts a stage in the middle and never changes an answer that finished in time; a
narrative longer than MAX_READ_CHARS is not read at all (REVIEW), so no one stage runs unbounded.
"""

from __future__ import annotations

import os
import re
import time
from typing import Final

from clauseguard.gate import GateDecision
from clauseguard.responses import DeterminationResponse, Reason

DEFAULT_DEADLINE_S: Final = 10.0  # ~1,000x the p95 of a warm determination on the 2-core machine
# The longest narrative the reader reads: its cost is measured up to this length (bench/redaction_scaling.py,
# a few seconds at worst on the 2-core machine), and the deadline is checked only between stages, so a
# longer narrative goes to a handler (REVIEW) instead of holding the engine thread inside one stage.
MAX_READ_CHARS: Final = 65_536
DEADLINE_ENV: Final = "CLAUSEGUARD_DEADLINE_S"


class DeadlineExceeded(Exception):  # noqa: N818 - a control-flow signal, caught by the engine
    """The request's budget ran out at a stage boundary."""

    def __init__(self, stage: str, budget_s: float) -> None:
        self.stage = stage
        self.budget_s = budget_s
        super().__init__(f"the {budget_s:g} s budget ran out after the {stage} stage")


def deadline_from_environment() -> float | None:
    """CLAUSEGUARD_DEADLINE_S: seconds (a number > 0), or 0 / 'none' for no deadline; default 10."""
    raw = os.environ.get(DEADLINE_ENV, "").strip().lower()
    if not raw:
        return DEFAULT_DEADLINE_S
    if raw in ("0", "none", "off"):
        return None
    try:
        value = float(raw)
    except ValueError:
        return DEFAULT_DEADLINE_S
    return value if value > 0 else None


class StageClock(dict[str, float]):
    """Stage seconds, as the pipeline records them; past the deadline, recording a stage raises."""

    def __init__(self, budget_s: float | None, clock: object = time.perf_counter) -> None:
        super().__init__()
        self.budget_s = budget_s
        self._clock = clock
        self._deadline = None if budget_s is None else self._now() + budget_s

    def _now(self) -> float:
        return float(self._clock())  # type: ignore[operator]

    cut_after: str | None = None  # a replay's recorded cut: the stage after which the budget ran out

    def __setitem__(self, stage: str, seconds: float) -> None:
        super().__setitem__(stage, seconds)
        if self.cut_after is not None and self.budget_s is not None:
            if stage == self.cut_after:
                raise DeadlineExceeded(stage, self.budget_s)
            return
        if self._deadline is not None and self.budget_s is not None and self._now() > self._deadline:
            raise DeadlineExceeded(stage, self.budget_s)

    @classmethod
    def replaying(cls, cut: tuple[str, float]) -> StageClock:
        """A clock that runs out exactly where a recorded answer's did: after stage `cut[0]`, with budget
        `cut[1]`. When the budget ran out is timing, an input of the answer; a replay takes it as recorded."""
        clock = cls(None)
        clock.budget_s, clock.cut_after = cut[1], cut[0]
        return clock


def past_deadline(exc: DeadlineExceeded) -> DeterminationResponse:
    """The answer to a determination whose budget ran out: REVIEW, naming the budget (design: gate rule 3)."""
    reason = Reason(code="deadline", text=f"the determination did not finish within its {exc.budget_s:g} s "
                    f"budget (stopped after {exc.stage}); a handler must review this request")
    return DeterminationResponse(gate="REVIEW", outcome="INSUFFICIENT_EVIDENCE", reasons=[reason], answer=reason.text)


_CUT: Final = re.compile(r"within its (?P<budget>[0-9.e+-]+) s budget \(stopped after (?P<stage>[a-z_]+)\)")


def recorded_cut(reasons: list[dict[str, object]]) -> tuple[str, float] | None:
    """Where a recorded answer's budget ran out (stage, budget), read back from the reason `past_deadline`
    wrote, or None when the answer finished in time."""
    for reason in reasons:
        if reason.get("code") == "deadline" and (m := _CUT.search(str(reason.get("text", "")))):
            return m.group("stage"), float(m.group("budget"))
    return None


def too_long_to_read(length: int) -> GateDecision:
    """A narrative longer than the reader reads within a request's budget: a handler reads it (REVIEW)."""
    reason = Reason(code="narrative_length", text=f"the narrative is {length:,} characters, longer than the "
                    f"{MAX_READ_CHARS:,} the reader reads within a request's budget; a handler must review this request")
    return GateDecision("REVIEW", "INSUFFICIENT_EVIDENCE", (reason,))
