"""The request's structured fields as stated facts: the member's age (or the age a date of birth gives on
the request's date) and sex, the quantity and period requested, the prescriber's specialty, the place of
service.

It owns counting them beside the narrative's facts: where the narrative states the same thing
otherwise, the narrative's explicit statement governs and the disagreement is flagged. A date of birth
never leaves this module: only the age it gives does.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from clauseguard.corpus.criteria import Period
from clauseguard.reading.facts.note import Flag, Note
from clauseguard.reading.facts.sheet import AgeFact, Fact, PlaceFact, PrescriberFact, QuantityFact, SexFact
from clauseguard.reading.lexicon import normalise
from clauseguard.requests import SEXES, DeterminationRequest, age_on, parse_iso_date, period_of

STRUCTURED = "structured"


@dataclass(frozen=True)
class Structured:
    """The optional prior-authorization fields of one request, already checked by preflight."""

    age: int | None = None
    sex: str | None = None
    quantity: int | None = None
    period: tuple[int, str] | None = None
    prescriber_specialty: str | None = None
    place_of_service: str | None = None

    @classmethod
    def of(cls, request: DeterminationRequest, as_of: date | None) -> Structured | None:
        member = request.member
        age = member.age if member is not None else None
        if member is not None and age is None and member.date_of_birth and as_of is not None:
            try:
                age = age_on(parse_iso_date(member.date_of_birth.strip()), as_of)
            except ValueError:
                age = None
        sex = SEXES.get(member.sex.strip().lower()) if member is not None and member.sex else None
        period = period_of(request.period) if request.period else None
        found = cls(age, sex, request.quantity, period, request.prescriber_specialty, request.place_of_service)
        return found if found != cls() else None


def structured_facts(note: Note, fields: Structured, facts: list[Fact]) -> list[Fact]:
    """The narrative's facts with the structured ones added, each unless the narrative says otherwise."""
    out = list(facts)
    if fields.age is not None:
        stated = [f for f in facts if isinstance(f, AgeFact) and f.of == "member" and f.comparator == "=="]
        if any(f.value != fields.age for f in stated):
            note.flags.append(Flag("discrepancy", f"member.age gives {fields.age}; the narrative states "
                                                  f"{_num(stated[0].value)}, and the narrative governs", stated[0].span))
        elif not stated:
            out.append(AgeFact(float(fields.age), None, "member", source=f"{STRUCTURED}:member"))
    if fields.sex is not None:
        stated_sex = [f for f in facts if isinstance(f, SexFact)]
        if any(f.sex != fields.sex for f in stated_sex):
            note.flags.append(Flag("discrepancy", f"member.sex gives {fields.sex}; the narrative states "
                                                  f"{stated_sex[0].sex}, and the narrative governs", stated_sex[0].span))
        elif not stated_sex:
            out.append(SexFact(fields.sex, None, f"{STRUCTURED}:member"))
    if fields.quantity is not None and fields.period is not None:
        length, unit = fields.period
        per = Period(float(length), unit)  # type: ignore[arg-type]
        stated_q = [f for f in facts if isinstance(f, QuantityFact)]
        if any(f.value != fields.quantity or f.per != per for f in stated_q):
            note.flags.append(Flag("discrepancy", f"quantity {fields.quantity} per {per.label} differs from the "
                                                  "narrative's, and the narrative governs", stated_q[0].span))
        elif not stated_q:
            item = next(iter(sorted(note.tables.generic & {"units", "unit", "items"})), "units")
            out.append(QuantityFact(item, float(fields.quantity), per, None, f"{STRUCTURED}:quantity", "planned"))
    if fields.prescriber_specialty:
        specialty = canonical(note, "specialties", fields.prescriber_specialty)
        out.append(PrescriberFact(specialty, None, f"{STRUCTURED}:prescriber_specialty"))
    if fields.place_of_service:
        out.append(PlaceFact(canonical(note, "places", fields.place_of_service), None, f"{STRUCTURED}:place_of_service"))
    return out


def canonical(note: Note, table: str, written: str) -> str:
    """The canonical name of a specialty or place as the rules list it, else the text as written."""
    key = normalise(written)
    for name, forms in note.rules.section("structured.yaml").get(table, {}).items():
        if key == normalise(str(name)) or key in {normalise(str(f)) for f in forms}:
            return str(name)
    return key


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"
