"""Expansion by construction: a fact-pattern table crossed with every version boundary and every plan.

Labels come from the table (the expected outcome and gate per version, with or without a rider or
FAQ in effect) and from the corpus structure (dates, plans, riders); a date on which no version of
the policy governs is a REFUSE by the design's rule. It must never import the engine, retrieval or
reading packages (a test checks), and its output is the same bytes for the same table and corpus.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from importlib import resources
from pathlib import Path
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from clauseguard.corpus.loader import read_data
from clauseguard.corpus.model import Corpus, Document, Plan, Version
from clauseguard.errors import ClauseguardError, CorpusError
from clauseguard.evals.cases import parse_case_file
from clauseguard.evals.validate import validate_cases
from clauseguard.versions import version_in_effect

FORMAT: Final = "clauseguard.patterns/v1"
GENERATED_BY: Final = "clauseguard expand"
DEMO_PATTERNS: Final = "demo.yaml"


class ExpansionError(ClauseguardError):
    """A pattern table that cannot be expanded over this corpus; names the pattern and what is wrong."""


# --- the table ---------------------------------------------------------------------------------


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class Expectation(_Record):
    """The label when the policy's `version` governs and the listed documents are (`with`) or are not
    (`without`) in effect for the plan on the date; the first expectation that matches wins."""

    version: str
    with_: tuple[str, ...] = Field(default=(), alias="with")
    without: tuple[str, ...] = ()
    outcome: Literal["COVERED", "NOT_COVERED", "INSUFFICIENT_EVIDENCE"]
    gate: Literal["DETERMINE", "REVIEW", "REFUSE", "HALT"]
    gold: tuple[str, ...] = ()
    note: str = ""


class Pattern(_Record):
    """One fact pattern: the request fields that do not depend on the date or plan, and its labels."""

    id: str = Field(min_length=1)
    trap: str = ""
    procedure_codes: tuple[str, ...] = Field(min_length=1)
    diagnosis_codes: tuple[str, ...] = ()
    narrative: str
    question: str
    rationale: str = ""
    expect: tuple[Expectation, ...] = Field(min_length=1)


class PolicyPatterns(_Record):
    document: str
    trap: str = ""
    patterns: tuple[Pattern, ...] = Field(min_length=1)


class PatternTable(_Record):
    format: Literal["clauseguard.patterns/v1"]
    suite: str = Field(min_length=1)
    description: str = ""
    policies: tuple[PolicyPatterns, ...] = Field(min_length=1)


def demo_patterns_path() -> Path:
    return Path(str(resources.files("clauseguard") / "data" / "patterns" / DEMO_PATTERNS))


def _lists_as_tuples(data: Any) -> Any:
    if isinstance(data, list):
        return tuple(_lists_as_tuples(x) for x in data)
    if isinstance(data, dict):
        return {k: _lists_as_tuples(v) for k, v in data.items()}
    return data


def parse_patterns(where: str, data: Any) -> PatternTable:
    """A pattern table's data as a PatternTable, or ExpansionError naming the key path."""
    try:
        return PatternTable.model_validate(_lists_as_tuples(data))
    except ValidationError as exc:
        found = "; ".join(
            f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in exc.errors(include_url=False)[:5]
        )
        raise ExpansionError(f"pattern table {where}: {found}") from exc


def load_patterns(path: Path | str) -> PatternTable:
    """Read a pattern table (YAML scalars kept as written), or ExpansionError naming the key path."""
    try:
        data = read_data(Path(path))
    except CorpusError as exc:
        raise ExpansionError(f"pattern table {path}: {exc}") from exc
    return parse_patterns(str(path), data)


# --- the corpus structure the labels use --------------------------------------------------------


def _applies(document: Document, plan: Plan) -> bool:
    """A rider applies when the plan attaches it; any other document when it names no plan or this one."""
    if document.payer != plan.payer:
        return False
    if document.kind == "rider":
        return document.id in plan.riders and (not document.plans or plan.id in document.plans)
    return not document.plans or plan.id in document.plans


def _in_effect_for(corpus: Corpus, plan: Plan, day: date) -> set[str]:
    """The documents that apply to the plan and have a version in effect on the day."""
    return {d.id for d in corpus.documents if _applies(d, plan) and version_in_effect(d, day) is not None}


def _related(corpus: Corpus, document: Document, codes: Sequence[str]) -> list[Document]:
    """The policy, the riders that override it, and the payer's FAQs on the same codes: their dates are the boundaries."""
    found = [document]
    for other in corpus.documents:
        if other.payer != document.payer or other.id == document.id:
            continue
        if (other.kind == "rider" and document.id in other.overrides) or (
            other.kind == "faq" and any(c in other.codes for c in codes)
        ):
            found.append(other)
    return sorted(found, key=lambda d: (d.id != document.id, d.id))


def _label(doc: Document, version: Version) -> str:
    return f"{doc.id} {version.version}"


def boundary_dates(policy: Document, related: Sequence[Document]) -> dict[date, list[str]]:
    """Every version boundary: the first day, the last day and the day after each version period of
    the policy and of the related riders and FAQs, and the day before each related version starts
    (the plan's last day without that rider or FAQ)."""
    found: dict[date, list[str]] = {}
    for doc in (policy, *(d for d in related if d.id != policy.id)):
        for version in sorted(doc.versions, key=lambda v: v.effective_start):
            points = [(version.effective_start, "first day of")]
            if doc.id != policy.id:
                points.insert(0, (version.effective_start - timedelta(days=1), "day before"))
            if version.effective_end is not None:
                points += [
                    (version.effective_end, "last day of"),
                    (version.effective_end + timedelta(days=1), "day after"),
                ]
            for day, what in points:
                found.setdefault(day, []).append(f"{what} {_label(doc, version)}")
    return dict(sorted(found.items()))


# --- expansion ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Context:
    corpus: Corpus
    documents: dict[str, Document]
    clause_ids: frozenset[str]


def _check_table(ctx: _Context, table: PatternTable) -> None:
    seen: set[tuple[str, str]] = set()
    for policy in table.policies:
        doc = ctx.documents.get(policy.document)
        if doc is None:
            raise ExpansionError(f"pattern table names document {policy.document}, which the corpus lacks")
        labels = {v.version for v in doc.versions}
        for pattern in policy.patterns:
            where = f"{policy.document} pattern {pattern.id}"
            if (policy.document, pattern.id) in seen:
                raise ExpansionError(f"{where}: the id is used twice")
            seen.add((policy.document, pattern.id))
            for rule in pattern.expect:
                if rule.version not in labels:
                    raise ExpansionError(f"{where}: version {rule.version!r} is not a version of {doc.id} ({', '.join(sorted(labels))})")
                for other in (*rule.with_, *rule.without):
                    if other not in ctx.documents:
                        raise ExpansionError(f"{where}: document {other} (with/without) is not in the corpus")
                for cid in rule.gold:
                    if cid not in ctx.clause_ids:
                        raise ExpansionError(f"{where}: gold clause {cid} is not in the corpus")


def _governs_elsewhere(ctx: _Context, doc: Document, plan: Plan, codes: Sequence[str], day: date) -> list[str]:
    return sorted(
        d.id
        for d in ctx.corpus.documents
        if d.id != doc.id
        and d.kind not in ("rider", "faq")
        and _applies(d, plan)
        and any(c in d.codes for c in codes)
        and version_in_effect(d, day) is not None
    )


def _case(
    *,
    doc: Document,
    pattern: Pattern,
    trap: str,
    plan: Plan,
    day: date,
    why_date: str,
    outcome: str,
    gate: str,
    gold: Sequence[str],
    rationale: str,
) -> dict[str, Any]:
    return {
        "case_id": f"exp-{doc.id}-{pattern.id}-{plan.id}-{day.isoformat()}",
        "trap": trap,
        "generated_by": GENERATED_BY,
        "date_rationale": why_date,
        "payer_id": plan.payer,
        "plan_id": plan.id,
        "procedure_codes": list(pattern.procedure_codes),
        "diagnosis_codes": list(pattern.diagnosis_codes),
        "as_of_date": day.isoformat(),
        "narrative": pattern.narrative,
        "question": pattern.question,
        "expected_outcome": outcome,
        "expected_gate": gate,
        "gold_clause_ids": list(gold),
        "rationale": rationale,
    }


def _expand_pattern(ctx: _Context, doc: Document, pattern: Pattern, policy_trap: str) -> list[dict[str, Any]]:
    trap = pattern.trap or policy_trap
    plans = sorted((p for p in ctx.corpus.plans if p.payer == doc.payer), key=lambda p: p.id)
    dates = boundary_dates(doc, _related(ctx.corpus, doc, pattern.procedure_codes))
    cases: list[dict[str, Any]] = []
    for plan in plans:
        for day, whys in dates.items():
            why_date = "; ".join(whys)
            version = version_in_effect(doc, day) if _applies(doc, plan) else None
            if version is None:
                elsewhere = _governs_elsewhere(ctx, doc, plan, pattern.procedure_codes, day)
                if elsewhere:
                    raise ExpansionError(
                        f"{doc.id} pattern {pattern.id}: on {day.isoformat()} plan {plan.id} has no version of "
                        f"{doc.id} but {', '.join(elsewhere)} governs the code; the table cannot label that"
                    )
                missing = (
                    f"no version of {doc.id} is in effect on {day.isoformat()}"
                    if _applies(doc, plan)
                    else f"{doc.id} does not apply to plan {plan.id}"
                )
                cases.append(
                    _case(
                        doc=doc, pattern=pattern, trap=f"T6 no governing document or version + {trap}", plan=plan,
                        day=day, why_date=why_date, outcome="INSUFFICIENT_EVIDENCE", gate="REFUSE", gold=(),
                        rationale=f"{missing}, and no other document of {doc.payer} governs "
                        f"{', '.join(pattern.procedure_codes)} for plan {plan.id}: REFUSE (corpus structure).",
                    )
                )
                continue
            in_effect = _in_effect_for(ctx.corpus, plan, day)
            rule = next(
                (
                    r
                    for r in pattern.expect
                    if r.version == version.version
                    and all(d in in_effect for d in r.with_)
                    and not any(d in in_effect for d in r.without)
                ),
                None,
            )
            if rule is None:
                raise ExpansionError(
                    f"{doc.id} pattern {pattern.id}: no expectation matches version {version.version} on "
                    f"{day.isoformat()} for plan {plan.id} (in effect: {', '.join(sorted(in_effect))})"
                )
            riders = sorted(d for d in in_effect if ctx.documents[d].kind == "rider" and doc.id in ctx.documents[d].overrides)
            faqs = sorted(d for d in in_effect if ctx.documents[d].kind == "faq" and any(c in ctx.documents[d].codes for c in pattern.procedure_codes))
            state = f"rider {', '.join(riders)} in effect" if riders else "no rider over it in effect"
            if faqs:
                state += f"; FAQ {', '.join(faqs)} in effect"
            note = rule.note or pattern.rationale
            cases.append(
                _case(
                    doc=doc, pattern=pattern, trap=trap, plan=plan, day=day, why_date=why_date,
                    outcome=rule.outcome, gate=rule.gate, gold=rule.gold,
                    rationale=f"{_label(doc, version)} governs on {day.isoformat()} ({why_date}); plan {plan.id}: "
                    f"{state}. {note}".strip(),
                )
            )
    return cases


def expand(corpus: Corpus, table: PatternTable) -> dict[str, Any]:
    """The expanded suite as a case-file document; every label is checked by `validate.py` before it is returned."""
    ctx = _Context(
        corpus=corpus,
        documents={d.id: d for d in corpus.documents},
        clause_ids=frozenset(c.id for d in corpus.documents for v in d.versions for c in v.clauses),
    )
    _check_table(ctx, table)
    cases: list[dict[str, Any]] = []
    for policy in table.policies:
        doc = ctx.documents[policy.document]
        for pattern in policy.patterns:
            cases += _expand_pattern(ctx, doc, pattern, policy.trap)
    document = {
        "description": (
            f"Determination cases expanded by construction from the '{table.suite}' fact-pattern table: each "
            "pattern crossed with every version boundary of its policy, the riders over it and the FAQs on its "
            "codes (first day, last day, day after; the day before a rider or FAQ starts) and with every plan "
            "of the payer. Labels come "
            "from the table and the corpus structure, never from the engine. Regenerate with `clauseguard expand`."
            + (f" {table.description.strip()}" if table.description.strip() else "")
        ),
        "generated_by": GENERATED_BY,
        "cases": cases,
    }
    parsed = parse_case_file(f"expanded from {table.suite}", document)
    invalid = validate_cases(parsed.cases, corpus)
    if invalid:
        shown = "; ".join(f"{i.case_id}: {' / '.join(i.reasons)}" for i in invalid[:5])
        raise ExpansionError(f"the pattern table gives {len(invalid)} invalid label(s): {shown}")
    return document


def expanded_json(corpus: Corpus, table: PatternTable) -> str:
    """The expanded suite as the exact text committed to the repository."""
    return json.dumps(expand(corpus, table), indent=2, ensure_ascii=False) + "\n"
