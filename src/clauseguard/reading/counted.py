"""What a count question counts, and whether a stated count counts it.

"How many billing units of J1628", "the number of NSAIDs": the counted thing is the question's words
after "how many" / "number of" up to a verb or a preposition (`data/search/cues.yaml` counted_ends),
its last word the thing. A stated count answers only when its own noun phrase (the words between its
figure and its counted noun, those just after, and an abbreviation in brackets: "nonsteroidal anti-inflammatory drugs
(NSAIDs)") names that thing or one of its kind (`counted_alike`). Otherwise the count is of something
else ("100 billing units per 56 days" is no number of injections) and answers nothing.
"""

from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources
from typing import Final

from clauseguard import text as toolkit
from clauseguard.datafiles import load_yaml
from clauseguard.reading.stated import Stated, number_of

# "how many of the listed signs": the thing follows "of" and the words that point at a list
_ASKS_COUNT: Final = re.compile(r"\b(?:how\s+many|number\s+of)\s+(?:of\s+(?:the\s+|these\s+|those\s+)?"
                                r"(?:listed\s+|following\s+|above\s+|named\s+)?)?(.+)", re.IGNORECASE)
_OCCASIONS: Final = frozenset({"time", "times"})  # "how many times": a frequency, any count of occasions
TIME_UNITS: Final = frozenset({"day", "week", "month", "year", "hour"})  # stems of the units of time
NEAR_WORDS: Final = 4  # words of a stated count's noun phrase read on each side of its counted noun


@lru_cache(maxsize=1)
def _raw() -> dict[str, object]:
    found = load_yaml((resources.files("clauseguard") / "data" / "search" / "cues.yaml").read_text("utf-8"))
    assert isinstance(found, dict)
    return found


@lru_cache(maxsize=1)
def _data() -> tuple[frozenset[str], tuple[frozenset[str], ...], frozenset[str]]:
    raw: dict = _raw()  # type: ignore[type-arg]
    ends = frozenset(str(raw["counted_ends"]).split())
    alike = tuple(frozenset(toolkit.stem(w) for w in str(line).split()) for line in raw["counted_alike"])
    return ends, alike, frozenset(str(raw["counted_skip"]).split())


@lru_cache(maxsize=1)
def _not_kinds() -> frozenset[str]:
    return frozenset(str(_raw()["counted_not_kinds"]).split())


def _is_figure(word: str) -> bool:
    """A number as written: digits ("875", "2024") or a number word ("two")."""
    return any(c.isdigit() for c in word) or number_of(word) is not None


def counted_thing(words: str) -> str | None:
    """The stem of the thing a part counts ("how many TNF inhibitors must ..." -> "inhibitor"), or None
    when it counts nothing named (no "how many", "how many does the plan pay", "how many times")."""
    m = _ASKS_COUNT.search(words)
    if m is None:
        return None
    ends, _, skip = _data()
    thing: list[str] = []
    for word in toolkit.words(m.group(1)):
        if word in _OCCASIONS:
            return None
        if word in ends:
            break
        if word in skip or _is_figure(word):
            continue  # "Aimovig 70 mg autoinjectors", "catheter kits (A4353)": a strength or a code
        thing.append(word)
    if not thing:
        return None
    return toolkit.stem(thing[-1])


def counts_it(value: Stated, thing: str) -> bool:
    """True when the stated count's noun phrase names the thing counted, or one of its kind."""
    _, alike, _ = _data()
    wanted = {thing}.union(*(c for c in alike if thing in c))
    return bool(wanted & _phrase_stems(value))


def counts_time(value: Stated, thing: str | None) -> bool:
    """True for a count of days, weeks or months ("15 headache days a month", "treatment days per cycle")
    asked of a part that does not count them by name: such a count says how often a condition occurs or
    how long a course runs, and answers "how many per month" (of doses, visits) no better than a figure
    of another thing."""
    unit = toolkit.stem(value.unit.casefold()) if value.unit else ""
    return unit in TIME_UNITS and thing != unit


def _phrase_stems(value: Stated) -> set[str]:
    words = toolkit.words(value.piece)
    unit = toolkit.stem(value.unit.casefold()) if value.unit else ""
    found = {unit} if unit else set()
    ends, _, _ = _data()
    for i, word in enumerate(words):
        if toolkit.stem(word) != unit:
            continue
        for w in reversed(words[max(0, i - NEAR_WORDS):i]):
            if _is_figure(w):
                break  # its own figure: the words before it belong to another phrase ("875 mg per infusion (875 units")
            found.add(toolkit.stem(w))
        for w in words[i + 1:i + 1 + NEAR_WORDS]:
            if w in ends:
                break
            found.add(toolkit.stem(w))
        break
    return found


def another_kind(value: Stated, question: str) -> bool:
    """True when the value counts another kind of the thing the question asks of: the question puts a
    word before the counted noun that the value's sentence never uses ("male external catheters"), and
    the sentence puts one before it that the question never uses ("intermittent catheters")."""
    unit = toolkit.stem(value.unit.casefold()) if value.unit else ""
    if not unit:
        return False

    plain = _not_kinds()

    def modifiers(text: str) -> set[str]:
        words = toolkit.words(text)
        return {toolkit.stem(before) for before, word in zip(words, words[1:], strict=False)
                if toolkit.stem(word) == unit and before not in toolkit.STOP_WORDS and before not in plain
                and not _is_figure(before)}

    def every(text: str) -> set[str]:  # "in-person" names "person" too
        return {toolkit.stem(w) for word in toolkit.words(text) for w in {word, *word.split("-")}}

    asked, said = modifiers(question), modifiers(value.piece)
    return bool(asked and said) and not asked & every(value.piece) and not said & every(question)

