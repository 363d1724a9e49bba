"""Extractive reading of one passage for one question part: the value that answers it, the sentence
that states it, and the condition it holds under.

A quantity part (a cap, an amount, a rate, a waiting period, a number of sessions) is settled only by
a passage that states a value of that kind, and it is answered with the value whose item matches the
part's words; a passage that defers the value elsewhere settles nothing; a passage that excludes the
benefit answers its amounts. A coverage part is answered yes or no from the sentence that says so (a
lettered list takes its head's verb). A statement that holds only in a case the question does not
state (an age, an accident, an operation) does not answer the general case: "covered only when ...
accident" answers no, and a value stated only for that case leaves the part unsettled with the
condition named. It never paraphrases: every excerpt is verbatim.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal

from clauseguard import text as toolkit
from clauseguard.reading.stated import (
    Condition,
    Stated,
    age_in,
    circumstance_words,
    condition_of,
    denies,
    grants,
    paying_terms,
    restricts,
    stated_values,
)

Settles = Literal["stated", "excluded", "deferred", "no_quantity", "answers", "conditional", "ambiguous"]

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
    ("rate", re.compile(r"\b(?:rate|percent\w*|per ?cent|share|proportion|level of reimbursement|co-?pay\w*|"
                        r"coinsurance|reduction|relief)\b", re.I)),
    ("duration", re.compile(r"\b(?:wait\w*|how long|how often|how frequently|how far ahead|duration|length|age|how old|interval|"
                            r"qualifying period|deferral|minimum period|look-?back|period|approval|renewal|"
                            r"months?|weeks?|days|years|hours)\b", re.I)),
    ("count", re.compile(r"\b(?:how many|number of|sessions?|visits?|treatments? per|units?|frequency|times|"
                         r"nights|courses?)\b", re.I)),
    ("money", re.compile(r"\b(?:amount|sum|allowance|contribution|supplement|deductible|excess|lump)\b", re.I)),
    ("amount", re.compile(r"\b(?:caps?|ceiling|maximum|max|limit\w*|up to)\b", re.I)),
    ("payment", re.compile(r"\b(?:how much|paid|pays?|payable|reimburs\w*|cost)\b", re.I)),
)
# The kinds of value that answer each kind asked, most fitting first.
_KINDS_FOR: Final[dict[str, tuple[str, ...]]] = {
    "duration": ("duration",),
    "count": ("count",),
    "rate": ("rate",),
    "money": ("amount",),
    "amount": ("amount", "count", "rate"),
    "payment": ("amount", "rate"),
}


_PER_PERIOD: Final = re.compile(
    r"\bper\s+(?:\d+[\s-]*)?(?:calendar\s+|contract\s+|policy\s+|benefit\s+)?[a-z-]+"
    r"|\b(?:in\s+(?:a|any|each)|every|each|a)\s+(?:\d+[\s-]*)?(?:calendar\s+|contract\s+)?(?:day|week|month|year)s?(?:\s+period)?\b",
    re.IGNORECASE)
_ASKS_UPPER: Final = re.compile(r"\b(?:maximum|max|most|limit\w*|caps?|ceiling|up to|longest|how long can)\b", re.I)
_ASKS_LOWER: Final = re.compile(r"\b(?:minimum|min|least|shortest|how long must|required|before)\b", re.I)
_ASKS_ANNUAL: Final = re.compile(r"\b(?:annual\w*|yearly|per\s+(?:\w+\s+)?year|a\s+year|each\s+year)\b", re.I)
_ASKS_LIFETIME: Final = re.compile(r"\b(?:lifetime|whole|total|overall\s+lifetime)\b", re.I)
_YEAR_PERIOD: Final = re.compile(r"\byear", re.I)


YES_NO: Final = re.compile(
    r"^\s*(?:is|are|does|do|can|will|would|may|could|should|has|have)\b(?!.*\b(?:how|what|which|when)\b)", re.I
)


def quantity_asked(label: str, aspect: str | None) -> str | None:
    """The kind of value a part asks for (duration, count, rate, amount, payment), or None for any.
    A counting window in the part ("sessions per contract year") is not what it asks for."""
    if YES_NO.match(label):
        return None  # "Is X covered?", "Will Medicare pay for X?" ask yes or no
    label = _PER_PERIOD.sub(" ", label)
    found = [kind for kind, pattern in _ASKS if pattern.search(label)]
    if "count" in found and "duration" in found and re.search(r"\bhow many\b|\bnumber of\b", label, re.I):
        # "how many months" asks a duration; "how many sessions per year" a count
        return "duration" if re.search(r"\bhow many (?:months|days|weeks|years|hours)\b", label, re.I) else "count"
    if "count" in found and ("money" in found or "payment" in found) and not re.search(r"\bhow many\b|\bnumber of\b", label, re.I):
        return "money" if "money" in found else "payment"  # "the most paid for one session" asks what is paid
    if found:
        return found[0]
    return {"waiting_period": "duration", "limit": "amount", "rate": "rate"}.get(aspect or "")


@dataclass(frozen=True)
class Reading:
    """What one passage does for one part: the value, the verbatim excerpt, the condition."""

    settles: Settles
    excerpt: str
    value: str | None = None  # "EUR 1,500", "30 visits", "yes", "no"
    stated: Stated | None = None  # the value tuple, for a quantity
    condition: Condition | None = None  # stated with the answer (or why it is conditional)
    rival: str | None = None  # an "ambiguous" reading: the other value that fits the part as well

    @property
    def settled(self) -> bool:
        return self.settles in ("stated", "excluded", "answers")


def sentences(text: str) -> list[str]:
    """The sentences of a clause cut after semicolons, verbatim, from the one splitter (clauseguard.text)."""
    return [s.text for s in toolkit.pieces(text)]


def _stems(text: str) -> set[str]:
    return set(toolkit.content_words(text))


def _overlap(sentence: str, terms: Sequence[str]) -> int:
    low = sentence.lower()
    return sum(1 for t in terms if t and t in low)


def defers_quantity(text: str) -> bool:
    """True when the text sends the value elsewhere ("fixed in the particular conditions")."""
    return bool(_DEFERRAL.search(text))


def excludes(text: str) -> bool:
    """True when the text says plainly that the benefit is excluded or not covered."""
    return bool(_EXCLUSION.search(text)) and not _NEGATED_EXCLUSION.search(text)


def states_quantity(text: str, asked: str | None) -> bool:
    """True when the text states a value of the kind asked for (any kind when unspecified)."""
    kinds = _KINDS_FOR.get(asked or "", ("amount", "rate", "duration", "count"))
    return any(v.kind in kinds for v in stated_values(text))


@dataclass(frozen=True)
class Asking:
    """A part as the reader needs it: the kind of value, its words, and the question around it."""

    asked: str | None
    asks_quantity: bool
    terms: tuple[str, ...]  # content terms of the part's query (for picking a sentence)
    words: str  # the part's label and subject (what a value must be for)
    question: str  # the whole question (the circumstances it states)
    item: str = ""  # the part's own words beyond its aspect and subject ("conservative therapy"), if any
    subject: str = ""  # the part's subject ("CPAP headgear")


def condition_met(condition: Condition, question: str) -> bool | None:
    """Whether the question states the condition: True / False for an age it states, True when it
    names the occasion, None when it says nothing of it. A condition of payment is always met."""
    if condition.kind == "procedural":
        return True
    if condition.kind == "age":
        age = age_in(question)
        if age is None:
            return None
        return (condition.low is None or age >= condition.low) and (condition.high is None or age <= condition.high)
    occasion = _stems(condition.text) - _stems("following after where when has had " + " ".join(sorted(circumstance_words())))
    return True if occasion & _stems(question) else None


def _words_fit(v: Stated, asking: Asking) -> bool:
    wanted = _stems(asking.words) - _stems(" ".join(sorted(circumstance_words())))
    return bool(wanted & _stems(v.context))


def _sentence_score(v: Stated, asking: Asking) -> int:
    """The question's words and figures in the value's whole sentence or list line ("when the AHI is
    15 or higher" picks the line that says "15 or more events")."""
    asked = set(toolkit.words(asking.question)) | _stems(asking.question)
    figures = {w for w in asked if w.isdigit()}
    return len(figures & set(toolkit.words(v.piece))) + len((_stems(asking.question) - _stems(" ".join(sorted(circumstance_words())))) & _stems(v.piece))


def _bound_fits(v: Stated, asking: Asking) -> int:
    """1 when the value is a bound of the side the part asks ("maximum" -> "up to", "minimum" -> "at
    least"); for a duration asked with no side ("how long is the approval"), 1 when the value is no
    lower bound (an "at least N months of therapy" is a requirement, not the length asked)."""
    upper, lower = bool(_ASKS_UPPER.search(asking.words)), bool(_ASKS_LOWER.search(asking.words))
    if v.kind == "duration" and not upper and not lower:
        return int(v.bound != "lower")
    return int(v.bound == "upper" and upper or v.bound == "lower" and lower)


_DAYS: Final = {"hour": 1 / 24, "day": 1.0, "week": 7.0, "month": 30.4375, "year": 365.25}


def _same_quantity(a: Stated, b: Stated) -> bool:
    """Two values that say one thing: "12 weeks" and "84 days", or the same figure twice."""
    if a.value == b.value:
        return True
    if a.kind == b.kind == "duration" and a.unit in _DAYS and b.unit in _DAYS:
        return abs(a.number * _DAYS[a.unit] - b.number * _DAYS[b.unit]) < 1.0
    return False


def _value_score(v: Stated, asking: Asking) -> int:
    """How well a value fits the part: the part's words around it, and a counting window of the
    span asked (annual vs lifetime)."""
    drop = _stems(" ".join(sorted(circumstance_words())))
    around = _stems(f"{v.context} {v.period or ''} {v.unit}")
    # the subject's words count twice: the part is about them; its other words only phrase it
    score = 2 * len((_stems(asking.subject) - drop) & around) + len((_stems(asking.words) - drop) & around)
    yearly = bool(v.period and _YEAR_PERIOD.search(v.period)) or bool(_YEAR_PERIOD.search(v.context))
    if _ASKS_ANNUAL.search(asking.words) and yearly or _ASKS_LIFETIME.search(asking.words) and not yearly:
        score += 2
    return score


_ASKS_FREQUENCY: Final = re.compile(r"\b(?:how often|how frequently|frequency|how many times|times per)\b", re.I)


def _counts_fit(v: Stated, asking: Asking) -> bool:
    """A frequency ("how often", "frequency limit") is a count per period: a count with no counting
    window does not state one. "once" / "twice" count occasions: they answer only a frequency."""
    frequency = bool(_ASKS_FREQUENCY.search(asking.words))
    if frequency and v.period is None:
        return False
    return frequency or v.unit not in ("time", "times")


def _choose_value(text: str, asking: Asking, restriction: Condition | None) -> Reading | None:
    kinds = _KINDS_FOR.get(asking.asked or "", ("amount", "rate", "duration", "count"))
    asks_age = bool(re.search(r"\bage\b|\bhow old\b", asking.words, re.I))
    found = [v for v in stated_values(text)
             if v.kind in kinds and not defers_quantity(v.piece) and v.is_age == asks_age]
    if not found:
        return None
    usable: list[tuple[int, int, int, int, int, int, int, Stated]] = []
    pending: Stated | None = None
    own = _stems(asking.item) - _stems(" ".join(sorted(circumstance_words())))
    if own and not own & _stems(text):
        return None  # the part asks about something this clause never names ("months of conservative therapy")
    for order, v in enumerate(found):
        condition = v.condition if v.condition is not None and v.condition.kind != "procedural" else restriction
        met = True if condition is None else condition_met(condition, asking.question)
        if met is False:
            continue
        if met is None:
            pending = pending or v
            continue
        specific = 1 if (condition is not None and condition.kind != "procedural") else 0
        if asking.asked == "amount" and kinds.index(v.kind) > 0 and not (
            _words_fit(v, asking) and (_bound_fits(v, asking) or not _ASKS_UPPER.search(asking.words))
        ):
            continue  # a value of a less fitting kind answers only with the part's words (and bound) around it
        if v.kind == "count" and not _counts_fit(v, asking):
            continue
        named = int(bool(own & _stems(v.piece)))
        usable.append((specific, named, _bound_fits(v, asking), _value_score(v, asking), _sentence_score(v, asking),
                       -kinds.index(v.kind), -order, v))
    if not usable and pending is None:
        return None
    if not usable:
        assert pending is not None
        return Reading("conditional", pending.piece, pending.value, pending, pending.condition or restriction)
    ranked = sorted(usable, key=lambda t: t[:7], reverse=True)
    best = ranked[0][7]
    rival = next((t[7] for t in ranked[1:] if t[:5] == ranked[0][:5] and t[7].kind == best.kind
                  and not _same_quantity(t[7], best)), None)
    if rival is None:
        rival = _unmarked_rival(ranked, asking)
    if rival is not None:
        # two values of the kind asked fit the part equally well: say both, decide neither
        return Reading("ambiguous", best.piece, best.value, best, best.condition or restriction, rival=rival.value)
    return Reading("stated", best.piece, best.value, best, best.condition or restriction)


def _unmarked_rival(ranked: list[tuple[int, int, int, int, int, int, int, Stated]], asking: Asking) -> Stated | None:
    """Another value of the chosen kind when nothing in the part's own words marks the chosen one out.

    With several values of one kind in a passage (a per-session amount and a yearly cap, an initial
    and a continuation approval), the winner must be told apart by the part itself: a condition the
    question meets that the others lack, the side of the bound asked ("maximum", "at least"), or a
    word of the part around it that is around no other value. Winning on word counts alone, or on
    reading order, is a guess; the part is then left to a person with both values named."""
    top, best = ranked[0], ranked[0][7]
    rivals = [t for t in ranked[1:] if t[7].kind == best.kind and not _same_quantity(t[7], best)]
    if not rivals:
        return None
    if all(top[0] > t[0] or top[2] > t[2] for t in rivals):
        return None  # its condition is met, or it is the bound asked, and no rival's is
    drop = _stems(" ".join(sorted(circumstance_words()))) | set(paying_terms())  # paying_terms are stems already
    own = (_stems(asking.words) | _stems(asking.item)) - drop
    # the subject's words mark a value only against one in another sentence or line ("Headgear: 1 per
    # 6 months" against "Tubing: 1 per 3 months"): inside one sentence the subject is written once,
    # beside the first value ("X is reimbursed up to A per pair and B per year")
    bare = own - _stems(asking.subject)

    def around(v: Stated) -> set[str]:
        return _stems(f"{v.context} {v.period or ''} {v.unit}")

    def told_apart(rival: Stated) -> bool:
        one_sentence = rival.piece == best.piece and "\n" not in best.piece  # a list's lines are apart
        wanted = bare if one_sentence else own
        return bool((wanted & around(best)) - (wanted & around(rival)))

    return next((t[7] for t in rivals if not told_apart(t[7])), None)


def _list_head(pieces: list[str], at: int) -> int | None:
    """The list head a piece belongs to: the nearest earlier piece ending with a colon."""
    for i in range(at - 1, -1, -1):
        if pieces[i].rstrip().endswith(":"):
            return i
    return None


def _yes_no(text: str) -> tuple[str | None, str]:
    if denies(text):
        return "no", text
    if grants(text):
        return "yes", text
    return None, text


def _opposite_as_fitting(pieces: list[str], at: int, value: str | None, asking: Asking) -> str | None:
    """The other answer, when another sentence of the passage gives it and fits the question as well.

    A passage that grants a benefit in one case and denies it in another ("covered after a trial of
    X"; "as the first device, without a trial, denied") answers only the case the question is in.
    The words for paying are left out of the comparison: every sentence answering coverage has
    them, so they cannot tell which case the question is about. A tie says neither."""
    if value is None:
        return None
    terms = tuple(t for t in asking.terms if t not in paying_terms())
    own = _overlap(pieces[at], terms)
    for i, piece in enumerate(pieces):
        other, _ = _yes_no(piece)
        if i != at and other is not None and other != value and _overlap(piece, terms) >= own > 0:
            return other
    return None


def _coverage(text: str, asking: Asking, restriction: Condition | None) -> Reading:
    pieces = sentences(text) or [text.strip()]
    if restriction is not None and restriction.kind != "procedural":
        met = condition_met(restriction, asking.question)
        restricting = next(p for p in pieces if restriction.text in p)
        if met is None and restriction.restrictive:
            # "covered only when ... accident" says no for every other case
            return Reading("answers", restricting, "no", condition=restriction)
        if met is None:
            return Reading("conditional", restricting, None, condition=restriction)
        if met is False:
            return Reading("answers", restricting, "no", condition=restriction)
    scores = [(_overlap(p, asking.terms), -i) for i, p in enumerate(pieces)]
    at = -max(scores)[1]
    best = pieces[at]
    value, _ = _yes_no(best)
    rival = _opposite_as_fitting(pieces, at, value, asking)
    if rival is not None:
        return Reading("ambiguous", best, value, condition=restriction or condition_of(best), rival=rival)
    excerpt = text.strip() if len(text) <= 320 else best
    if value is None:
        head = _list_head(pieces, at)
        if head is not None:
            value, _ = _yes_no(pieces[head])
            start, end = text.find(pieces[head]), text.find(best) + len(best)
            if value is not None and 0 <= start < end and end - start <= 400:
                excerpt = text[start:end]
    if value is None and len(pieces) > 1:
        value, _ = _yes_no(pieces[0])
    condition = restriction or condition_of(best)
    if condition is not None and condition.kind == "age" and value == "yes":
        met = condition_met(condition, asking.question)
        if met is False:
            value = "no"
        elif met is None:
            return Reading("conditional", best, None, condition=condition)
    return Reading("answers", excerpt, value, condition=condition)


def read_passage(text: str, asking: Asking) -> Reading:
    """Whether a passage (already above the threshold) settles a part, with its value and excerpt.

    The excerpt is the sentence (or list item with its head) that does the settling, verbatim; a
    short clause answering a coverage part is quoted whole."""
    pieces = sentences(text) or [text.strip()]
    restriction = next(
        (c for p in pieces if restricts(p) and (c := condition_of(p)) is not None and c.restrictive), None
    )
    if not asking.asks_quantity:
        return _coverage(text, asking, restriction)
    chosen = _choose_value(text, asking, restriction)
    if chosen is not None:
        return chosen
    if states_quantity(text, asking.asked):
        # it states values of the kind asked, none of them for this part: that settles nothing (an
        # exclusion elsewhere in it is about something else)
        return Reading("no_quantity", pieces[0])

    def best(candidates: list[str]) -> str:
        return max(candidates, key=lambda s: (_overlap(s, asking.terms), -pieces.index(s)))

    excluding = [s for s in pieces if excludes(s)]
    if excluding:
        return Reading("excluded", best(excluding), "no")
    # an exclusion written as a list: the best-matching item under a head that refuses it
    top = pieces.index(best(pieces))
    head = _list_head(pieces, top)
    if denies(pieces[top]) or (head is not None and denies(pieces[head])):
        return Reading("excluded", pieces[top], "no")
    deferring = [s for s in pieces if defers_quantity(s)]
    if deferring:
        return Reading("deferred", best(deferring))
    return Reading("no_quantity", best(pieces))
