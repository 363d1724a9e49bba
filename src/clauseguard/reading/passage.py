"""What one passage reading is about and gives back: the part as the reader needs it (`Asking`), the
reading (`Reading`), the passage's sentences and the few word tests both readers share (values in
extract.py, yes or no in coverage.py). It reads no value and decides nothing itself."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal

from clauseguard import text as toolkit
from clauseguard.reading.cues import member_ages
from clauseguard.reading.stated import Condition, Stated, age_in, circumstance_words

Settles = Literal["stated", "excluded", "deferred", "no_quantity", "answers", "conditional", "ambiguous"]

DAYS: Final = {"hour": 1 / 24, "day": 1.0, "week": 7.0, "month": 30.4375, "year": 365.25}


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


def stems(text: str) -> set[str]:
    return set(toolkit.content_words(text))


def overlap(sentence: str, terms: Sequence[str]) -> int:
    low = sentence.lower()
    return sum(1 for t in terms if t and t in low)


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
    label: str = ""  # the part's own words, without the shared subject ("initial approval")


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
    occasion = stems(condition.text) - stems("following after where when has had " + " ".join(sorted(circumstance_words())))
    return True if occasion & stems(question) else None




def member_fits(text: str, question: str) -> bool:
    """False when the text speaks of a kind of member ("EUR 2,000 per child", "for adults") and the question
    states an age outside it ("an employee aged 34"); True otherwise, a question stating no age included."""
    ages, age = member_ages(text), age_in(question)
    if ages is None or age is None:
        return True
    low, high = ages
    return (low is None or age >= low) and (high is None or age <= high)
