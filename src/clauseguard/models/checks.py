"""The mechanical checks every model output passes before anything uses it; a failure discards it.

Criteria: a valid criteria tree whose every span quotes the clause verbatim. Facts: each for a
criterion that was offered, quoting the narrative the model saw verbatim (a number it states must be
written in its span). Phrasing: every sentence cites only clause ids it was given whose citations
passed every check of the cold verifier, and says neither the opposite outcome nor an approval.
Support verdicts: only for the citations given. These checks catch malformed and invented output;
they cannot catch a plausible misreading, which is why anything a model read sends the answer to a
person (the gate), and nothing here decides an outcome.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from clauseguard.corpus.criteria import (
    Age,
    Atom,
    Condition,
    Criteria,
    CriteriaError,
    Documentation,
    Duration,
    Measure,
    Service,
    Span,
    Treatment,
    all_atoms,
    criteria_from_json,
)
from clauseguard.models.prompts import NarrativeView
from clauseguard.reading.facts import (
    AgeFact,
    ConditionFact,
    DocumentationFact,
    Fact,
    MeasureFact,
    TherapyFact,
)
from clauseguard.responses import Citation

MODEL_SOURCE: Final = "model"
# The atom kinds a model may supply a fact for; services, counts and designations come from codes
# and the corpus alone.
FACT_KINDS: Final = (Condition, Measure, Duration, Treatment, Age, Documentation)
_NUMERIC: Final = (Measure, Duration, Age)
_DAYS: Final[dict[str, float]] = {"day": 1.0, "week": 7.0, "month": 30.4375, "year": 365.25}
_NUMBER_WORDS: Final[dict[str, float]] = {w: float(i) for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen twenty".split())} | {"once": 1.0, "twice": 2.0, "thrice": 3.0}
MAX_SENTENCES: Final = 12
MAX_SENTENCE_CHARS: Final = 600
_CITED: Final = re.compile(r"\[([A-Za-z0-9][A-Za-z0-9._:-]*)\]")
_COVERAGE_CLAIM: Final = re.compile(r"\b(?:is|are|be|remains?|stays?)\s+(not\s+)?covered\b", re.IGNORECASE)
_APPROVAL: Final = re.compile(r"\bapprov\w*|\bdenied\b|\bdeny\b", re.IGNORECASE)


class Rejected(Exception):
    """A model output that failed a check; the message says which, without repeating the output."""


def json_object(text: str) -> dict[str, Any]:
    """The answer as a JSON object (a fenced ```json block is unwrapped), else Rejected."""
    body = text.strip()
    fenced = re.fullmatch(r"```(?:json)?\s*(.*?)\s*```", body, re.DOTALL)
    if fenced:
        body = fenced.group(1)
    try:
        data = json.loads(body)
    except json.JSONDecodeError as exc:
        raise Rejected(f"not JSON ({exc.msg} at character {exc.pos})") from None
    if not isinstance(data, dict):
        raise Rejected(f"a JSON {type(data).__name__}, not an object")
    return data


# --- criteria ----------------------------------------------------------------------------------


def accept_criteria(text: str, clause_text: str) -> Criteria:
    """A criteria tree read by a model, every span verbatim in `clause_text`; else Rejected."""
    data = json_object(text)
    try:
        criteria = criteria_from_json(data, clause_text)
    except CriteriaError as exc:
        raise Rejected(f"not a valid criteria tree quoting the clause: {exc}") from None
    if criteria.empty:
        raise Rejected("the reading states no rule, designation or amendment")
    for atom in all_atoms(criteria):
        if isinstance(atom, Service):
            for code in atom.codes:
                if code not in clause_text:
                    raise Rejected(f"code {code} is not written in the clause")
    return criteria


# --- facts -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class OfferedCriterion:
    """A criterion the reader left unknown, offered to the fact extractor."""

    clause_id: str
    atom: Atom

    def payload(self) -> dict[str, Any]:
        return {"criterion": self.key, "kind": self.atom.kind, "label": self.atom.label,
                "clause_span": self.atom.span.text, "needs_value": isinstance(self.atom, _NUMERIC)}

    @property
    def key(self) -> str:
        return f"{self.clause_id}#{self.atom.id}"


@dataclass(frozen=True)
class AcceptedFact:
    """A fact a model read, checked and placed: the typed fact the evaluator will see."""

    criterion: OfferedCriterion
    fact: Fact
    span: Span


def _numbers(text: str) -> list[float]:
    found = [float(n) for n in re.findall(r"\d+(?:\.\d+)?", text)]
    found += [_NUMBER_WORDS[w] for w in re.findall(r"[a-z]+", text.lower()) if w in _NUMBER_WORDS]
    return found


def _typed_fact(atom: Atom, status: str, value: float | None, span: Span) -> Fact:
    present = status == "present"
    if isinstance(atom, Condition):
        return ConditionFact(atom.concept, status, MODEL_SOURCE, span,  # type: ignore[arg-type]
                             certainty=atom.certainty, severity=atom.severity, qualifiers=atom.qualifiers,
                             documented=atom.documented, history=atom.history, note="read by a model")
    if isinstance(atom, Measure):
        return MeasureFact(atom.quantity, status, span, value if present else None,  # type: ignore[arg-type]
                           unit=atom.unit, per=atom.per, source=MODEL_SOURCE)
    if isinstance(atom, Duration):
        days = value * _DAYS[atom.unit] if present and value is not None else None
        return TherapyFact(atom.therapy, status, span, duration_days=days,  # type: ignore[arg-type]
                           outcome=atom.outcome, source=MODEL_SOURCE)
    if isinstance(atom, Treatment):
        return TherapyFact(atom.therapy, status, span, statuses=atom.statuses, source=MODEL_SOURCE)  # type: ignore[arg-type]
    if isinstance(atom, Age):
        assert value is not None
        return AgeFact(value, span, of=atom.of, source=MODEL_SOURCE)
    if isinstance(atom, Documentation):
        return DocumentationFact(atom.item, status, span, about=atom.about, source=MODEL_SOURCE)  # type: ignore[arg-type]
    raise Rejected(f"a {atom.kind} criterion takes no fact from a model")  # pragma: no cover - never offered


def accept_facts(
    text: str, offered: Sequence[OfferedCriterion], view: NarrativeView, fact_text: str
) -> tuple[list[AcceptedFact], list[tuple[str, str]]]:
    """The facts that pass, and (subject, why) for each that does not; Rejected when the answer as a
    whole is unusable. A span is placed in `fact_text` (the reader's offsets)."""
    data = json_object(text)
    items = data.get("facts")
    if not isinstance(items, list):
        raise Rejected("no `facts` list")
    by_key = {o.key: o for o in offered}
    accepted: list[AcceptedFact] = []
    rejected: list[tuple[str, str]] = []
    seen: set[str] = set()
    for i, item in enumerate(items):
        subject = f"facts[{i}]"
        try:
            if not isinstance(item, dict):
                raise Rejected("not an object")
            key = item.get("criterion")
            subject = str(key) if isinstance(key, str) else subject
            if key not in by_key:
                raise Rejected("names a criterion that was not offered")
            if key in seen:
                raise Rejected("a second fact for the same criterion")
            status = item.get("status")
            if status not in ("present", "absent"):
                raise Rejected("status is neither 'present' nor 'absent'")
            quoted = item.get("span")
            if not isinstance(quoted, str) or not quoted.strip():
                raise Rejected("no span quoting the narrative")
            placed = view.locate(quoted)
            if placed is None:
                raise Rejected("span is not verbatim in the narrative (or quotes a redacted part)")
            criterion = by_key[key]
            value = item.get("value")
            if isinstance(criterion.atom, _NUMERIC) and status == "present":
                if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                    raise Rejected("a number is needed and none is given")
                if not any(abs(n - float(value)) < 1e-9 for n in _numbers(quoted)):
                    raise Rejected("the value is not written in its span")
            if isinstance(criterion.atom, Age) and status != "present":
                raise Rejected("an age is stated or not at all")
            span = Span(placed[0], placed[1], fact_text[placed[0]:placed[1]])
            number = float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None
            accepted.append(AcceptedFact(criterion, _typed_fact(criterion.atom, status, number, span), span))
            seen.add(key)
        except Rejected as exc:
            rejected.append((subject, str(exc)))
    return accepted, rejected


# --- phrasing ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Sentence:
    text: str
    cites: tuple[str, ...]

    def rendered(self) -> str:
        """The sentence with a `[clause id]` for every citation its text does not already show."""
        missing = [c for c in self.cites if f"[{c}]" not in self.text]
        body = self.text.strip()
        end = body[-1] if body[-1] in ".!?" else "."
        body = body[:-1].rstrip() if body[-1] in ".!?" else body
        return body + "".join(f" [{c}]" for c in missing) + end


def accept_phrasing(text: str, citations: Sequence[Citation], outcome: str) -> list[Sentence]:
    """Sentences that cite only given, fully verified clauses and keep the outcome; else Rejected."""
    verified = {c.clause_id for c in citations if c.checks is not None and not c.checks.failed()}
    given = {c.clause_id for c in citations}
    data = json_object(text)
    items = data.get("sentences")
    if not isinstance(items, list) or not items:
        raise Rejected("no `sentences`")
    if len(items) > MAX_SENTENCES:
        raise Rejected(f"more than {MAX_SENTENCES} sentences")
    out: list[Sentence] = []
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            raise Rejected(f"sentence {i + 1} is not an object")
        body, cites = item.get("text"), item.get("cites")
        if not isinstance(body, str) or not body.strip() or len(body) > MAX_SENTENCE_CHARS:
            raise Rejected(f"sentence {i + 1} has no text or too much")
        if not isinstance(cites, list) or not cites or not all(isinstance(c, str) for c in cites):
            raise Rejected(f"sentence {i + 1} carries no citation")
        named = set(cites) | set(_CITED.findall(body))
        foreign = sorted(named - given)
        if foreign:
            raise Rejected(f"sentence {i + 1} cites {', '.join(foreign)}, which it was not given")
        unverified = sorted(named - verified)
        if unverified:
            raise Rejected(f"sentence {i + 1} cites {', '.join(unverified)}, whose citation did not pass the verifier")
        for claim in _COVERAGE_CLAIM.finditer(body):
            negative = claim.group(1) is not None
            if (outcome == "COVERED" and negative) or (outcome == "NOT_COVERED" and not negative):
                raise Rejected(f"sentence {i + 1} states the opposite of the outcome")
        if _APPROVAL.search(body):
            raise Rejected(f"sentence {i + 1} approves or denies; only the gate decides")
        out.append(Sentence(body, tuple(dict.fromkeys(cites))))
    return out


# --- support verdicts --------------------------------------------------------------------------


@dataclass(frozen=True)
class Verdict:
    clause_id: str
    supports: bool
    reason: str


def accept_verdicts(text: str, given: Sequence[str]) -> tuple[list[Verdict], list[tuple[str, str]]]:
    """Verdicts on the given citations (first per clause), and (subject, why) for each rejected one."""
    data = json_object(text)
    items = data.get("verdicts")
    if not isinstance(items, list):
        raise Rejected("no `verdicts` list")
    out: list[Verdict] = []
    rejected: list[tuple[str, str]] = []
    seen: set[str] = set()
    for i, item in enumerate(items):
        cid = item.get("clause_id") if isinstance(item, dict) else None
        subject = cid if isinstance(cid, str) else f"verdicts[{i}]"
        if not isinstance(item, dict) or not isinstance(cid, str):
            rejected.append((subject, "not an object with a clause_id"))
        elif cid not in given:
            rejected.append((subject, "a verdict on a clause it was not given"))
        elif cid in seen:
            rejected.append((subject, "a second verdict on the same clause"))
        elif not isinstance(item.get("supports"), bool):
            rejected.append((subject, "`supports` is not true or false"))
        else:
            seen.add(cid)
            reason = item.get("reason")
            text_reason = " ".join(reason.split())[:200] if isinstance(reason, str) else ""
            out.append(Verdict(cid, item["supports"], text_reason))
    return out, rejected
