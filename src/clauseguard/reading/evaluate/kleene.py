"""Strong Kleene logic over met / not_met / unknown, and a stated value compared with a threshold.

Pure functions of values: it never reads a fact, a criterion or the lexicon.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Final, Literal

Value = Literal["met", "not_met", "unknown"]
MET: Final = "met"
NOT_MET: Final = "not_met"
UNKNOWN: Final = "unknown"


def k_and(values: Iterable[Value]) -> Value:
    vals = list(values)
    if NOT_MET in vals:
        return NOT_MET
    if UNKNOWN in vals:
        return UNKNOWN
    return MET


def k_or(values: Iterable[Value]) -> Value:
    vals = list(values)
    if MET in vals:
        return MET
    if UNKNOWN in vals:
        return UNKNOWN
    return NOT_MET


def k_at_least(n: int, values: Iterable[Value]) -> Value:
    """At least n of the values hold: met once n are met, not met once too few can still be."""
    vs = list(values)
    met = vs.count(MET)
    unknown = vs.count(UNKNOWN)
    if met >= n:
        return MET
    if met + unknown < n:
        return NOT_MET
    return UNKNOWN


def k_not(value: Value) -> Value:
    return {MET: NOT_MET, NOT_MET: MET, UNKNOWN: UNKNOWN}[value]  # type: ignore[return-value]


@dataclass
class _Judged:
    value: Value
    missing: list[str] = field(default_factory=list)
    routed_to: str | None = None


def _interval(comparator: str, value: float) -> tuple[float, bool, float, bool]:
    if comparator == ">=":
        return value, True, math.inf, False
    if comparator == ">":
        return value, False, math.inf, False
    if comparator == "<=":
        return -math.inf, False, value, True
    if comparator == "<":
        return -math.inf, False, value, False
    return value, True, value, True


def compare(fact_comparator: str, fact_value: float, comparator: str, threshold: float) -> Value:
    """Whether every value the fact allows meets `comparator threshold` (met), none does (not_met), or some do."""
    lo, lo_in, hi, hi_in = _interval(fact_comparator, fact_value)
    eps = 1e-9
    if comparator == ">=":
        if lo > threshold - eps and (lo_in or lo > threshold - eps):
            return MET if lo >= threshold - eps else UNKNOWN
        if hi < threshold - eps or (abs(hi - threshold) < eps and not hi_in):
            return NOT_MET
        return UNKNOWN
    if comparator == ">":
        if lo > threshold + eps or (abs(lo - threshold) < eps and not lo_in):
            return MET
        if hi <= threshold + eps:
            return NOT_MET
        return UNKNOWN
    if comparator == "<=":
        if hi <= threshold + eps:
            return MET
        if lo > threshold + eps or (abs(lo - threshold) < eps and not lo_in):
            return NOT_MET
        return UNKNOWN
    if comparator == "<":
        if hi < threshold - eps or (abs(hi - threshold) < eps and not hi_in):
            return MET
        if lo >= threshold - eps:
            return NOT_MET
        return UNKNOWN
    if abs(lo - threshold) < eps and abs(hi - threshold) < eps:
        return MET
    if hi < threshold - eps or lo > threshold + eps:
        return NOT_MET
    return UNKNOWN
