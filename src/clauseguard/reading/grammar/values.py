"""Numbers in policy prose with what they measure: comparator, value, unit, counting period.

"at least six (6) months", "a BMI of 40 kg/m2 or greater", "no more than 50 swabs per quarter",
"1 unit of service per 30 days", "EUR 1,500 per contract year". Words come from
`data/grammar/values.yaml`; numbers written as words go through word2number. Pure: it finds values
in a text and never decides what criterion they belong to.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any, Final

from word2number import w2n

from clauseguard.corpus.criteria import Period
from clauseguard.datafiles import load_yaml
from clauseguard.reading.grammar.phrases import NUMBER, NUMBER_WORDS
from clauseguard.text import fold


@dataclass(frozen=True)
class Value:
    """One number as the text states it, with offsets into the searched text."""

    start: int
    end: int
    value: float
    comparator: str  # ">=", ">", "<=", "<", "=="
    unit: str = ""  # a unit of measure, a currency, or a time unit (day/week/month/year)
    per: Period | None = None  # "every 3 months", "per calendar year"
    explicit: bool = False  # a comparator word was written ("at least"), not assumed
    per_span: tuple[int, int] | None = None  # where the counting window is written


@lru_cache(maxsize=1)
def table() -> dict[str, Any]:
    raw = (resources.files("clauseguard") / "data" / "grammar" / "values.yaml").read_text(encoding="utf-8")
    return load_yaml(raw)


def _alt(words: list[str]) -> str:
    return "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in sorted(words, key=len, reverse=True))


@lru_cache(maxsize=1)
def _patterns() -> dict[str, re.Pattern[str]]:
    t = table()
    before = {c: v["before"] for c, v in t["comparators"].items() if v["before"]}
    after = {c: v["after"] for c, v in t["comparators"].items() if v["after"]}
    units = {u: w for u, w in t["units"].items()}
    currencies = t["currencies"]
    time_units = t["time_units"]
    periods = t["periods"]
    named = {
        "before": "|".join(f"(?P<b{i}>{_alt(w)})" for i, w in enumerate(before.values())),
        "after": "|".join(f"(?P<a{i}>{_alt(w)})" for i, w in enumerate(after.values())),
    }
    def groups(prefix: str, table_: dict[str, list[str]]) -> str:
        return "|".join(f"(?P<{prefix}{i}>{_alt(w)})" for i, w in enumerate(table_.values()))

    unit_alt = groups("u", units)
    cur_alt, cur_alt2 = groups("c", currencies), groups("d", currencies)
    time_alt = groups("t", time_units)
    period_alt, period_alt2 = groups("p", periods), groups("q", periods)
    per_alt = _alt(t["per_words"])
    value = (rf"(?:(?P<before>{named['before']})\s+)?(?:(?P<cur1>{cur_alt})\s*)?(?P<num>{NUMBER})"
             rf"(?:\s*(?P<cur2>{cur_alt2}))?(?:[\s-]*(?:(?P<time>{time_alt})|(?P<unit>{unit_alt})))?"
             rf"(?:\s+(?:of\s+age|old))?(?:\s+(?P<after>{named['after']}))?")
    per = (rf"(?:{per_alt})\s+(?:(?P<pn>{NUMBER})[\s-]*)?(?:(?P<ptime>{time_alt})(?:\s+period)?|(?P<pperiod>{period_alt}))"
           rf"|(?:per|a|an)\s+(?P<pperiod2>{period_alt2})")
    return {
        "value": re.compile(rf"(?<![\w.]){value}(?![\w])", re.IGNORECASE),
        "per": re.compile(rf"\s*(?:(?:[^.;:()]|\([^()]*\)){{0,80}}?\s)?(?P<perexpr>(?:times\s+)?(?:{per}))(?![\w])", re.IGNORECASE),
    }


def number(text: str) -> float | None:
    """A number written in digits ("1,500", "8.0") or words ("six", "twenty-four"), with an optional
    "(6)" repeating it; None when it is not one."""
    t = fold(text).strip().replace("\u2212", "-")
    paren = re.search(r"\((\d+(?:\.\d+)?)\)\s*$", t)
    if paren:
        return float(paren.group(1))
    if re.fullmatch(r"-?\d+(?:,\d{3})*(?:\.\d+)?", t):
        return float(t.replace(",", ""))
    if t in ("single", "once"):
        return 1.0
    if t == "twice":
        return 2.0
    if any(w in NUMBER_WORDS for w in re.split(r"[\s-]+", t)):
        try:
            return float(w2n.word_to_num(t))
        except ValueError:
            return None
    return None


def _group_key(m: re.Match[str], prefix: str, names: list[str]) -> str | None:
    for i, name in enumerate(names):
        if m.group(f"{prefix}{i}"):
            return name
    return None


def values(text: str) -> list[Value]:
    """Every number in `text` with its comparator, unit and period, left to right."""
    t = table()
    pats = _patterns()
    before_names = [c for c, v in t["comparators"].items() if v["before"]]
    after_names = [c for c, v in t["comparators"].items() if v["after"]]
    unit_names = list(t["units"])
    cur_names = list(t["currencies"])
    time_names = list(t["time_units"])
    period_names = list(t["periods"])
    out: list[Value] = []
    folded = fold(text)
    for m in pats["value"].finditer(folded):
        num = number(m.group("num"))
        if num is None:
            continue
        comparator, explicit = "==", False
        if m.group("before"):
            comparator, explicit = _group_key(m, "b", before_names) or "==", True
        if m.group("after"):
            comparator, explicit = _group_key(m, "a", after_names) or comparator, True
        unit = ""
        if m.group("cur1") or m.group("cur2"):
            unit = _group_key(m, "c" if m.group("cur1") else "d", cur_names) or ""
        elif m.group("time"):
            unit = _group_key(m, "t", time_names) or ""
        elif m.group("unit"):
            unit = _group_key(m, "u", unit_names) or ""
        per = None
        end = m.end()
        per_span = None
        pm = pats["per"].match(folded, m.end())
        if pm is not None and pats["value"].search(folded, m.end(), pm.start("perexpr")) is not None:
            pm = None  # "EUR 45 per session and up to EUR 900 per ... contract year": the window is the next number's
        if pm is not None:
            n = number(pm.group("pn")) if pm.group("pn") else 1.0
            if pm.group("ptime"):
                key = _group_key(pm, "t", time_names)
                per = Period(n or 1.0, key) if key else None  # type: ignore[arg-type]
            else:
                key = _group_key(pm, "p" if pm.group("pperiod") else "q", period_names)
                per = Period(1.0, key) if key else None  # type: ignore[arg-type]
            per_span = (pm.start("perexpr"), pm.end()) if per is not None else None
        if any(v.per_span and v.per_span[0] <= m.start() < v.per_span[1] for v in out):
            continue  # the number of a counting window already read ("every 3 months")
        out.append(Value(m.start(), end, num, comparator, unit, per, explicit, per_span))
    return out


def period_of(text: str) -> Period | None:
    """"every 3 months", "per calendar year", "in any 12-month period": the counting window alone."""
    pm = _patterns()["per"].match(" " + fold(text))
    if pm is None:
        return None
    t = table()
    n = number(pm.group("pn")) if pm.group("pn") else 1.0
    if pm.group("ptime"):
        key = _group_key(pm, "t", list(t["time_units"]))
        return Period(n or 1.0, key) if key else None  # type: ignore[arg-type]
    key = _group_key(pm, "p" if pm.group("pperiod") else "q", list(t["periods"]))
    return Period(1.0, key) if key else None  # type: ignore[arg-type]


def constant(text: str) -> dict[str, Any] | None:
    """A word that stands for a comparison ("an adult" -> age >= 18), from the data."""
    low = fold(text)
    for entry in table()["constants"].values():
        for w in entry["words"]:
            if re.search(rf"(?<![\w]){re.escape(w)}(?![\w])", low):
                return {k: v for k, v in entry.items() if k != "words"}
    return None


TIME_UNITS: Final = ("day", "week", "month", "year")
