"""What a stated figure measures, against what a part asks: a span of time in the unit asked, a count of
days per month only for a part that asks per month, days of the thing the part counts, and a change
("decreased by at least 50%") only for a part that asks about a change.

"How many days per month with headache qualify" is not answered by an approval of "12 months", "how many
days must each agent be tried" not by "fifteen (15) days per month" (how often a condition occurs), "how
many months of headache" not by "Approve for 12 months", and "what share of nights" not by a reduction
"of at least 30%". Each of these went out without a handler, on wordings we wrote and on a blind dev set's
(evals/search_values/*/dev5); the words are data (`data/search/cues.yaml`)."""

from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources
from typing import Final, NamedTuple

from clauseguard import text as toolkit
from clauseguard.datafiles import load_yaml
from clauseguard.reading.passage import DAYS, Asking, stems
from clauseguard.reading.stated import Stated

_ASKS_TIME: Final = re.compile(r"\b(?:how\s+many|number\s+of)\s+(?:\w+\s+){0,2}?(hour|day|week|month|year)s?\b", re.I)
_WINDOW: Final = re.compile(
    r"\b(?:per|a|an|each|every|in\s+(?:a|any|each))\s+(?:\d+[\s-]*)?(?:calendar\s+)?(?:hour|day|night|week|month|year)s?\b"
    r"|\b(?:daily|nightly|weekly|monthly|annually|yearly|quarterly)\b", re.I)
# units of time and the words of a window or a bound: none of them says what the days are of
_TIME_STEMS: Final = frozenset({"hour", "day", "week", "month", "year", "night", "per", "each", "everi", "least", "most"})


class _Cues(NamedTuple):
    change: re.Pattern[str]  # a word of change, anywhere ("how much must the score fall")
    before: re.Pattern[str]  # a change written before its figure: "decreased by at least 50%"
    after: re.Pattern[str]  # and after it: "a 30% reduction in airflow"
    ends: frozenset[str]  # the words that end a counted phrase of time: its verb
    by_how_much: re.Pattern[str]  # "by how much"
    asks: re.Pattern[str]  # "how much must X fall", "what reduction", "what percentage decrease"


@lru_cache(maxsize=1)
def _cues() -> _Cues:
    raw = load_yaml((resources.files("clauseguard") / "data" / "search" / "cues.yaml").read_text("utf-8"))
    change = "|".join(str(raw["change_words"]).split())
    return _Cues(re.compile(rf"\b(?:{change})\w*|\bby\s+how\s+much\b", re.I),
                 re.compile(rf"\b(?:{change})\w*(?:\s+\S+){{0,4}}?\s+(?:of|by)\s+(?:at\s+least\s+|more\s+than\s+|an?\s+)?$", re.I),
                 re.compile(rf"^\W*(?:or\s+(?:more|greater)\s+)?(?:{change})", re.I),
                 frozenset(str(raw["time_phrase_ends"]).split()),
                 re.compile(r"\bby\s+how\s+(?:much|many)\b", re.I),
                 re.compile(rf"\bhow\s+(?:much|many|far)\b.*\b(?:{change})\w*|\b(?:what|which)\s+(?:\w+\s+)?(?:{change})\w*", re.I))


def asked_unit(words: str) -> str | None:
    """The unit of time a part counts ("how many days with migraine features" -> "day"), or None."""
    m = _ASKS_TIME.search(words)
    return m.group(1).lower() if m else None


def in_unit_asked(v: Stated, unit: str | None) -> bool:
    """A span of time answers "how many days" only in days or in a unit that is a whole number of days
    ("8 weeks" is 56 days; "12 months" is no whole number of days, and a person converts it)."""
    if unit is None or v.unit not in DAYS or v.unit == unit:
        return True
    ratio = DAYS[v.unit] / DAYS[unit]
    return ratio >= 1 and abs(v.number * ratio - round(v.number * ratio)) < 1e-6


def window_fits(v: Stated, asking: Asking) -> bool:
    """A count of days per month ("headache on at least fifteen (15) days per month") says how often
    something happens: it answers only a part that asks per a span too. And the other way: a part that
    asks "migraine days per month" asks such a count, which no span without a window answers ("Approve
    for 12 months")."""
    if v.unit not in DAYS:
        return True
    asked = asking.label or asking.words
    if not v.period:  # what the part asks, not the member's circumstances ("on about 8 days a month")
        return not _UNITS_PER_SPAN.search(asked)
    return bool(_WINDOW.search(asked))


# "migraine days per month", "headache days a month", "nights per week": units of time counted in a window
_UNITS_PER_SPAN: Final = re.compile(
    r"\b(?:hour|day|night|week)s?\s+(?:per|a|an|each|every|in\s+(?:a|any|each))\s+(?:\d+\s+)?(?:calendar\s+)?"
    r"(?:day|week|month|year)\b", re.I)


def of_the_thing(v: Stated, asking: Asking, unit: str | None) -> bool:
    """For "how many days with migraine features" / "how many months of headache": the days stated must
    be of that thing, a word of it within the value's own phrase; a part that names no thing of its own
    ("how many days a month") is not checked here."""
    if unit is None:
        return True
    label = asking.words.removesuffix(asking.subject) if asking.subject else asking.words
    own = (_thing_words(label) | stems(asking.item)) - _TIME_STEMS - _phrase_ends()
    if not own:
        return True
    return bool(own & _near(v))


def is_change(v: Stated) -> bool:
    """True for a value stated as a change: "decreased by at least 50%", "a 30% reduction in ..."."""
    m = _figure(v)
    if m is None:
        return False
    cues = _cues()
    tail = re.sub(r"^\S*\s*(?:percent|per\s*cent|%)?", "", v.context[m.end():], flags=re.I)
    return bool(cues.before.search(v.context[:m.start()]) or cues.after.search(tail))


def speaks_of_change(asking: Asking) -> bool:
    """True when the part's words name a change ("reduction", "decrease", "by how much"): only then may a
    change answer it."""
    return bool(_cues().change.search(asking.words))


def asks_change(asking: Asking) -> bool:
    """True when the part asks for the size of a change ("by how much must headache days fall", "how much
    must the score improve", "what reduction in pain"): only a change answers it."""
    cues = _cues()
    return bool(cues.by_how_much.search(asking.words) or cues.asks.search(asking.words))


def measures_asked(v: Stated, asking: Asking) -> bool:
    """Every test above: False when the value measures something else than the part asks."""
    unit = asked_unit(asking.words)
    return (in_unit_asked(v, unit) and window_fits(v, asking) and of_the_thing(v, asking, unit)
            and (speaks_of_change(asking) if is_change(v) else not asks_change(asking))
            and (not counts_within(v) or bool(_ASKS_SPACING.search(asking.label or asking.words))))


# "three (3) pens per 28 days", "one per 6 months": the span a count is counted in, not a length of anything
_WINDOW_BEFORE: Final = re.compile(r"\b(?:per|every|each|in\s+(?:any|each|a))\s+(?:[a-z-]+\s*\(\s*)?$", re.I)
# a part that asks how far apart things may be: only it is answered by such a span
_ASKS_SPACING: Final = re.compile(r"\b(?:how\s+often|how\s+frequently|how\s+soon|frequency|interval|every|apart|between|"
                                  r"repeat\w*|replace\w*|refill\w*|window|per|due|next|again|supply)\b", re.I)


def counts_within(v: Stated) -> bool:
    """True for a span that is the window of a count ("per 28 days", "every 6 months"): asked "approval
    period?", it answers nothing ("Emgality ... approval period?" is not "28 days")."""
    if v.kind != "duration":
        return False
    m = _figure(v)
    return m is not None and bool(_WINDOW_BEFORE.search(v.context[:m.start()]))


def _figure(v: Stated) -> re.Match[str] | None:
    """Where the value's figure is written in its context (digits; a number word is not found)."""
    figure = f"{int(v.number)}" if v.number == int(v.number) else f"{v.number:g}"
    return re.search(rf"(?<![\d.,]){re.escape(figure)}(?![\d,]|\.\d)", v.context)


@lru_cache(maxsize=1)
def _phrase_ends() -> frozenset[str]:
    return frozenset(stems(" ".join(sorted(_cues().ends))))


def _thing_words(words: str) -> set[str]:
    """The content words of the counted phrase around the unit asked, up to its verb: "days with migraine
    features are needed" -> migraine, feature; "days per month" -> none."""
    ends = _cues().ends
    m = _ASKS_TIME.search(words)
    if m is None:
        return set()
    phrase: list[str] = []
    for w in toolkit.words(words[m.start():])[2:]:
        if w in ends:
            break
        phrase.append(w)
    return stems(" ".join(phrase)) - _TIME_STEMS


def _near(v: Stated) -> set[str]:
    """The content words of the value's own phrase in its sentence: up to six each side of its figure, not
    past a clause of its own ("Approve for 12 months | when ... headache days have fallen") or a stop."""
    m = _figure(v)
    if m is None:
        return set(toolkit.content_words(v.context))
    at = v.piece.find(v.context)
    text, at = (v.piece, at) if at >= 0 else (v.context, 0)
    start, end = at + m.start(), at + m.end()
    before = _CLAUSE_EDGE.split(text[:start])[-1]
    after = _CLAUSE_EDGE.split(text[end:])[0]
    return set(toolkit.content_words(before)[-NEAR:]) | set(toolkit.content_words(after)[:NEAR])


NEAR: Final = 6
_CLAUSE_EDGE: Final = re.compile(r"[;:.\n]|\b(?:when|if|where|unless|provided|because|while|whereas)\b", re.I)
