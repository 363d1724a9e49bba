"""The note phrasebook's judge: the fact reader's facts against the facts a blind author expected, counts
only (exact / refused / wrong, per status and fact type), so a holdout half can be scored without
showing its text; registered with the holdout runner by evals/reading_scores.py.

It is compared as evals/briefs/note-phrasebook.md says: an expected fact is matched to a fact the reader
produced of the same type whose span overlaps the quote (a gap, which has no type of its own, to any
type); its status must match exactly, and so must every number, unit, period, severity and
therapy_status the entry gives; names are compared loosely. Wrong: a matched fact with another status
or another value. Refused: no matched fact, or one that leaves a given value unread.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any, Final

import yaml

from clauseguard import packed
from clauseguard.evals.holdout import Part
from clauseguard.reading.facts import (
    AgeFact,
    ConditionFact,
    DocumentationFact,
    FactSheet,
    MeasureFact,
    QuantityFact,
    RelativeFact,
    ServiceFact,
    TherapyFact,
    read_facts,
)
from clauseguard.reading.lexicon import Lexicon, default_lexicon, normalise
from clauseguard.text import stem, words

DAYS: Final = {"day": 1.0, "week": 7.0, "month": 30.4375, "year": 365.25}
VERDICTS: Final = ("exact", "refused", "wrong")


@dataclass(frozen=True)
class Read:
    """One fact as the phrasebook writes facts: type, status, where, and the values the reader gave."""

    type: str
    status: str
    start: int
    end: int
    names: tuple[str, ...]
    values: Mapping[str, Any] = field(default_factory=dict)


@dataclass
class Verdict:
    entry: str
    fact: Mapping[str, Any]
    verdict: str
    why: str = ""


# --- the reader's facts in the phrasebook's terms ---------------------------------------------------


def _condition_status(f: ConditionFact) -> str | None:
    if f.assertion == "planned":
        return "planned"
    if f.status == "absent":
        return "negated"
    if f.status == "unknown" or f.certainty in ("suspected", "high_probability") or f.assertion == "possible":
        return "possible"
    if f.resolved:
        return "historical"
    if f.history:
        return None  # "history of X" says it happened, not whether it is over: neither status for sure
    return "affirmed"


def _therapy_status(f: TherapyFact) -> str | None:
    if f.assertion == "planned":
        return "planned"
    if f.status == "absent":
        return "negated"
    if f.status == "unknown":
        return "possible" if f.assertion == "possible" else None
    return "affirmed"


def _therapy_course(f: TherapyFact) -> str | None:
    if f.assertion == "planned":
        return "planned"
    if f.status == "absent":
        return "never_tried"
    if "contraindicated" in f.statuses:
        return "contraindicated"
    if "intolerant" in f.statuses:
        return "intolerant"
    if "failed" in f.statuses:
        return {"failed": "failed", "inadequate response": "inadequate_response"}.get(f.response or "")
    if f.course == "completed":
        return "completed"
    if f.course == "current":
        return "current"
    return None


def phrasebook_facts(sheet: FactSheet) -> list[Read]:
    """Every fact of a sheet the phrasebook's scale can state, with its status and values."""
    out: list[Read] = []
    for f in sheet.facts:
        span = getattr(f, "span", None)
        if span is None:
            continue
        if isinstance(f, ConditionFact) and f.source == "narrative":
            status = _condition_status(f)
            if status is not None:
                values: dict[str, Any] = {}
                if f.severity:
                    values["severity"] = " to ".join(dict.fromkeys((f.severity[0], f.severity[-1])))
                out.append(Read("condition", status, span.start, span.end, (f.concept, span.text), values))
            if f.duration_days is not None and f.duration_span is not None and status == "affirmed":
                out.append(Read("duration", "affirmed", f.duration_span.start, f.duration_span.end,
                                (f.concept, span.text), {"days": f.duration_days}))
        elif isinstance(f, RelativeFact) and f.concept is not None and f.status == "present":
            out.append(Read(f.kind if f.kind in ("condition", "therapy", "service") else "condition", "family",
                            span.start, span.end, (f.concept,)))
        elif isinstance(f, TherapyFact) and f.source == "narrative":
            status = _therapy_status(f)
            if status is None:
                continue
            values = {}
            course = _therapy_course(f)
            if course is not None:
                values["therapy_status"] = course
            if f.duration_days is not None and status == "affirmed":
                values["days"] = f.duration_days
            if f.dose:
                values["dose"] = f.dose
            if f.rate is not None:
                values["frequency"] = (f.rate.count, f.rate.per.length, f.rate.per.unit)
            names = tuple(n for n in (f.therapy, f.drug, f.brand, span.text) if n)
            out.append(Read("therapy", status, span.start, span.end, names, values))
        elif isinstance(f, MeasureFact) and f.source == "narrative" and f.status != "unknown" and not f.derived \
                and not f.conflicting:
            status = "negated" if f.status == "absent" else "affirmed" if f.assertion == "affirmed" else None
            if status is None:
                continue
            kind = "frequency" if f.per is not None else "measure"
            values = {} if f.value is None else {"value": f.value}
            if f.per is not None and f.value is not None:
                values["per"] = (f.per.length, f.per.unit)
            if f.unit:
                values["unit"] = f.unit
            if f.comparator != "==":
                values["comparator"] = f.comparator
            out.append(Read(kind, status, span.start, span.end, (f.quantity, span.text), values))
        elif isinstance(f, QuantityFact) and f.source == "narrative" and not f.conflicting:
            out.append(Read("quantity", f.assertion, span.start, span.end, (f.item, span.text),
                            {"value": f.value, "per": (f.per.length, f.per.unit)}))
        elif isinstance(f, AgeFact) and f.source == "narrative" and f.comparator == "==" and not f.conflicting:
            out.append(Read("age", "affirmed", span.start, span.end, ("age",), {"value": f.value, "of": f.of}))
        elif isinstance(f, ServiceFact) and not f.requested and f.source == "narrative":
            status = {"present": "affirmed", "absent": "negated"}.get(f.status)
            if status is not None:
                out.append(Read("service", status, span.start, span.end, (*f.concepts, span.text)))
        elif isinstance(f, DocumentationFact) and f.about is None and f.source == "narrative":
            status = {"planned": "planned", "possible": "possible"}.get(f.assertion) or (
                "negated" if f.status == "absent" else None)
            if status is not None:
                out.append(Read("service", status, span.start, span.end, (f.item, span.text)))
    for g in sheet.gaps:
        if g.span is not None:
            out.append(Read(f"gap:{g.kind}", "not_documented", g.span.start, g.span.end, (g.item, g.span.text)))
    return out


# The expected types a gap of each kind may stand for (a gap is documentation of the missing thing).
_GAP_TYPES: Final = {"condition": ("condition", "documentation"), "therapy": ("therapy", "documentation"),
                     "service": ("service", "documentation"),
                     "quantity": ("measure", "frequency", "quantity", "documentation")}


def _type_meets(read: str, expected: str) -> bool:
    if read.startswith("gap:"):
        return expected in _GAP_TYPES.get(read[4:], ())
    # Documentation of a thing is read as the thing itself: a service done, or a documented state the
    # lexicon keeps among its concepts (device training, prior approval, a prescription).
    return read == expected or (expected == "documentation" and read in ("service", "condition"))


# --- comparing ---------------------------------------------------------------------------------------


def _stems(text: str) -> set[str]:
    """Content stems of a name: digits and two-letter words say nothing about what a fact is of."""
    return {stem(w) for w in words(text) if len(w) > 2 and not any(c.isdigit() for c in w)}


def _names_meet(expected: str, found: Sequence[str], lexicon: Lexicon) -> bool:
    """Loosely the same thing: a shared word stem, or one a kind of the other in the lexicon."""
    want = _stems(expected)
    if any(want & _stems(n) for n in found):
        return True
    wanted = lexicon.concept_named(normalise(expected)) or lexicon.quantity_named(normalise(expected))
    for name in found:
        have = lexicon.concept_named(normalise(name)) or lexicon.quantity_named(normalise(name)) or normalise(name)
        if wanted is not None and (wanted == have or lexicon.is_a(have, wanted) or lexicon.is_a(wanted, have)):
            return True
    return False


def _days(value: Any, unit: Any) -> float | None:
    length = DAYS.get(str(unit).rstrip("s"))
    return float(value) * length if length is not None and isinstance(value, int | float) else None


def _unit(lexicon: Lexicon, text: str) -> str:
    key = normalise(text)
    return lexicon.units().get(key, key.replace(" ", ""))


def _compare(expected: Mapping[str, Any], read: Read, lexicon: Lexicon) -> tuple[str, str]:
    """exact / refused (a given value not read) / wrong (a given value read otherwise)."""
    v = read.values
    missing: list[str] = []
    checks: list[tuple[str, Any, Any]] = []
    kind = expected["type"]
    if kind in ("measure", "frequency", "quantity", "age") and "value" in expected:
        checks.append(("value", float(expected["value"]), v.get("value")))
    if kind == "measure" and expected.get("unit"):
        checks.append(("unit", _unit(lexicon, str(expected["unit"])), _unit(lexicon, v["unit"]) if "unit" in v else None))
    if expected.get("comparator") and expected["comparator"] != "==":
        checks.append(("comparator", expected["comparator"], v.get("comparator", "==")))
    if kind == "frequency":
        checks.append(("per", (1.0, str(expected["per"])), v.get("per")))
    if kind == "quantity" and isinstance(expected.get("per"), Mapping):
        per = expected["per"]
        checks.append(("per", _days(per["length"], per["unit"]), _days(*v["per"]) if "per" in v else None))
    if kind == "age":
        checks.append(("of", str(expected.get("of", "member")), v.get("of")))
    if kind == "condition" and expected.get("severity"):
        checks.append(("severity", normalise(str(expected["severity"])), v.get("severity")))
    if kind == "duration":
        checks.append(("duration", _days(expected["value"], expected["unit"]), v.get("days")))
    if kind == "therapy":
        if expected.get("therapy_status"):
            checks.append(("therapy_status", expected["therapy_status"], v.get("therapy_status")))
        if isinstance(expected.get("duration"), Mapping):
            d = expected["duration"]
            checks.append(("duration", _days(d["value"], d["unit"]), v.get("days")))
        if expected.get("dose"):
            checks.append(("dose", normalise(str(expected["dose"])).replace(" ", ""),
                           normalise(v["dose"]).replace(" ", "") if "dose" in v else None))
        if isinstance(expected.get("frequency"), Mapping):
            fr = expected["frequency"]
            got = v.get("frequency")
            checks.append(("frequency", float(fr["value"]) / DAYS[str(fr["per"])],
                           got[0] / (got[1] * DAYS[got[2]]) if got else None))
    for name, want, got in checks:
        if got is None:
            missing.append(name)
        elif not _same(name, want, got, expected):
            return "wrong", f"{name}: expected {want!r}, read {got!r}"
    return ("refused", "not read: " + ", ".join(missing)) if missing else ("exact", "")


def _same(name: str, want: Any, got: Any, expected: Mapping[str, Any]) -> bool:
    if name == "duration":
        unit = expected.get("unit") or expected.get("duration", {}).get("unit", "day")
        return bool(abs(float(want) - float(got)) <= DAYS.get(str(unit), 1.0) / 2 + 1e-6)
    if name == "frequency":  # one rate written per day, week or month: 2 a month is about 0.5 a week
        return math.isclose(float(want), float(got), rel_tol=0.1)
    if name == "dose":  # "40 mg" read from "40 mg/0.8 mL": the same dose, written longer
        return bool(str(want).startswith(str(got)) or str(got).startswith(str(want)))
    if name in ("value", "per") and isinstance(want, float) and isinstance(got, float | int):
        return math.isclose(want, float(got), rel_tol=1e-6, abs_tol=1e-6)
    if name == "per" and isinstance(want, tuple) and isinstance(got, tuple):
        return bool(want[1] == got[1] and math.isclose(want[0], float(got[0])))
    return bool(want == got)


def _named(fact: Mapping[str, Any], read: Read, names: list[str]) -> list[str]:
    """The names a read must meet: documentation read as a concept meets its item, never a word of the quote
    ("teaching with the diabetes educator" documents no diabetes)."""
    return names[:-1] if fact["type"] == "documentation" and read.type == "condition" else names


def judge_entry(entry: Mapping[str, Any], lexicon: Lexicon | None = None) -> list[Verdict]:
    lex = lexicon or default_lexicon()
    text = str(entry["text"])
    as_of = entry.get("as_of")
    day = date.fromisoformat(str(as_of)) if as_of else None
    reads = phrasebook_facts(read_facts(text, lexicon=lex, as_of=day))
    out: list[Verdict] = []
    for fact in entry.get("facts", ()):
        quote = str(fact["quote"])
        start = text.find(quote)
        end = start + len(quote)
        names = [str(fact[k]) for k in ("concept", "therapy", "item", "quantity") if fact.get(k)] + [quote]
        found = [r for r in reads if r.start < end and start < r.end and _type_meets(r.type, str(fact["type"]))
                 and (fact["type"] == "age" or any(_names_meet(n, r.names, lex) for n in _named(fact, r, names)))]
        if not found:
            out.append(Verdict(str(entry["id"]), fact, "refused", "no fact read"))
            continue
        if any(r.status != fact["status"] for r in found):
            other = next(r for r in found if r.status != fact["status"])
            out.append(Verdict(str(entry["id"]), fact, "wrong", f"status: expected {fact['status']}, read {other.status}"))
            continue
        verdicts = [_compare(fact, r, lex) for r in found]
        best = next((v for v in verdicts if v[0] == "exact"), None) or next(
            (v for v in verdicts if v[0] == "wrong"), None) or verdicts[0]
        out.append(Verdict(str(entry["id"]), fact, best[0], best[1]))
    return out


def load_phrasebook(path: Path) -> list[dict[str, Any]]:
    data = yaml.safe_load(packed.read_text(path))
    entries: list[dict[str, Any]] = data["sentences"]
    return entries


def judge_phrasebook(entries: Iterable[Mapping[str, Any]], lexicon: Lexicon | None = None) -> list[Verdict]:
    lex = lexicon or default_lexicon()
    return [v for entry in entries for v in judge_entry(entry, lex)]


def counts(verdicts: Sequence[Verdict]) -> dict[str, Any]:
    """Counts only: verdicts overall and per expected status and fact type (no text, no ids)."""
    total = Counter(v.verdict for v in verdicts)
    by_status: dict[str, Counter[str]] = {}
    by_type: dict[str, Counter[str]] = {}
    for v in verdicts:
        by_status.setdefault(str(v.fact.get("status")), Counter())[v.verdict] += 1
        by_type.setdefault(str(v.fact.get("type")), Counter())[v.verdict] += 1
    return {"facts": len(verdicts), **{k: total.get(k, 0) for k in VERDICTS},
            "by_status": {k: {x: c.get(x, 0) for x in VERDICTS} for k, c in sorted(by_status.items())},
            "by_type": {k: {x: c.get(x, 0) for x in VERDICTS} for k, c in sorted(by_type.items())}}


def score_note_phrasebook(root: Path, part: Part) -> dict[str, Any] | None:
    if not part.phrasebook:
        return None
    path = root / part.phrasebook
    entries = load_phrasebook(path)
    if not entries or "facts" not in entries[0]:
        return None  # a policy phrasebook: the compiler's judge, not this one
    return counts(judge_phrasebook(entries))

