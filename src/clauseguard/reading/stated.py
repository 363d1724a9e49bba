"""The values a clause states, each with what it is for: (item, value, unit, period, condition).

"Reimbursed at 70% ... up to EUR 1,500 per contract year, after six months" is three values; "raised
from twenty (20) to thirty (30) visits" is one (the old figure is not a value of the clause). Each
value keeps the piece of text (sentence or list item) it is stated in, the words around it (what it
is for), and the condition of its sentence: an age ("for insured persons under 16"), an occasion
("only when made necessary by an accident"), or a condition of payment ("with prior authorization").
Cue words are data (`data/search/cues.yaml`); it never decides which value answers a question.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final, Literal

from clauseguard import text as toolkit
from clauseguard.reading.cues import (
    _patterns,
    circumstance_words,
    cues,
    denial_at,
    denies,
    frames,
    grant_at,
    grants,
    negative,
    paying_terms,
    phases,
    restriction_cue,
    restricts,
)
from clauseguard.reading.dates import DATE

__all__ = ["Condition", "Stated", "age_in", "circumstance_words", "condition_of", "cues", "denial_at", "denies", "frames",
           "grant_at", "grants", "negative", "number_of", "paying_terms", "phases", "restricts", "restriction_cue", "stated_values",
           "what_it_states"]

ValueKind = Literal["amount", "rate", "duration", "count"]
ConditionKind = Literal["age", "occasion", "procedural", "exception"]  # exception: "unless ...", the case a value is not for

_WORD_NUMBERS: Final = {
    w: i for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
        "sixteen seventeen eighteen nineteen twenty".split()
    )
} | {"thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
     "hundred": 100, "a hundred": 100, "one hundred": 100}
_TENS: Final = r"(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)"
_SMALL: Final = (rf"(?:{_TENS}[- ](?:one|two|three|four|five|six|seven|eight|nine)|{_TENS}|"
                 r"eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|"
                 r"one|two|three|four|five|six|seven|eight|nine|ten)")
# "two hundred fifty (250)", "one thousand five hundred": hundreds and thousands, read by word2number
_HUNDREDS: Final = rf"(?:(?:{_SMALL}|a)\s+)?hundred(?:\s+(?:and\s+)?{_SMALL})?"
_WORD: Final = (rf"(?:(?:(?:{_SMALL}|a)\s+)?thousand(?:\s+(?:and\s+)?(?:{_HUNDREDS}|{_SMALL}))?|{_HUNDREDS}|{_SMALL})")
_DIGITS: Final = r"(?<![\d.])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?"
# a number as written: digits, a word, or a word with its digits in brackets ("twelve (12)")
_NUM: Final = rf"(?P<num>{_DIGITS}|{_WORD}(?:\s*\(\s*\d+\s*\))?)"
_CURRENCY: Final = {"€": "EUR", "£": "GBP", "$": "USD", "eur": "EUR", "gbp": "GBP", "usd": "USD", "chf": "CHF",
                    "euro": "EUR", "euros": "EUR", "pounds": "GBP", "dollars": "USD"}
_RANGE_START: Final = re.compile(
    rf"\b{_NUM}\s*(?:and|to|or|-|\u2013)\s*(?:no\s+more\s+than|not\s+more\s+than|up\s+to|at\s+most|a\s+maximum\s+of)?\s*$",
    re.IGNORECASE)
_AMOUNT: Final = re.compile(
    rf"(?:(?P<sym>[€£$])\s?|\b(?P<code>EUR|GBP|USD|CHF)\s?){_NUM}"
    rf"|\b{_NUM.replace('num', 'num2')}\s?(?P<word>EUR|GBP|USD|CHF|euros?|pounds|dollars)\b",
    re.IGNORECASE,
)
_RATE: Final = re.compile(rf"\b{_NUM}\s?(?:%|per ?cent\b|percent\b)", re.IGNORECASE)
_TIME: Final = r"(?P<unit>hour|day|week|month|year)s?"
_DURATION: Final = re.compile(
    rf"\b{_NUM}(?:[\s-]+(?:calendar|consecutive|full|working|business|contract))?[\s-]+{_TIME}\b", re.IGNORECASE
)
_STOP_NOUN: Final = frozenset(
    "per a an the of in for to from on at by with within every each during and or is are be may will which that "
    "who whose than as under over after before below above".split()
)
# A number right after one of these is a reference ("article 2 below", "criteria 1 through 4") or names a
# category ("type 1 diabetes"), not a count.
_REFERENCE_BEFORE: Final = re.compile(
    r"\b(?:articles?|sections?|paragraphs?|clauses?|items?|criteri(?:on|a)|points?|annex|appendix|schedule|pages?|"
    r"chapters?|parts?|lines?|rows?|tables?|steps?|§)\s*$"
    # ... or a name of a category ("type 1 diabetes", "stage 3 ulcers", "tier 2 drugs", "class IV")
    r"|\b(?:type|grade|stage|class|level|tier|phase|category|gold|schedule)\s*$", re.IGNORECASE)
_COUNT: Final = re.compile(
    rf"\b(?>{_NUM})\s+(?:\d+-[a-z]+\s+)?(?!(?:to|and|or|per|of|in|for|from|than|a|an|the)\b)"
    rf"(?P<noun>(?:[a-z][a-z-]*\s+){{0,3}}[a-z][a-z-]*)", re.IGNORECASE
)
_NUMBER_OF: Final = re.compile(r"\b(?:number|quantity)\s+of\s+(?:[a-z-]+\s+){0,2}?(?P<noun>[a-z-]+s)\b", re.IGNORECASE)
_RAISED_TO: Final = re.compile(rf"\b(?:raised|increased|reduced|lowered|extended|changed|set)\s+(?:from\s+.{{1,30}}?\s+)?to\s+{_NUM}(?=(?:\s+per\s+(?:\d+\s+)?[a-z]+)?(?:\s*[.;,]|\s*$))",
                               re.IGNORECASE)
_MEASURE: Final = re.compile(r"(?:mg|mcg|µg|g|kg|ml|l|mm|cm|m|khz|hz|mmhg|iu|percent|kg/m2)", re.IGNORECASE)
_TIMES: Final = re.compile(r"\b(?P<num>once|twice)\b", re.IGNORECASE)
_PERIOD: Final = re.compile(
    r"\b(?:per|a|each|every|in\s+(?:a|any|the|each))\s+(?:(?:member|insured\s+person|beneficiary|person|patient)\s+per\s+)?"
    r"(?:\d+|[a-z]+(?:\s*\(\d+\))?)?[\s-]*(?:calendar|contract|policy|benefit|plan|rolling)?\s*"
    r"(?:-?month|year|week|day|night|visit|session|stay|eye|accident|hour|lifetime)s?(?:\s+period)?\b",
    re.IGNORECASE,
)
_SUPERSEDED: Final = re.compile(r"\bfrom\s*$", re.IGNORECASE)  # "raised from <old> to <new>"
# an age written in figures, or in words with the figures after it ("sixty-five (65)"), as every style does
_WORDS_THEN: Final = r"(?:[a-z]+(?:-[a-z]+)?\s+\()?"
_AGE: Final = re.compile(
    rf"(?P<under>under|below|younger\s+than|less\s+than)\s+(?:the\s+age\s+of\s+)?{_WORDS_THEN}(?P<n1>\d+)"
    r"|(?P<n2>\d+)\)?\s+(?:years?\s+(?:of\s+age|old)\s+)?(?P<over>or\s+(?:older|over|more))"
    rf"|(?:(?:reached|attained)\s+the\s+age\s+of|(?:from|beginning\s+at|starting\s+at)\s+(?:the\s+)?age(?:\s+of)?)\s+"
    rf"{_WORDS_THEN}(?P<n3>\d+)"
    rf"|(?:over|older\s+than)\s+(?:the\s+age\s+of\s+)?{_WORDS_THEN}(?P<n4>\d+)"
    r"|aged\s+between\s+(?P<lo>\d+)\s+and\s+(?P<hi>\d+)",
    re.IGNORECASE,
)
_AGE_CONTEXT: Final = re.compile(r"\b(?:age|aged|years?\s+of\s+age|years?\s+old|year-old)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Condition:
    """The circumstance a statement is restricted to, as written."""

    kind: ConditionKind
    text: str  # verbatim
    low: float | None = None  # an age condition's bounds (inclusive)
    high: float | None = None
    restrictive: bool = False  # "only when ...": the statement denies every other case


@dataclass(frozen=True)
class Stated:
    """One value of a clause: what kind, how much, the words it is for, and where it is written."""

    kind: ValueKind
    number: float
    value: str  # normalised: "EUR 1,500", "70%", "6 months", "30 visits"
    unit: str  # currency, "percent", time unit, or the counted noun
    period: str | None
    piece: str  # the sentence or list item that states it, verbatim
    context: str  # the stretch of the piece around it (between commas, semicolons and "and"), for its item
    condition: Condition | None
    bound: str | None = None  # "upper" (up to, limited to, no more than) or "lower" (at least, or more)
    is_age: bool = False  # "18 years of age": a value only for a question about age


def number_of(text: str) -> float | None:
    """A number as written: "1,500", "twelve (12)", "twenty-four", "once"."""
    low = " ".join(text.casefold().split())
    if m := re.search(r"\((\d+)\)", low):
        return float(m.group(1))
    if re.fullmatch(_DIGITS, low):
        return float(low.replace(",", ""))
    if low in ("once", "twice"):
        return 1.0 if low == "once" else 2.0
    if low in _WORD_NUMBERS:
        return float(_WORD_NUMBERS[low])
    if re.fullmatch(_WORD, low):  # "twenty-four", "two hundred fifty", "one thousand five hundred"
        from word2number import w2n

        try:
            return float(w2n.word_to_num(re.sub(r"^a\s+", "one ", low)))
        except ValueError:
            return None
    return None


def _fmt(n: float) -> str:
    return f"{n:,.0f}" if n == int(n) else f"{n:,.2f}".rstrip("0").rstrip(".")


def condition_of(piece: str) -> Condition | None:
    """The condition a sentence states, the most decisive first: an age, an occasion, a condition of payment."""
    if _AGE_CONTEXT.search(piece) and (m := _AGE.search(piece)):
        if m.group("under"):
            low, high = None, float(m.group("n1")) - 1e-9
        elif m.group("lo"):
            low, high = float(m.group("lo")), float(m.group("hi"))
        else:
            low, high = float(m.group("n2") or m.group("n3") or m.group("n4")), None
            if m.group("n4"):
                low += 1e-9
        return Condition("age", m.group(0), low, high, restricts(piece))
    for p in _patterns("occasions"):
        if m := p.search(piece):
            return Condition("occasion", m.group(0), restrictive=restricts(piece))
    for p in _patterns("procedural"):
        if m := p.search(piece):
            return Condition("procedural", m.group(0), restrictive=restricts(piece))
    return None


# "or" joins two items, except in a bound ("aged 65 or over", "3 or more"): that stays in the value's stretch
_CONTEXT_CUT: Final = re.compile(r"[,;:]|\band\b|\bor\b(?!\s+(?:older|over|more|less|longer|younger|fewer|greater|under)\b)"
                                 r"|\bnor\b|\bwhile\b|\bbut\b", re.IGNORECASE)


def _context(piece: str, start: int, end: int) -> str:
    """The words of the piece between the nearest cuts before and after a value (its item's words).
    In a list or table line ("A7035 - Headgear: 1 per 6 months") the line is the value's context."""
    colon = piece.find(":")
    if 0 <= colon < start and _LIST_LINE.match(piece):
        return f"{piece[:colon]} {_stretch(piece, start, end)}"
    return _stretch(piece, start, end)


_LIST_LINE: Final = re.compile(r"^\s*(?:[-\u2022*]|\(?[0-9a-zA-Z]{1,3}[.)])\s")


def _stretch(piece: str, start: int, end: int) -> str:
    line_start = piece.rfind("\n", 0, start) + 1
    line_end = piece.find("\n", end)
    line_end = len(piece) if line_end < 0 else line_end
    if line_start > 0 or line_end < len(piece):
        line = piece[line_start:line_end]
        if ":" in line[: start - line_start] or len(line) <= 120:
            return line
    cuts = [m.start() for m in _CONTEXT_CUT.finditer(piece)]
    before = max((c for c in cuts if c < start), default=0)
    after = min((c for c in cuts if c >= end), default=len(piece))
    # a value at the very start of its stretch belongs with the words before it ("..., EUR 60 per night")
    if not piece[before:start].strip(" ,;:") and before > 0:
        before = max((c for c in cuts if c < before), default=0)
    return piece[before:after]


def _period(piece: str, end: int, stop: int | None = None) -> str | None:
    """The counting window written after a value, looked for up to the next value (whose it would be)."""
    m = _PERIOD.match(piece, end) or _PERIOD.search(piece[end:min(end + 60, len(piece) if stop is None else stop)])
    return " ".join(m.group(0).split()) if m else None


def _mentions(piece: str) -> list[tuple[int, int, ValueKind, float, str, str]]:
    """(start, end, kind, number, value, unit) for each value in a piece, first mention wins an overlap."""
    found: list[tuple[int, int, ValueKind, float, str, str]] = []
    taken: list[tuple[int, int]] = []

    def free(s: int, e: int) -> bool:
        return all(e <= a or s >= b for a, b in taken)

    taken.extend(m.span() for m in DATE.finditer(piece))

    for m in _AMOUNT.finditer(piece):
        n = number_of(m.group("num") or m.group("num2") or "")
        cur = m.group("sym") or m.group("code") or m.group("word") or ""
        if n is not None and free(m.start(), m.end()):
            code = _CURRENCY.get(cur.casefold(), cur.upper())
            found.append((m.start(), m.end(), "amount", n, f"{code} {_fmt(n)}", code))
            taken.append((m.start(), m.end()))
    for m in _RATE.finditer(piece):
        n = number_of(m.group("num"))
        if n is not None and free(m.start(), m.end()):
            found.append((m.start(), m.end(), "rate", n, f"{_fmt(n)}%", "percent"))
            taken.append((m.start(), m.end()))
    for m in _DURATION.finditer(piece):
        n = number_of(m.group("num"))
        unit = m.group("unit").casefold()
        if n is not None and free(m.start(), m.end()) and not _AGE_CONTEXT.match(piece, m.end() + 1):
            found.append((m.start(), m.end(), "duration", n, f"{_fmt(n)} {unit}{'s' if n != 1 else ''}", unit))
            taken.append((m.start(), m.end()))
    for m in _COUNT.finditer(piece):
        n = number_of(m.group("num"))
        words = m.group("noun").split()
        noun = next((w for w in words if w.casefold() in _STOP_NOUN), None)
        kept = words[: words.index(noun)] if noun else words
        if n is None or not kept or not free(m.start(), m.start("noun")) or kept[-1].casefold() in _STOP_NOUN:
            continue
        if _REFERENCE_BEFORE.search(piece, max(0, m.start() - 14), m.start()):
            continue  # "as described in article 2 below", "type 1 diabetes"
        if re.fullmatch(r"(?:years?|months?|weeks?|days?|hours?|once|twice|times?)", kept[0], re.IGNORECASE) \
                or any(_MEASURE.fullmatch(w) for w in kept):
            continue  # a duration, a frequency, or a measured quantity ("100 mg"), not a count of things
        # the counted noun: the last plural of the run ("events" in "30 events recorded"), else its last word
        noun_at = max((i for i, w in enumerate(kept) if len(w) > 3 and w.casefold().endswith("s")), default=len(kept) - 1)
        kept = kept[: noun_at + 1]
        item = kept[-1].casefold().strip("-")
        end = m.start("noun") + len(" ".join(kept))
        if not free(m.start(), end):
            continue  # its noun runs into a value or a date already read ("2 doses in May 2024" keeps "2 doses")
        found.append((m.start(), end, "count", n, f"{_fmt(n)} {item}", item))
        taken.append((m.start(), end))
    if (of_m := _NUMBER_OF.search(piece)) and (n_m := _RAISED_TO.search(piece, of_m.end())):
        n = number_of(n_m.group("num"))
        if n is not None and free(n_m.start("num"), n_m.end()):
            item = of_m.group("noun").casefold()
            found.append((n_m.start("num"), n_m.end(), "count", n, f"{_fmt(n)} {item}", item))
            taken.append((n_m.start("num"), n_m.end()))
    for m in _TIMES.finditer(piece):
        if free(m.start(), m.end()):
            n = 1.0 if m.group("num").casefold() == "once" else 2.0
            found.append((m.start(), m.end(), "count", n, f"{_fmt(n)} {'time' if n == 1 else 'times'}", "time"))
            taken.append((m.start(), m.end()))
    for start, _end, kind, _n, _value, unit in list(found):
        # the first end of a range written once with its unit: "at least 4 and no more than 14 migraine days",
        # "between 2 and 4 visits", "6 to 12 months" state 4 days, 2 visits, 6 months as well
        r = _RANGE_START.search(piece, 0, start)
        if r is not None and (n := number_of(r.group("num"))) is not None and free(r.start("num"), r.end("num")) \
                and kind in ("count", "duration") and not _REFERENCE_BEFORE.search(piece, max(0, r.start() - 14), r.start()):
            written = unit if kind == "count" else f"{unit}{'s' if n != 1 else ''}"
            found.append((r.start("num"), r.end("num"), kind, n, f"{_fmt(n)} {written}", unit))
            taken.append((r.start("num"), r.end("num")))
    return sorted(found)


def stated_values(text: str) -> list[Stated]:
    """Every value the clause states, in reading order, each with its piece, context and condition.

    A figure introduced by "from" and followed by another ("raised from 20 to 30") is the old value a
    rider replaces: only the new one is the clause's value. An age in a condition is not a value."""
    out: list[Stated] = []
    for sentence in toolkit.sentences(text):
        piece = sentence.text
        leading = _leading_condition(piece)
        mentions = _mentions(piece)
        bounds: list[str | None] = []
        for i, (start, end, kind, number, value, unit) in enumerate(mentions):
            bound = _bound(piece, start, end)
            if bound is None and i > 0 and mentions[i - 1][2] == kind and _JOINED.fullmatch(piece[mentions[i - 1][1]:start]):
                bound = bounds[-1]  # "limited to A per year and to B over a lifetime": B is a limit too
            bounds.append(bound)
            if _SUPERSEDED.search(piece[:start]) and i + 1 < len(mentions) and mentions[i + 1][2] == kind:
                continue
            context = _context(piece, start, end)
            condition = condition_of(context) or leading
            is_age = kind == "duration" and bool(_AGE_AFTER.match(piece, end))
            if condition is not None and condition.kind == "age" and kind != "amount" and _inside(piece, condition.text, start, end):
                is_age = True  # the age of an age condition is a value only for a question about age
            stop = mentions[i + 1][0] if i + 1 < len(mentions) else None
            out.append(Stated(kind, number, value, unit, _period(piece, end, stop), _quoted(piece, start), context, condition,
                              bound, is_age))
    return out


# what may stand between two values of one limit: a counting window and a joining word
_JOINED: Final = re.compile(r"[^.;:]{0,40}?\b(?:and(?:\s+to)?|nor|or(?:\s+to)?)\s+(?:to\s+)?", re.IGNORECASE)


def _quoted(sentence: str, start: int) -> str:
    """The stretch of a sentence an excerpt quotes for a value: the sentence, or, in a long sentence
    cut by semicolons, the semicolon piece that holds the value (with the sentence's opening line
    when that names the item, as in a list line "- Drug (J3245): induction ...; maintenance ...")."""
    if len(sentence) <= 320:
        return sentence
    for piece in toolkit.pieces(sentence):
        if piece.start <= start < piece.end:
            return piece.text
    return sentence


_AGE_AFTER: Final = re.compile(r"[\s-]*(?:of\s+age|old)\b", re.IGNORECASE)  # "70 years of age", "a 70-year-old"
_UPPER: Final = re.compile(r"(?:up\s+to|limited\s+to|no\s+more\s+than|not\s+more\s+than|maximum\s+of|at\s+most|"
                           r"not\s+exceed|exceed|max\.?|a\s+maximum\s+of|\bnor)\s*$", re.IGNORECASE)
_LOWER: Final = re.compile(r"(?:at\s+least|minimum\s+of|no\s+less\s+than|not\s+less\s+than|a\s+minimum\s+of)\s*$",
                           re.IGNORECASE)
_LOWER_AFTER: Final = re.compile(r"\s*(?:\w+\s+){0,3}?(?:or\s+(?:more|longer|older|over|greater))\b", re.IGNORECASE)
_UPPER_AFTER: Final = re.compile(r"\s*(?:\w+\s+){0,3}?(?:or\s+(?:less|fewer|lower|shorter|younger|under))\b", re.IGNORECASE)


def _bound(piece: str, start: int, end: int) -> str | None:
    before = piece[max(0, start - 30):start]
    if _UPPER.search(before) or _UPPER_AFTER.match(piece, end):
        return "upper"
    if _LOWER.search(before) or _LOWER_AFTER.match(piece, end):
        return "lower"
    return None


_LEADS: Final = re.compile(r"^\s*(?:for|following|after|where|when|if|in\s+the\s+case\s+of|provided|from)\b", re.IGNORECASE)


def _leading_condition(piece: str) -> Condition | None:
    """A condition that opens the sentence ("For insured persons under 16, ...", "Following an
    inpatient stay of ..., ...") governs every value of it; elsewhere a condition governs only the
    values in its own stretch of the sentence."""
    if not _LEADS.match(piece):
        return None
    first = re.search(r"[,;:]", piece)
    opening = piece[: first.start()] if first else piece
    return condition_of(opening)


def _inside(piece: str, needle: str, start: int, end: int) -> bool:
    at = piece.find(needle)
    return at >= 0 and start < at + len(needle) and end > at


def age_in(question: str) -> float | None:
    """The member's age a question states ("a child aged 10", "an employee aged 42", "a 67-year-old")."""
    m = re.search(r"\baged?\s+(\d{1,3})\b|\b(\d{1,3})[- ]years?[- ]old\b|\bage\s+of\s+(\d{1,3})\b", question, re.I)
    if m is None:
        return None
    return float(next(g for g in m.groups() if g))


def what_it_states(text: str) -> frozenset[str]:
    """The kinds of answer a clause can give, read from its text: the kinds of value it states
    (amount, rate, duration, count) and whether it grants or refuses cover."""
    found: set[str] = set()
    for sentence in toolkit.pieces(text):
        found |= {m[2] for m in _mentions(sentence.text)}
    if denies(text):
        found.add("denies")
    if grants(text):
        found.add("grants")
    return frozenset(found)
