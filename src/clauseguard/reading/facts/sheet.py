"""The facts one request states, each anchored to its span: the classes the evaluator consumes.

It owns the shape of a fact and of the sheet that holds them in a stable order; it never reads text.
`status` is what evaluation needs (present / absent / unknown); `assertion` is how the narrative put it
(affirmed, negated, possible, planned, family, historical), kept for traces and the phrasebook judge.
What the request says it lacks is no fact at all (the design: unstated) and sits under `gaps`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final, Literal

from clauseguard.corpus.criteria import Period, Span, to_json
from clauseguard.reading.facts.note import Flag

Status = Literal["present", "absent", "unknown"]
Assertion = Literal["affirmed", "negated", "possible", "planned", "family", "historical"]
FactCertainty = Literal["suspected", "high_probability", "stated", "confirmed"]
NARRATIVE: Final = "narrative"


@dataclass(frozen=True)
class Rate:
    """How often: `count` times per `per` ("BID" is 2 per day, "q2wk" 1 per 2 weeks)."""

    count: float
    per: Period


@dataclass(frozen=True)
class ConditionFact:
    """A condition, finding or state the request presents (or denies, or hedges)."""

    concept: str
    status: Status
    source: str  # "narrative" or "code:E10.9"
    span: Span | None = None
    certainty: FactCertainty = "stated"
    severity: tuple[str, ...] = ()
    qualifiers: tuple[str, ...] = ()
    documented: bool = False
    history: bool = False
    note: str = ""
    within_days: float | None = None  # a planned or expected condition: due within this many days
    ago_days: tuple[float, float] | None = None  # when a stated finding or document was made: (fewest, most) days ago
    assertion: Assertion = "affirmed"
    duration_days: float | None = None  # how long it has lasted ("LBP x 8 weeks", "since 03/01/2024")
    duration_span: Span | None = None
    resolved: bool = False  # an episode stated to be over ("resolved", "in remission")


@dataclass(frozen=True)
class TherapyFact:
    """A therapy the member had (or did not): statuses, how long, how it went, dose and frequency."""

    therapy: str
    status: Status
    span: Span | None
    known: bool = True  # False: the lexicon does not know this therapy, so its class is unknown
    statuses: tuple[str, ...] = ("treated",)
    denied: tuple[str, ...] = ()  # statuses the narrative explicitly denies ("no documented intolerance")
    duration_days: float | None = None
    outcome: str | None = None
    source: str = NARRATIVE
    assertion: Assertion = "affirmed"
    duration_min_days: float | None = None  # a month-only date ("since 05/2024"): the course is at least this long
    course: str | None = None  # current | completed | stopped, when the narrative says
    dose: str | None = None
    rate: Rate | None = None
    drug: str | None = None  # the drug dictionary's generic name, when it named the drug
    brand: str | None = None
    response: str | None = None  # "failed" or "inadequate response", when the narrative says which in words


@dataclass(frozen=True)
class MeasureFact:
    """A stated value: "A1c 8.6 percent", "two fingerstick tests per day"."""

    quantity: str
    status: Status
    span: Span | None
    value: float | None = None
    comparator: str = "=="
    unit: str = ""
    per: Period | None = None
    source: str = NARRATIVE
    assertion: Assertion = "affirmed"
    derived: bool = False  # computed from other stated values (BMI from height and weight)
    conflicting: bool = False  # the note states another value for this measure: decides only what all give


@dataclass(frozen=True)
class AgeFact:
    """The member's age, or the age at onset of a condition (years; an interval when a word gives it)."""

    value: float
    span: Span | None
    of: str = "member"
    comparator: str = "=="
    source: str = NARRATIVE
    conflicting: bool = False  # the note states another age of the same person or onset (repeats.py): unknown


@dataclass(frozen=True)
class TenureFact:
    """How long the member has been insured under the contract ("joined the scheme ten months ago")."""

    days: float
    span: Span | None
    comparator: str = "=="
    source: str = NARRATIVE


@dataclass(frozen=True)
class ServiceFact:
    """A service: the requested one (from a procedure code) or one the member already had."""

    concepts: tuple[str, ...]  # empty: the lexicon does not know the code or the word stands for the request
    span: Span | None
    requested: bool = False
    code: str | None = None
    status: Status = "present"
    ago_days: float | None = None  # when a prior one happened: the most days before the request
    ago_least: float | None = None  # the fewest days, when the note dates it only by its month ("in March 2024")
    on_date: str | None = None  # "day", "month" or "year": the note dates it by the calendar; "age": "5 years old"
    latest: bool = False  # the note says it was the latest one ("last seen in March", "most recent visit")
    within: Period | None = None  # the window a stated count of prior ones covers
    prior_count: float | None = None  # prior ones in `within` (0 for "no ... in the past 12 months")
    named_prior: bool = False  # a history cue names this one as had before ("prior X", "s/p X", "repeat X")
    source: str = NARRATIVE
    assertion: Assertion = "affirmed"


@dataclass(frozen=True)
class QuantityFact:
    """How much of the requested service: "37 sensor units for a 31-day period"."""

    item: str
    value: float
    per: Period
    span: Span | None
    source: str = NARRATIVE
    assertion: Assertion = "affirmed"
    conflicting: bool = False  # the note states another amount of this item over this period (repeats.py)


@dataclass(frozen=True)
class DocumentationFact:
    """Evidence the request states (or states is absent): "radiculopathy corroborated by MRI"."""

    item: str
    status: Status
    span: Span | None
    about: str | None = None
    source: str = NARRATIVE
    assertion: Assertion = "affirmed"


@dataclass(frozen=True)
class RelativeFact:
    """What the narrative states about someone other than the member ("her sister carries a pathogenic
    BRCA2 variant"): never a fact about the member, read only by a criterion about a relative.

    One per condition the statement names (`concept`), and one for the statement as a whole (`concept`
    None) with its words that no known condition accounts for."""

    relatives: tuple[str, ...]  # who, as written ("sister", "family history of")
    status: Status
    span: Span | None
    concept: str | None = None
    certainty: FactCertainty = "stated"
    words: tuple[str, ...] = ()
    source: str = NARRATIVE
    kind: str = "condition"  # what the mention is (condition, therapy, service)


@dataclass(frozen=True)
class PrescriberFact:
    """Who prescribes or orders: a specialty ("rheumatology"), from the request's field or the narrative."""

    specialty: str
    span: Span | None
    source: str = NARRATIVE


@dataclass(frozen=True)
class SexFact:
    """The member's sex as the request states it (the structured `member.sex`)."""

    sex: str
    span: Span | None
    source: str = NARRATIVE


@dataclass(frozen=True)
class PlaceFact:
    """Where the service is given (the structured `place_of_service`: "home", "outpatient hospital")."""

    place: str
    span: Span | None
    source: str = NARRATIVE


@dataclass(frozen=True)
class GapFact:
    """Something the request says it lacks ("frequency not recorded", "no record of DSME"): counted
    exactly as if unstated, so no evaluator reads it; kept for traces and the phrasebook judge."""

    kind: str  # the mention's kind: condition, therapy, service, quantity, documentation
    item: str
    span: Span | None
    source: str = NARRATIVE


Fact = (ConditionFact | TherapyFact | MeasureFact | AgeFact | TenureFact | ServiceFact | QuantityFact
        | DocumentationFact | RelativeFact | PrescriberFact | SexFact | PlaceFact)


@dataclass(frozen=True)
class FactSheet:
    """Everything read from one request, in a stable order, with the lexicon's and the rules' fingerprints."""

    facts: tuple[Fact, ...]
    flags: tuple[Flag, ...]
    lexicon_fingerprint: str
    vocabulary: tuple[str, ...] = ()
    unknown_codes: tuple[str, ...] = ()
    rules_fingerprint: str = ""
    gaps: tuple[GapFact, ...] = ()

    def of(self, kind: type) -> list[Any]:
        return [f for f in self.facts if isinstance(f, kind)]

    def to_json(self) -> dict[str, Any]:
        return {
            "facts": [{"kind": type(f).__name__, **to_json(f)} for f in self.facts],
            "gaps": [to_json(g) for g in self.gaps],
            "flags": [to_json(f) for f in self.flags],
            "lexicon_fingerprint": self.lexicon_fingerprint,
            "rules_fingerprint": self.rules_fingerprint,
            "unknown_codes": list(self.unknown_codes),
        }


def fact_order(fact: Fact | GapFact) -> tuple[int, str, str]:
    span = getattr(fact, "span", None)
    return (span.start if span is not None else -1, type(fact).__name__, repr(fact))


__all__ = ["AgeFact", "Assertion", "ConditionFact", "DocumentationFact", "Fact", "FactCertainty", "FactSheet", "Flag",
           "GapFact", "MeasureFact", "NARRATIVE", "PlaceFact", "PrescriberFact", "QuantityFact", "Rate", "RelativeFact",
           "ServiceFact", "SexFact", "Status", "TenureFact", "TherapyFact", "fact_order"]
