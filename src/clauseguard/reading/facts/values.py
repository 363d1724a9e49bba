"""Values in a narrative: how often (BID, q6h, "4x/day"), how long ("x 6 mo", "since 2023-11-15"), dates,
measurements with units (and BMI from height and weight), doses; ages are ages.py's.

It owns reading numbers next to what they measure; the notations are data (data/facts/values.yaml and
the lexicon's numbers and units) and physical units go through pint, never counts of items. It never
decides what a value is about beyond the quantity the lexicon names.
"""

from __future__ import annotations

import re
from datetime import date, timedelta
from functools import cache
from typing import Any, Final

from clauseguard.corpus.criteria import Period
from clauseguard.reading.facts.note import NUMBER_TOKEN, Note
from clauseguard.reading.facts.sheet import MeasureFact, Rate
from clauseguard.reading.lexicon import normalise

_DAYS: Final = {"day": 1.0, "week": 7.0, "month": 30.4375, "year": 365.25}


def _alt(words: Any) -> str:
    return "|".join(r"\s*".join(map(re.escape, str(w).split())) for w in sorted(map(str, words), key=len, reverse=True))


class Notation:
    """The value notations of one rule set as compiled patterns (built once per rules instance)."""

    def __init__(self, note: Note) -> None:
        r, T = note.rules, note.tables
        N = T.number_re
        self.abbreviated = {normalise(k): (float(v[0]), float(v[1]), str(v[2]))
                            for k, v in r.values("abbreviated_frequencies").items()}
        self.abbr_re = re.compile(rf"(?<![\w/])(?:{_alt(self.abbreviated)})(?![\w/])", re.I)
        timing = rf"(?:{_alt(self.abbreviated)}|{_alt(r.values('timing_words'))})"
        joiner = _alt(r.values("timing_adders"))
        self.joined_after_re = re.compile(rf"\s*(?:{joiner})\s*(?P<t>{timing})(?![\w/])", re.I)
        self.joined_before_re = re.compile(rf"(?<![\w/])(?P<t>{timing})\s*(?:{joiner})\s*$", re.I)
        self.as_needed_re = re.compile(rf"\s*,\s*(?:{_alt(r.values('as_needed'))})(?![\w/])", re.I)
        self.sig = {normalise(k): (float(v[0]), float(v[1]), str(v[2])) for k, v in r.values("sig_frequencies").items()}
        self.sig_re = re.compile(rf"(?<![\w/])(?:{_alt(self.sig)})(?![\w/])", re.I)
        hourly = r.values("hourly_interval")
        self.hourly_re = re.compile(rf"(?<![\w-])(?:{_alt(hourly['prefixes'])})\s*(?P<n>\d+)\s*(?:{_alt(hourly['units'])})"
                                    r"(?![\w-])", re.I)
        self.period_words = {normalise(w): unit for unit, forms in r.values("period_words").items() for w in forms}
        per = _alt(self.period_words)
        self.period_after_re = re.compile(rf"\s*(?P<p>{per})(?![\w])", re.I)
        times = _alt(r.values("times_markers"))
        slash = _alt([w for w in r.values("period_words")["day"] + r.values("period_words")["week"]
                      + r.values("period_words")["month"] if str(w).startswith("/")])  # "4/day", "2/wk"
        repeat = _alt(T.times)
        self.times_re = re.compile(
            rf"(?<![\w.])(?:(?P<n>{N})\s*(?:{times})\s*(?P<p>{per})|(?:{times})\s*(?P<n2>\d+)\s*(?P<p2>{per})"
            rf"|(?P<r>{repeat})\s+(?:a\s+|per\s+|each\s+|every\s+)?(?P<p3>{per}|day|week|month)"
            rf"|(?P<n5>\d+)(?P<p5>{slash})"
            rf"|(?P<n4>{N})\s+(?:times\s+)?(?P<p4>{per}))(?![\w])", re.I)
        leads = _alt(r.values("duration_leads"))
        self.duration_re = re.compile(
            rf"(?<![\w])(?:{leads})\s*(?P<n>{N})\s*-?\s*(?P<t>{T.time_re}|y|m|w|d)(?![\w])", re.I)
        # a condition's own start: "onset 2 weeks ago", "began 2023-12-01" (never a therapy's: a course
        # started then may have stopped since)
        began = _alt(r.values("onset_words"))
        self.began_ago_re = re.compile(rf"(?<![\w])(?:{began})\s*[:-]?\s*(?:about\s+|approximately\s+|~\s*)?"
                                       rf"(?P<n>{N})\s*-?\s*(?P<t>{T.time_re})\s+ago(?![\w])", re.I)
        self.began_on_re = re.compile(rf"(?<![\w])(?:{began})\s*[:-]?\s*(?:on\s+|in\s+)?(?P<d>[0-9][0-9/.-]*[0-9]"
                                      rf"|(?:{_alt(r.values('month_names'))})\.?\s+\d{{4}})", re.I)
        self.since_re = re.compile(rf"(?<![\w])(?:{_alt(r.values('since_words'))})\s+(?P<d>[0-9][0-9/.-]*[0-9]"
                                   rf"|(?:{_alt(r.values('month_names'))})\.?\s+\d{{4}})", re.I)
        self.months = {normalise(k): int(v) for k, v in r.values("month_names").items()}
        month = _alt(r.values("month_names"))
        # a date written in the text: "2024-03-22", "03/22/2024", "03/2024", "22 March 2024", "March 22, 2024", "March 2024"
        self.date_re = re.compile(rf"(?<![\w/.-])(?:\d{{4}}-\d{{1,2}}-\d{{1,2}}|\d{{1,2}}/\d{{1,2}}/(?:\d{{4}}|\d{{2}})|\d{{1,2}}/\d{{4}}"
                                  rf"|\d{{1,2}}\s+(?:{month})\.?\s+\d{{4}}|(?:{month})\.?\s+\d{{1,2}},?\s+\d{{4}}"
                                  rf"|(?:{month})\.?\s+\d{{4}})(?![\w/-])", re.I)
        self.date_link_re = re.compile(rf"[\s:,(\-]*(?:(?:{_alt(r.values('date_links'))})[\s:,(\-]*){{0,3}}", re.I)
        self.dose_re = re.compile(rf"(?<![\w.])(?P<v>\d+(?:\.\d+)?(?:\s*-\s*\d+(?:\.\d+)?)?)\s*(?P<u>{_alt(r.values('dose_units'))})"
                                  rf"(?![\w])", re.I)
        body = r.values("body_measures")
        self.body = {name: (re.compile(rf"(?<![\w])(?:{_alt(spec['labels'])})\s*[:=]?\s*", re.I), tuple(spec["units"]))
                     for name, spec in body.items()}
        self.severity_aliases = {normalise(k): normalise(v) for k, v in r.values("severity_aliases").items()}
        self.severity_labels = tuple(normalise(w) for w in r.values("severity_labels"))
        self.severity_nouns = tuple(normalise(w) for w in r.values("severity_nouns"))
        self.severity_reach = int(r.values("severity_reach"))
        self.dose_reach = int(r.values("dose_reach"))


def notation(note: Note) -> Notation:
    return note.rules_derived("facts.notation", Notation)


# --- how often ----------------------------------------------------------------------------------


def rate_in(note: Note, start: int, end: int, *, sig: bool = False,
            inside: tuple[tuple[int, int], ...] = ()) -> tuple[Rate, int, int] | None:
    """The first frequency written in [start, end), none inside the given spans (the words of a name,
    "multiple daily injections"): (rate, where it starts, where it ends). `sig`: a drug's sig, where a
    period word alone ("daily") is once per period."""
    nt = notation(note)
    text = note.clean
    found: list[tuple[int, int, Rate | None]] = []
    for m in nt.abbr_re.finditer(text, start, end):
        count, length, unit = nt.abbreviated[normalise(m.group())]
        found.append((m.start(), m.end(), Rate(count, Period(length, unit))))  # type: ignore[arg-type]
    if sig:
        for m in nt.sig_re.finditer(text, start, end):
            count, length, unit = nt.sig[normalise(m.group())]
            found.append((m.start(), m.end(), Rate(count, Period(length, unit))))  # type: ignore[arg-type]
    for m in nt.hourly_re.finditer(text, start, end):
        hours = int(m.group("n"))
        rate = Rate(24 / hours, Period(1.0, "day")) if hours and 24 % hours == 0 and not re.match(r"\s*-\s*\d", text[m.end():]) \
            else None
        found.append((m.start(), m.end(), rate))
    for m in nt.times_re.finditer(text, start, end):
        raw_n = m.group("n") or m.group("n2") or m.group("n4") or m.group("n5")
        value = note.num_at(raw_n) if raw_n else note.tables.times.get(normalise(m.group("r") or ""))
        period_word = normalise(m.group("p") or m.group("p2") or m.group("p3") or m.group("p4") or m.group("p5") or "")
        unit = nt.period_words.get(period_word) or (period_word if period_word in _DAYS else None)  # type: ignore[assignment]
        if value is None or unit is None or re.search(r"\d\s*-\s*$", text[max(start, m.start() - 4):m.start()]):
            continue
        found.append((m.start(), m.end(), Rate(value, Period(1.0, unit))))  # type: ignore[arg-type]
    found = [f for f in found if not any(a < f[1] and f[0] < b for a, b in inside)]
    found.sort(key=lambda f: (f[0], -f[1]))
    for s, e, rate in found:
        if rate is not None:
            return _with_joined(note, rate, s, e, start, end)
        return None  # a frequency that gives no number ("q4-6h") is no frequency at all
    return None


def _with_joined(note: Note, rate: Rate, s: int, e: int, start: int, end: int) -> tuple[Rate, int, int] | None:
    """The day's count when the frequency is one of several times joined in a list ("qid and hs": five a
    day); None when a joined part gives no count of the same period ("before meals and at bedtime")."""
    nt, text = notation(note), note.clean
    parts = [(s, e)]
    while (m := nt.joined_before_re.search(text, start, parts[0][0])) is not None:
        parts.insert(0, (m.start("t"), m.end("t")))
    stop = re.compile(r"[.;\n]").search(text, e, e + 60)  # a list may run past the window's comma, not the sentence
    limit = max(end, stop.start() if stop else min(len(text), e + 60))
    while (m := nt.joined_after_re.match(text, parts[-1][1], limit)) is not None:
        parts.append((m.start("t"), m.end("t")))
    if nt.as_needed_re.match(text, parts[-1][1], limit):
        return None  # "bid, prn": as many more as needed
    if len(parts) == 1:
        return rate, s, e
    counts = [nt.abbreviated.get(normalise(text[a:b])) for a, b in parts]
    if any(c is None or (c[1], c[2]) != (rate.per.length, rate.per.unit) for c in counts):
        return None
    return Rate(sum(c[0] for c in counts if c is not None), rate.per), parts[0][0], parts[-1][1]


# --- how long and when ------------------------------------------------------------------------------


def parse_date(note: Note, raw: str) -> date | None:
    """ISO, US numeric (03/15/2024, 3/15/24), written out (22 March 2024, March 22, 2024) or month and year
    (03/2024, March 2024: its first day)."""
    raw = raw.strip().rstrip(".")
    try:
        if m := re.fullmatch(r"(\d{4})-(\d{1,2})-(\d{1,2})", raw):
            return date(int(m[1]), int(m[2]), int(m[3]))
        if m := re.fullmatch(r"(\d{1,2})/(\d{1,2})/(\d{2}|\d{4})", raw):
            year = int(m[3]) + (2000 if len(m[3]) == 2 else 0)
            return date(year, int(m[1]), int(m[2]))
        if m := re.fullmatch(r"(\d{1,2})/(\d{4})", raw):
            return date(int(m[2]), int(m[1]), 1)
        if m := re.fullmatch(r"([a-z]+)\.?\s+(\d{4})", raw, re.I):
            month = notation(note).months.get(normalise(m[1]))
            return date(int(m[2]), month, 1) if month else None
        if m := re.fullmatch(r"(\d{1,2})\s+([a-z]+)\.?\s+(\d{4})|([a-z]+)\.?\s+(\d{1,2}),?\s+(\d{4})", raw, re.I):
            day_text, name, year_text = (m[1], m[2], m[3]) if m[1] else (m[5], m[4], m[6])
            month = notation(note).months.get(normalise(name))
            return date(int(year_text), month, int(day_text)) if month else None
    except ValueError:
        return None
    return None


def date_range(note: Note, raw: str) -> tuple[date, date] | None:
    """The days a written date allows: the day itself, or every day of the month for a month and year."""
    first = parse_date(note, raw)
    if first is None:
        return None
    if re.fullmatch(r"\d{1,2}/\d{4}|[a-z]+\.?\s+\d{4}", raw.strip().rstrip("."), re.I):
        return first, date(first.year + first.month // 12, first.month % 12 + 1, 1) - timedelta(days=1)
    return first, first


_YEAR: Final = re.compile(r"[\s,(]*(?:in\s+)?(?P<y>(?:19|20)\d{2})(?![\w/.\-]*\d)")


def dated_after(note: Note, end: int, stop: int) -> tuple[float, float, int, str | None] | None:
    """When an event named just before `end` took place, from a date or a word of time written right after
    it ("office visit 03/22/2024", "last saw him in March 2024", "seen in person today"): (fewest, most)
    days before the request, where the date ends, and "day" or "month" when it is a calendar date. Only link words may stand between the two; a date
    after the request's dates nothing. A date outweighs a word ("visit today (03/22/2024)")."""
    if note.as_of is None:
        return None
    nt = notation(note)
    link = nt.date_link_re.match(note.clean, end, stop)
    found = nt.date_re.match(note.clean, link.end() if link else end, stop)
    if found is not None:
        span = date_range(note, found.group())
        if span is None or span[0] > note.as_of:
            return None
        first, last = span[0], min(span[1], note.as_of)
        return (float((note.as_of - last).days), float((note.as_of - first).days), found.end(),
                "day" if span[0] == span[1] else "month")
    # a year alone ("gastric bypass 2018", "sequencing (2022, accredited lab)"): every day of that year
    year = _YEAR.match(note.clean, link.end() if link else end, stop)
    if year is not None:
        first, last = date(int(year.group("y")), 1, 1), date(int(year.group("y")), 12, 31)
        if first > note.as_of:
            return None
        return (float((note.as_of - min(last, note.as_of)).days), float((note.as_of - first).days), year.end(), "year")
    words = note.tables.ago_words
    if not words:
        return None
    alt = "|".join(r"\s+".join(map(re.escape, w.split())) for w in sorted(words, key=len, reverse=True))
    hit = re.compile(rf"[\s:,(\-]*(?:on\s+|in\s+)?(?P<w>{alt})(?![\w-])", re.I).match(note.clean, end, stop)
    if hit is None:
        return None
    fewest, most = words[normalise(hit.group("w"))]
    if fewest == 0 and most > 0:
        return None  # "this week", "this month": the current period holds the request itself too
    return fewest, most, hit.end(), None


def dated_before(note: Note, start: int, end: int) -> tuple[float, float] | None:
    """How long before the request [start, end) dates something, as (fewest, most) days ago: "two months
    ago", "last month"; two different dates in the stretch date nothing."""
    rest = note.clean[start:end]
    found: set[tuple[float, float]] = set()
    for a in re.finditer(rf"(?<![\w-])(?P<n>{note.number_re})[\s-]+(?P<t>{note.time_re})\s+ago(?![\w-])", rest, re.I):
        days = note.days_of(a.group("n"), a.group("t"))
        if days is not None:
            found.add((days, days))
    ago_words = note.tables.ago_words
    if ago_words:
        alt = "|".join(r"\s+".join(map(re.escape, w.split())) for w in sorted(ago_words, key=len, reverse=True))
        for a in re.finditer(rf"(?<![\w-])(?:{alt})(?![\w-])", rest, re.I):
            found.add(ago_words[normalise(a.group())])
    return found.pop() if len(found) == 1 else None


def duration_in(note: Note, start: int, end: int, *, onset: bool = False) -> tuple[float, int, int, float] | None:
    """The first length of time in [start, end): "x 6 mo", "for the past 10 days", "since 05/2024" (to the
    request's date). (most days, where it starts, where it ends, fewest days): a date given only by its
    month ("since 05/2024") leaves the length between the month's last day and its first. `onset`: a
    condition's, which its start also dates ("onset 2 weeks ago", "began on 2023-12-01")."""
    nt = notation(note)
    text = note.clean
    best: tuple[float, int, int, float] | None = None
    for m in nt.duration_re.finditer(text, start, end):
        unit_text = {"y": "years", "m": "months", "w": "weeks", "d": "days"}.get(m.group("t").lower(), m.group("t"))
        if re.match(r"\s*ago\b", text[m.end():]):
            continue
        days = note.days_of(m.group("n"), unit_text)
        if days is not None:
            best = (days, m.start(), m.end(), days)
            break
    if onset:
        for m in nt.began_ago_re.finditer(text, start, end):
            days = note.days_of(m.group("n"), m.group("t"))
            if days is not None and (best is None or m.start() < best[1]):
                best = (days, m.start(), m.end(), days)
            break
    if note.as_of is not None:
        dated = [*nt.since_re.finditer(text, start, end), *(nt.began_on_re.finditer(text, start, end) if onset else ())]
        for m in sorted(dated, key=lambda found: found.start()):
            when = parse_date(note, m.group("d"))
            if when is not None and when <= note.as_of and (best is None or m.start() < best[1]):
                most = float((note.as_of - when).days)
                fewest = most
                if not re.search(r"\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}|\d{4}-\d{1,2}-\d{1,2}", m.group("d")):
                    last = (date(when.year + when.month // 12, when.month % 12 + 1, 1) - timedelta(days=1))
                    fewest = float(max(0, (note.as_of - min(last, note.as_of)).days))
                best = (most, m.start(), m.end(), fewest)
                break
    return best


# --- measurements -----------------------------------------------------------------------------------


@cache
def _units() -> Any:
    import pint

    return pint.UnitRegistry()


def _to(value: float, unit: str, target: str) -> float | None:
    """A physical value in another unit (pint); None when the units do not convert."""
    try:
        ureg = _units()
        spelled = {"'": "foot", '"': "inch", "lbs": "pound", "lb": "pound", "in": "inch"}.get(unit.lower(), unit.lower())
        return float(ureg.Quantity(value, spelled).to(target).magnitude)
    except Exception:  # noqa: BLE001 - pint raises many kinds for units it does not know
        return None


def body_measures(note: Note) -> dict[str, tuple[float, int, int, float | None, str]]:
    """Height (m) and weight (kg) when stated with a label and a physical unit: (converted, start, end,
    the value as written and its unit when written in one unit)."""
    nt = notation(note)
    text = note.clean
    out: dict[str, tuple[float, int, int, float | None, str]] = {}
    target = {"height": "meter", "weight": "kilogram"}
    for name, (label_re, units) in nt.body.items():
        unit_alt = _alt(units)
        for m in label_re.finditer(text):
            rest = text[m.end():m.end() + 30]
            first = re.match(rf"(?P<v>\d+(?:\.\d+)?)\s*(?P<u>{unit_alt})(?![a-z])(?:\s*(?P<v2>\d+(?:\.\d+)?)\s*(?P<u2>{unit_alt})(?![a-z]))?",
                             rest, re.I)
            if not first:
                continue
            value = _to(float(first.group("v")), first.group("u"), target[name])
            written: float | None = float(first.group("v"))
            if value is not None and first.group("v2"):
                extra = _to(float(first.group("v2")), first.group("u2"), target[name])
                value = value + extra if extra is not None else None
                written = None
            if value is not None and name not in out:
                out[name] = (value, m.start(), m.end() + first.end(), written, first.group("u").lower())
    return out


def bmi_fact(note: Note) -> MeasureFact | None:
    """BMI from a stated height and weight (kg / m^2), rounded to one decimal: derived, never guessed."""
    found = body_measures(note)
    if "height" not in found or "weight" not in found:
        return None
    height, h_start, h_end, _, _ = found["height"]
    weight, w_start, w_end, _, _ = found["weight"]
    if not (0.5 < height < 2.5 and 20 < weight < 400):
        return None
    start, end = min(h_start, w_start), max(h_end, w_end)
    bmi = round(weight / (height * height), 1)
    return MeasureFact("body mass index", "present", note.span(start, end), bmi, "==", "kg/m2", derived=True)


def dose_after(note: Note, start: int, end: int) -> tuple[str, int] | None:
    """A dose written right after a drug ("metformin 1000 mg", "Lantus 28 units"): the text and its end."""
    nt = notation(note)
    words = note.clean[start:end].split()
    limit = start + len(" ".join(words[:nt.dose_reach])) + 1
    m = nt.dose_re.search(note.clean, start, min(end, limit))
    if m is None or "-" in m.group("v"):
        return None
    between = note.clean[start:m.start()]
    if re.search(r"[;,(]", between):
        return None
    return note.clean[m.start():m.end()], m.end()


def number_text_is_value(raw: str) -> bool:
    return bool(NUMBER_TOKEN.fullmatch(normalise(raw)))
