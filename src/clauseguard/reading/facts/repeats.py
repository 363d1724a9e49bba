"""One value stated more than once in a note: the same value twice is one fact (its first statement);
two different values for one fact are a conflict, and every statement of it is kept marked
`conflicting`, which evaluation reads as unknown unless every one of the values gives one outcome.

It owns deciding when two statements are of one fact (an age of the same person or onset, a measure
of the same quantity in the same unit and period, a quantity of the same item over the same period)
and whether they agree. It never picks one of two values, and it never reads text.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import replace
from typing import Any, Final

from clauseguard.reading.facts.sheet import NARRATIVE, AgeFact, Fact, MeasureFact, QuantityFact

# A value computed from others (BMI from height and weight) agrees with a stated one written rounded.
DERIVED_TOLERANCE: Final = 0.5


def _holds(comparator: str, value: float, bound: float) -> bool:
    return {"==": value == bound, ">": value > bound, ">=": value >= bound, "<": value < bound,
            "<=": value <= bound}.get(comparator, True)


def _age_key(f: AgeFact) -> Hashable | None:
    return ("age", f.of) if f.source == NARRATIVE else None


def _measure_key(f: MeasureFact) -> Hashable | None:
    if f.source != NARRATIVE or f.status != "present" or f.value is None:
        return None
    return ("measure", f.quantity, f.unit, f.per)


def _quantity_key(f: QuantityFact) -> Hashable | None:
    return ("quantity", f.item, f.per) if f.source == NARRATIVE else None


def _key(f: Fact) -> Hashable | None:
    if isinstance(f, AgeFact):
        return _age_key(f)
    if isinstance(f, MeasureFact):
        return _measure_key(f)
    if isinstance(f, QuantityFact):
        return _quantity_key(f)
    return None


def _value(f: Any) -> float:
    return float(f.value)


def _comparator(f: Any) -> str:
    return str(getattr(f, "comparator", "=="))


def _same(a: Any, b: Any) -> bool:
    if getattr(a, "derived", False) or getattr(b, "derived", False):
        return abs(_value(a) - _value(b)) <= DERIVED_TOLERANCE
    return _value(a) == _value(b)


def _agree(group: Sequence[Any]) -> tuple[bool, list[Any]]:
    """Whether the statements of one fact agree, and the ones to keep when they do: one per distinct
    exact value (the first), and every bound the exact value satisfies (a bound alone adds nothing
    then, but is kept for its span when no exact value is stated)."""
    exact: list[Any] = []
    for f in group:
        if _comparator(f) == "==" and not any(_same(f, e) for e in exact):
            exact.append(f)
    if len(exact) > 1:
        return False, list(group)
    bounds = [f for f in group if _comparator(f) != "=="]
    if exact:
        value = _value(exact[0])
        if not all(_holds(_comparator(b), value, _value(b)) for b in bounds):
            return False, list(group)
        return True, [exact[0], *bounds]
    return True, list(dict.fromkeys(bounds))


def consolidate(facts: Sequence[Fact], key: Callable[[Fact], Hashable | None] = _key) -> list[Fact]:
    """The facts with each repeated value read once and each disagreeing one marked conflicting, in
    their given order."""
    groups: dict[Hashable, list[Any]] = {}
    for f in facts:
        k = key(f)
        if k is not None:
            groups.setdefault(k, []).append(f)
    replaced: dict[int, Fact | None] = {}  # by id: the fact to put in its place, None to drop it
    for group in groups.values():
        if len(group) == 1:
            continue
        agree, kept = _agree(group)
        kept_ids = {id(f) for f in kept}
        for f in group:
            if not agree:
                replaced[id(f)] = replace(f, conflicting=True)
            elif id(f) not in kept_ids:
                replaced[id(f)] = None
    out: list[Fact] = []
    for f in facts:
        new = replaced.get(id(f), f)
        if new is not None:
            out.append(new)
    return out
