"""Extractive reading of one passage for one question part: the excerpt to quote, and what it settles.

A quantity part (a cap, an amount, a rate, a waiting period, a number of sessions) is settled only by
a passage that states that quantity; a passage that defers it elsewhere settles nothing; a passage
that excludes the benefit answers its amounts. It never paraphrases: every excerpt is verbatim.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final, Literal

from clauseguard import text as toolkit

Settles = Literal["stated", "excluded", "deferred", "no_quantity", "answers"]

_NUMBER: Final = r"(?:\d[\d,]*(?:\.\d+)?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|" \
    r"fifteen|twenty|thirty|forty|fifty|sixty|ninety|hundred)"
_AMOUNT: Final = re.compile(
    r"(?:[£$€]\s?\d[\d,]*(?:\.\d+)?|\b(?:GBP|USD|EUR|CHF|CAD|AUD)\s?\d[\d,]*(?:\.\d+)?"
    r"|\b\d[\d,]*(?:\.\d+)?\s?(?:GBP|USD|EUR|CHF|CAD|AUD|dollars|pounds|euros)\b)",
    re.IGNORECASE,
)
_PERCENT: Final = re.compile(rf"\b{_NUMBER}\s?(?:%|per ?cent|percent)", re.IGNORECASE)
_DURATION: Final = re.compile(
    rf"\b{_NUMBER}(?:\s*\(\d+\))?[\s-]*(?:calendar |consecutive |full )?(?:day|week|month|year)s?\b", re.IGNORECASE
)
_COUNT: Final = re.compile(
    rf"\b{_NUMBER}(?:\s*\(\d+\))?\s+(?:[a-z-]+\s+){{0,2}}"
    r"(?:sessions?|visits?|treatments?|units?|nights?|days?|procedures?|implants?|teeth|claims?|pairs?|devices?)\b"
    r"|\b(?:once|twice)\s+(?:per|a|every|each)\b",
    re.IGNORECASE,
)
_DEFERRAL: Final = re.compile(
    r"\b(?:fixed|set|stated|shown|specified|defined|laid down|given|determined|listed)\s+(?:out\s+)?"
    r"(?:in|by)\s+(?:the\s+)?(?:particular|special|specific|individual)\s+conditions"
    r"|\bas\s+(?:shown|stated|set out|specified|listed)\s+in\s+(?:the|your)\s+(?:schedule|certificate|table)"
    r"|\b(?:see|refer to)\s+(?:the|your)\s+(?:schedule|particular conditions|certificate)"
    r"|\b(?:in|on)\s+(?:the|your)\s+(?:schedule|certificate)\s+of\s+(?:benefits|insurance|cover)"
    r"|\bagreed\s+(?:separately|individually)\b",
    re.IGNORECASE,
)
_EXCLUSION: Final = re.compile(
    r"\b(?:is|are)\s+(?:not\s+covered|excluded|not\s+(?:reimbursed|payable|insured))\b"
    r"|\bno\s+benefit\s+is\s+(?:paid|payable)\b|\bexcluded\s+from\s+(?:cover|coverage)\b",
    re.IGNORECASE,
)
_NEGATED_EXCLUSION: Final = re.compile(r"\bnot\s+excluded\b|\bunless\b|\bexcept\b", re.IGNORECASE)

# What kind of value a part asks for, from its own words: a cap is an amount (or a count), a rate
# is a percentage, a waiting period is a duration. Checked in this order; the first that fits wins.
_ASKS: Final[tuple[tuple[str, re.Pattern[str]], ...]] = (
    ("duration", re.compile(r"\b(?:wait\w*|how long|duration|qualifying period|deferral)\b", re.I)),
    ("count", re.compile(r"\b(?:how many|number of|sessions?|visits?|treatments? per|units?|frequency|times)\b", re.I)),
    ("rate", re.compile(r"\b(?:rate|percent\w*|per ?cent|share|proportion|level of reimbursement|co-?pay\w*)\b", re.I)),
    ("amount", re.compile(r"\b(?:caps?|ceiling|maximum|max|limit\w*|amount|sum|allowance|up to)\b", re.I)),
    ("payment", re.compile(r"\b(?:how much|paid|pays?|payable|reimburs\w*|cost)\b", re.I)),
)
QUANTITY_PATTERNS: Final[dict[str, tuple[re.Pattern[str], ...]]] = {
    "duration": (_DURATION,),
    "count": (_COUNT,),
    "rate": (_PERCENT,),
    "amount": (_AMOUNT, _COUNT),
    "payment": (_AMOUNT, _PERCENT),
}
ALL_QUANTITIES: Final = (_AMOUNT, _PERCENT, _DURATION, _COUNT)


def quantity_asked(label: str, aspect: str | None) -> str | None:
    """The kind of value a part asks for (duration, count, rate, amount), or None for any."""
    for kind, pattern in _ASKS:
        if pattern.search(label):
            return kind
    return {"waiting_period": "duration", "limit": "amount", "rate": "rate"}.get(aspect or "")


@dataclass(frozen=True)
class Reading:
    """What one passage does for one part, and the verbatim excerpt that shows it."""

    settles: Settles
    excerpt: str

    @property
    def settled(self) -> bool:
        return self.settles in ("stated", "excluded", "answers")


def sentences(text: str) -> list[str]:
    """The sentences of a clause cut after semicolons, verbatim, from the one splitter (clauseguard.text)."""
    return [s.text for s in toolkit.pieces(text)]


def _overlap(sentence: str, terms: tuple[str, ...]) -> int:
    low = sentence.lower()
    return sum(1 for t in terms if t and t in low)


def states_quantity(text: str, asked: str | None) -> bool:
    """True when the text states a value of the kind asked for (any kind when unspecified)."""
    patterns = QUANTITY_PATTERNS.get(asked or "", ALL_QUANTITIES)
    return any(p.search(text) for p in patterns)


def defers_quantity(text: str) -> bool:
    """True when the text sends the value elsewhere ("fixed in the particular conditions")."""
    return bool(_DEFERRAL.search(text))


def excludes(text: str) -> bool:
    """True when the text says plainly that the benefit is excluded or not covered."""
    return bool(_EXCLUSION.search(text)) and not _NEGATED_EXCLUSION.search(text)


def read_passage(text: str, *, asked: str | None, asks_quantity: bool, terms: tuple[str, ...]) -> Reading:
    """Whether a passage (already above the threshold) settles a part, and the excerpt that shows it.

    The excerpt is the sentence that does the settling (the best-matching one when several do),
    quoted verbatim; a short clause is quoted whole.
    """
    parts = sentences(text) or [text.strip()]

    def best(candidates: list[str]) -> str:
        return max(candidates, key=lambda s: (_overlap(s, terms), -parts.index(s)))

    if not asks_quantity:
        return Reading("answers", text.strip() if len(text) <= 320 else best(parts))
    stating = [s for s in parts if states_quantity(s, asked) and not defers_quantity(s)]
    if stating:
        return Reading("stated", best(stating))
    excluding = [s for s in parts if excludes(s)]
    if excluding:
        return Reading("excluded", best(excluding))
    deferring = [s for s in parts if defers_quantity(s)]
    if deferring:
        return Reading("deferred", best(deferring))
    return Reading("no_quantity", best(parts))
