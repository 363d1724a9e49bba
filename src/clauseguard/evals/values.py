"""Stated values judged against a search case's `expected_values`: same kind, same quantity.

The judge reads both sides with its own small parser (never the engine's value reader), so a label
is checked independently of the code under test: "EUR 1,500" = "€1,500", "12 months" = "1 year",
"30 visits" = "30 visits per calendar year"; a count's noun is not compared (the authors name the
counted thing in their own words). It never reads a corpus.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Final, NamedTuple

_CURRENCY: Final = {"€": "EUR", "£": "GBP", "$": "USD", "eur": "EUR", "gbp": "GBP", "usd": "USD",
                    "euro": "EUR", "euros": "EUR", "pounds": "GBP", "dollars": "USD", "chf": "CHF"}
_MONTHS_PER: Final = {"month": 1.0, "year": 12.0}
_DAYS_PER: Final = {"day": 1.0, "week": 7.0}
_NUMBER: Final = r"\d[\d,]*(?:\.\d+)?"
_AMOUNT: Final = re.compile(
    rf"(?P<sym>[€£$])\s?(?P<n1>{_NUMBER})|\b(?P<code>eur|gbp|usd|chf)\s?(?P<n2>{_NUMBER})"
    rf"|(?P<n3>{_NUMBER})\s?(?P<word>eur|gbp|usd|chf|euros?|pounds|dollars)\b",
    re.IGNORECASE,
)
_RATE: Final = re.compile(rf"(?P<n>{_NUMBER})\s?(?:%|per ?cent\b|percent\b)", re.IGNORECASE)
_DURATION: Final = re.compile(rf"(?P<n>{_NUMBER})\s*(?P<u>hour|day|week|month|year)s?\b", re.IGNORECASE)
_COUNT: Final = re.compile(rf"(?P<n>{_NUMBER})\b")
# "100 billing units per 28 days", "2 doses every 28 days": a count in a window of time, not a duration
_COUNT_WINDOW: Final = re.compile(
    rf"(?P<n>{_NUMBER})\s+(?!(?:hour|day|week|month|year)s?\b)(?:[a-z][\w/-]*(?:\s+[a-z][\w/-]*){{0,4}}?\s+)?"
    rf"(?:per|every|each|in|within|over|a|an)\s+(?:(?P<w>{_NUMBER})\s*)?(?P<u>hour|day|week|month|year)s?\b",
    re.IGNORECASE,
)
_YES: Final = frozenset({"yes", "covered", "true"})
_NO: Final = frozenset({"no", "not covered", "excluded", "false"})


class Quantity(NamedTuple):
    """A value reduced to what two wordings of it share."""

    kind: str  # amount | rate | duration | count | yes_no
    number: float | None
    unit: str  # currency, "month" / "day" / "hour" for durations, "" otherwise


def _num(text: str) -> float:
    return float(text.replace(",", ""))


def quantity(text: str) -> Quantity | None:
    """The quantity a value states, or None when it states none the judge can read."""
    low = " ".join(text.split()).strip(" .").casefold()
    if low in _YES:
        return Quantity("yes_no", 1.0, "")
    if low in _NO:
        return Quantity("yes_no", 0.0, "")
    if m := _AMOUNT.search(low):
        number = m.group("n1") or m.group("n2") or m.group("n3")
        currency = m.group("sym") or m.group("code") or m.group("word")
        return Quantity("amount", _num(number), _CURRENCY.get(currency.casefold(), currency.upper()))
    if m := _RATE.search(low):
        return Quantity("rate", _num(m.group("n")), "")
    if (m := _COUNT_WINDOW.search(low)) and not _DURATION.search(low[:m.start("n")]):
        return Quantity("count", _num(m.group("n")), _window(m))
    if m := _DURATION.search(low):
        n, unit = _num(m.group("n")), m.group("u").casefold()
        if unit in _MONTHS_PER:
            return Quantity("duration", n * _MONTHS_PER[unit], "month")
        if unit in _DAYS_PER:
            return Quantity("duration", n * _DAYS_PER[unit], "day")
        return Quantity("duration", n, unit)
    if m := _COUNT.search(low):
        return Quantity("count", _num(m.group("n")), "")
    return None


def _window(m: re.Match[str]) -> str:
    """A count's window in one unit: "per 4 weeks" -> "per 28 day", "per month" -> "per 1 month"."""
    n, unit = _num(m.group("w")) if m.group("w") else 1.0, m.group("u").casefold()
    if unit in _MONTHS_PER:
        n, unit = n * _MONTHS_PER[unit], "month"
    elif unit in _DAYS_PER:
        n, unit = n * _DAYS_PER[unit], "day"
    return f"per {n:g} {unit}"


def quantities(text: str) -> list[Quantity]:
    """Every quantity the judge can read in a text (each number once, by the first kind that reads it)."""
    found: list[Quantity] = []
    taken: list[tuple[int, int]] = []
    low = " ".join(text.split()).casefold()
    for pattern in (_AMOUNT, _RATE, _COUNT_WINDOW, _DURATION):
        for m in pattern.finditer(low):
            if any(a < m.end() and m.start() < b for a, b in taken):
                continue
            taken.append(m.span())
            q = quantity(m.group(0))
            if q is not None:
                found.append(q)
    return found


def released_kind(stated: str, expected: str, source_text: str) -> str:
    """What kind of wrong value was released, in structural words only (never the case's text): the
    kinds on both sides, whether the number differs, and whether the answering passage states the
    expected value too (the right clause, the wrong value picked) or not (another clause answered)."""
    a, b = quantity(stated), quantity(expected)
    kinds = f"{b.kind if b else 'unread'} expected, {a.kind if a else 'unread'} stated"
    if a is not None and b is not None and a.kind == b.kind:
        kinds += ", same number other unit" if a.number == b.number else ", other number"
    there = b is not None and any(same_value_q(q, b) for q in quantities(source_text))
    return f"{kinds}; expected value {'in' if there else 'not in'} the answering passage"


def same_value_q(a: Quantity, b: Quantity) -> bool:
    if a.kind == b.kind == "count" and not (a.unit and b.unit):
        return a.number == b.number  # "30 visits" is "30 visits per calendar year": a window only one side gives
    return a == b and not (a.kind == "duration" and a.unit != b.unit)


def same_value(stated: str | None, expected: str) -> bool:
    """True when the stated value says what the expected one says (kind, number and unit)."""
    if stated is None:
        return False
    a, b = quantity(stated), quantity(expected)
    if a is None or b is None:
        return " ".join(stated.split()).casefold() == " ".join(expected.split()).casefold()
    if a.kind == "duration" and b.kind == "duration" and a.unit != b.unit and a.number is not None and b.number is not None:
        # months and days meet only on whole months of 30 days ("30 days" is not "1 month")
        return False
    return same_value_q(a, b)


def _key(text: str) -> str:
    return " ".join(text.replace("?", " ").split()).casefold()


class ValueJudgement(NamedTuple):
    """One expected value against the part that should state it."""

    part: str  # the case's key
    expected: str
    stated: str | None  # None when the part is unsettled or no part matched
    answered: bool  # the part was answered (not unsettled)
    matches: bool


def judge_values(expected: Mapping[str, str], parts: Sequence[Mapping[str, Any]]) -> list[ValueJudgement]:
    """Each expected value against the answered part it names ("*": the question's only part, or any
    answered part when the engine split a one-part question)."""
    by_label = {_key(str(p.get("part", ""))): p for p in parts}
    found: list[ValueJudgement] = []
    for key, value in sorted(expected.items()):
        if key.strip() == "*":
            candidates = list(parts)
        else:
            wanted = _key(key)
            hit = by_label.get(wanted)
            if hit is None:
                hit = next((p for label, p in by_label.items() if wanted in label or (label and label in wanted)), None)
            candidates = [hit] if hit is not None else []
        answered = [p for p in candidates if p.get("status") == "answered"]
        stated = [_stated(p) for p in answered]
        match = next((s for s in stated if same_value(s, value)), None)
        if match is not None:
            found.append(ValueJudgement(key, value, match, True, True))
        elif stated:
            found.append(ValueJudgement(key, value, stated[0], True, False))
        else:
            found.append(ValueJudgement(key, value, None, False, False))
    return found


def _stated(part: Mapping[str, Any]) -> str | None:
    value = part.get("value")
    if isinstance(value, Mapping):
        text = value.get("value")
        return str(text) if text is not None else None
    return None
