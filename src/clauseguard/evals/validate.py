"""Label validation: every case's answer key is checked mechanically against the corpus before it counts.

It owns the rules a label must satisfy (gold clauses exist, are in effect, belong to the plan and
govern the code; an expected HALT is one the preflight rules reach; search ids and versions exist)
and reports each broken rule as a sentence. It never asks the engine, and never fixes a label.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from clauseguard.corpus.codes import is_diagnosis_code, is_procedure_code
from clauseguard.corpus.model import Corpus, Document, Plan
from clauseguard.errors import ClauseguardError
from clauseguard.evals.cases import Case, DeterminationCase, SearchCase
from clauseguard.evals.corpus_facts import CorpusFacts
from clauseguard.requests import parse_iso_date
from clauseguard.versions import Eligibility, eligibility, eligibility_under_terms, governing_terms


@dataclass(frozen=True)
class InvalidCase:
    """A case whose label does not hold against the corpus, and every reason why."""

    case_id: str
    file: str
    reasons: tuple[str, ...]

    def as_json(self) -> dict[str, Any]:
        return {"case_id": self.case_id, "file": self.file, "reasons": list(self.reasons)}


def as_of_day(request: Mapping[str, Any]) -> date | None:
    """The determination's governing date, or None when `as_of_date` does not parse."""
    try:
        return parse_iso_date(request.get("as_of_date"))
    except ValueError:
        return None


def _codes(request: Mapping[str, Any], key: str) -> list[str]:
    value = request.get(key) or []
    return [str(v) for v in value]


def preflight_failures(request: Mapping[str, Any], facts: CorpusFacts) -> list[str]:
    """Every HALT rule of the design's preflight that this request trips, each naming the field.

    Written here from the design's list, independently of the engine's own preflight.
    """
    found: list[str] = []
    payer_id = str(request.get("payer_id") or "")
    plan_id = str(request.get("plan_id") or "")
    if not payer_id.strip():
        found.append("payer_id is empty")
    elif payer_id not in facts.payers:
        found.append(f"payer_id {payer_id!r} is not a payer of the corpus")
    if not plan_id.strip():
        found.append("plan_id is empty")
    elif plan_id not in facts.plans:
        found.append(f"plan_id {plan_id!r} is not a plan of the corpus")
    elif payer_id.strip() and facts.plans[plan_id].payer != payer_id:
        found.append(f"plan_id {plan_id!r} belongs to payer {facts.plans[plan_id].payer}, not {payer_id!r}")
    if as_of_day(request) is None:
        found.append(f"as_of_date {request.get('as_of_date')!r} does not parse as YYYY-MM-DD")
    procedures = _codes(request, "procedure_codes")
    if not procedures:
        found.append("procedure_codes is empty")
    found += [f"procedure code {c!r} has no CPT or HCPCS shape" for c in procedures if not is_procedure_code(c)]
    found += [
        f"diagnosis code {c!r} has no ICD-10-CM shape"
        for c in _codes(request, "diagnosis_codes")
        if not is_diagnosis_code(c)
    ]
    return found


def _applies_to_plan(document: Document, plan: Plan) -> bool:
    """A non-rider document applies to every plan of its payer, or only to the plans it lists."""
    return document.payer == plan.payer and (not document.plans or plan.id in document.plans)


def _governs(document: Document, plan: Plan, codes: Sequence[str]) -> bool:
    return document.kind != "rider" and _applies_to_plan(document, plan) and any(c in document.codes for c in codes)


def _governing_on(facts: CorpusFacts, plan: Plan, codes: Sequence[str], day: date) -> list[Document]:
    """The plan's policies, terms and schedules (not riders, not FAQs) governing a code, in effect on the day."""
    return [
        d
        for d in facts.corpus.documents
        if d.kind not in ("rider", "faq") and _governs(d, plan, codes) and any(v.covers(day) for v in d.versions)
    ]


def _gold_problems(case: DeterminationCase, facts: CorpusFacts, day: date | None, plan: Plan | None) -> list[str]:
    payer_id = str(case.request.get("payer_id") or "")
    codes = _codes(case.request, "procedure_codes")
    problems: list[str] = []
    for cid in case.gold_clause_ids:
        placed = facts.placed(cid)
        if placed is None:
            problems.append(f"gold clause {cid} does not exist in the corpus")
            continue
        doc, version = placed.document, placed.version
        if placed.clause.kind == "scope":
            problems.append(f"gold clause {cid} is a scope clause; a scope clause decides nothing")
        if day is not None and not version.covers(day):
            end = version.effective_end.isoformat() if version.effective_end else "open-ended"
            problems.append(
                f"gold clause {cid} is not in effect on {day.isoformat()} "
                f"({doc.id} {version.version} runs {version.effective_start.isoformat()} to {end})"
            )
        if doc.payer != payer_id:
            problems.append(f"gold clause {cid} belongs to payer {doc.payer}, not {payer_id!r}")
            continue
        if plan is None:
            continue
        if doc.kind == "rider":
            if doc.id not in plan.riders or (doc.plans and plan.id not in doc.plans):
                problems.append(f"gold clause {cid} is from rider {doc.id}, which is not attached to plan {plan.id}")
            targets = [facts.documents[o] for o in doc.overrides if o in facts.documents]
            if not any(_governs(t, plan, codes) for t in targets):
                problems.append(
                    f"gold clause {cid} is from rider {doc.id}, which overrides no document governing "
                    f"{', '.join(codes) or 'the procedure code'} on plan {plan.id}"
                )
        elif not _applies_to_plan(doc, plan):
            problems.append(f"gold clause {cid} is from {doc.id}, which does not apply to plan {plan.id}")
        elif not any(c in doc.codes for c in codes):
            problems.append(
                f"gold clause {cid} is from {doc.id}, which does not govern {', '.join(codes) or 'the procedure code'}"
            )
    return problems


def determination_problems(case: DeterminationCase, facts: CorpusFacts) -> list[str]:
    """Why a determination label does not hold against the corpus (empty when it does)."""
    problems: list[str] = []
    gate, outcome = case.expected_gate, case.expected_outcome
    if gate in ("REFUSE", "HALT") and outcome != "INSUFFICIENT_EVIDENCE":
        problems.append(f"expected_gate {gate} carries outcome INSUFFICIENT_EVIDENCE, not {outcome}")
    if gate == "DETERMINE" and outcome == "INSUFFICIENT_EVIDENCE":
        problems.append("expected_gate DETERMINE needs outcome COVERED or NOT_COVERED")

    halts = preflight_failures(case.request, facts)
    if gate == "HALT" and not halts:
        problems.append("expected HALT is unreachable: no preflight rule fires on this request")
    if gate != "HALT" and halts:
        problems.append(f"preflight HALTs this request ({'; '.join(halts)}), but expected_gate is {gate}")
    if gate == "HALT" and case.gold_clause_ids:
        problems.append("an expected HALT has no gold clauses: preflight stops before any clause is read")

    day = as_of_day(case.request)
    plan = facts.plans.get(str(case.request.get("plan_id") or ""))
    if plan is not None and plan.payer != case.request.get("payer_id"):
        plan = None
    problems += _gold_problems(case, facts, day, plan)

    if gate in ("DETERMINE", "REVIEW") and not halts and plan is not None and day is not None:
        codes = _codes(case.request, "procedure_codes")
        if not _governing_on(facts, plan, codes, day):
            problems.append(
                f"no document of payer {plan.payer} governs {', '.join(codes)} on plan {plan.id} on "
                f"{day.isoformat()}; the design answers REFUSE, not {gate}"
            )
    return problems


def _search_eligibility(case: SearchCase, facts: CorpusFacts) -> tuple[Eligibility | None, set[str] | None, str | None]:
    """(eligibility, the labels of the governing versions, why nothing governs) for a search request."""
    corpus = facts.corpus
    request = case.request
    day = parse_iso_date(request["effective_date"]) if request.get("effective_date") else None
    contract_id = request.get("contract_id")
    if contract_id is not None:
        terms = governing_terms(corpus, str(contract_id), day)
        if terms.uncovered is not None:
            return None, None, terms.uncovered
        labels = set((terms.applicable_versions or {}).values())
        return eligibility_under_terms(corpus, terms), labels, None
    assert day is not None  # a payer + plan search always carries its date (checked when the file was read)
    found = eligibility(corpus, plan_id=str(request["plan_id"]), day=day, payer_id=str(request["payer_id"]))
    labels = {d.version for d in found.documents.values() if d.reason is None and d.version is not None}
    return found, labels, None if labels else f"no version of the plan's documents covers {day.isoformat()}"


def search_problems(case: SearchCase, facts: CorpusFacts) -> list[str]:
    """Why a search label does not hold against the corpus (empty when it does)."""
    problems: list[str] = []
    for key, ids in (("must_include", case.must_include_clause_ids), ("must_exclude", case.must_exclude_clause_ids)):
        problems += [f"{key} clause {cid} does not exist in the corpus" for cid in ids if not facts.exists(cid)]
    both = sorted(set(case.must_include_clause_ids) & set(case.must_exclude_clause_ids))
    if both:
        problems.append(f"{', '.join(both)} both must and must not be in the sources")

    contract_id = case.request.get("contract_id")
    if contract_id is not None and contract_id not in facts.contracts:
        if case.expected_status != "error":
            problems.append(f"contract {contract_id!r} does not exist; an unknown contract is expected_status error")
        return problems
    if case.expected_status == "error":
        return problems
    try:
        found, labels, uncovered = _search_eligibility(case, facts)
    except ClauseguardError as exc:  # unknown plan, plan of another payer: the request is an error
        return [*problems, f"the request is an error ({exc}); expected_status must be error"]

    version = case.expected_applicable_version
    if uncovered is not None:
        if version is not None:
            problems.append(f"{uncovered}, so expected_applicable_version is null, not {version!r}")
        if case.expected_status != "refused":
            problems.append(f"{uncovered}: that is a refusal, not {case.expected_status}")
        if case.must_include_clause_ids:
            problems.append(f"{uncovered}: no clause can be a source")
        return problems
    if version is None:
        problems.append("a version governs this request, so expected_applicable_version cannot be null")
    elif labels is not None and version not in labels:
        problems.append(
            f"expected_applicable_version {version!r} is not a version that governs this request "
            f"(governing: {', '.join(sorted(labels)) or 'none'})"
        )
    if found is not None:
        for cid in case.must_include_clause_ids:
            if facts.exists(cid):
                reason = found.reason(cid)
                if reason is not None:
                    problems.append(f"must_include clause {cid} is not eligible for this request ({reason})")
    return problems


def validate_cases(cases: Iterable[Case], corpus: Corpus | CorpusFacts) -> list[InvalidCase]:
    """Every case whose label does not hold, in suite order, with all its reasons."""
    facts = corpus if isinstance(corpus, CorpusFacts) else CorpusFacts(corpus)
    invalid: list[InvalidCase] = []
    for case in cases:
        if isinstance(case, DeterminationCase):
            problems = determination_problems(case, facts)
        else:
            problems = search_problems(case, facts)
        if problems:
            invalid.append(InvalidCase(case.case_id, case.file, tuple(problems)))
    return invalid
