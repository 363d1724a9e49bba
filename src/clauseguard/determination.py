"""The determination pipeline: preflight, resolve, retrieve, read, verify (cold), gate.

It wires the pure parts together for one structured case and builds the design's answer. It never
decides an outcome itself (the reader and the gate do), never lets the narrative choose a clause,
and everything it returns that came from the narrative is taken from the redacted text.
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from typing import TYPE_CHECKING, Any, Final

from clauseguard.corpus.criteria import Criteria
from clauseguard.corpus.model import Clause, Corpus, Document, Version
from clauseguard.corpus.store import CorpusStore
from clauseguard.deadline import MAX_READ_CHARS, too_long_to_read
from clauseguard.gate import CheckedCitation, Conflict, GateDecision, GateInput, decide
from clauseguard.preflight import Preflight, Reason, preflight
from clauseguard.reading import clause_criteria
from clauseguard.reading.amend import Override, resolve_amendment
from clauseguard.reading.evaluate import ClauseReading, Decision, Evaluation, evaluate
from clauseguard.reading.evaluate import decide as decide_clauses
from clauseguard.reading.facts import FactSheet, QuantityFact, Structured, read_facts, vocabulary_of
from clauseguard.reading.grammar import Refusal
from clauseguard.reading.lexicon import Lexicon
from clauseguard.reading.references import References
from clauseguard.requests import DeterminationRequest
from clauseguard.responses import (
    Checks,
    Citation,
    Claim,
    ConflictReport,
    CriterionResult,
    DeterminationResponse,
    ExcludedPassage,
    Flag,
    ReadBy,
    RetrievedClause,
)
from clauseguard.retrieval import RetrievalIndex, aspect_of, best_ineligible, retrieve
from clauseguard.verify import ColdVerifier, VerifyContext
from clauseguard.versions import (
    Eligibility,
    eligibility,
    governing_documents_for_code,
    riders_overriding,
    version_in_effect,
)

if TYPE_CHECKING:
    from collections.abc import Mapping

    from clauseguard.models import ModelRun
    from clauseguard.reading.facts import Fact

OUTCOMES: Final = {"covered": "COVERED", "not_covered": "NOT_COVERED"}
# Words by which a request names a FAQ as its source (the design's list), besides its id and title.
_FAQ_WORDS: Final = re.compile(r"\bFAQs?\b|frequently asked|provider questions", re.IGNORECASE)


@dataclass(frozen=True)
class Governing:
    """A clause handed to the reader, with the document and version it belongs to."""

    document: Document
    version: Version
    clause: Clause


@dataclass
class CompiledCache:
    """Compiled criteria per clause (id, text hash): the reader's cache, never the verifier's.
    `authored`: the approved criteria revisions in use (clause id -> revision), which take precedence."""

    entries: dict[tuple[str, int], Criteria | Refusal] = field(default_factory=dict)
    authored: Mapping[str, Any] = field(default_factory=dict)

    def get(self, clause: Clause, lexicon: Lexicon) -> Criteria | Refusal:
        revision = self.authored.get(clause.id)
        key = (clause.id, hash((clause.text, repr(clause.criteria), revision.id if revision is not None else None)))
        found = self.entries.get(key)
        if found is None:
            found = clause_criteria(clause, lexicon, self.authored)
            self.entries[key] = found
        return found

    def read_by(self, clause: Clause) -> ReadBy:
        """Who read the clause: an approved revision (and whose), the corpus's own criteria, or the compiler."""
        revision = self.authored.get(clause.id)
        if revision is not None:
            return ReadBy(source="revision", revision_id=revision.id, author=revision.author,
                          approved_by=revision.approved_by)
        return ReadBy(source="corpus" if clause.criteria is not None else "compiler")


@dataclass
class Resolution:
    base: list[Governing]
    riders: list[Governing]
    faqs: list[Governing]
    refusals: list[Reason]
    documents: set[str]


def resolve(corpus: Corpus, req: DeterminationRequest, day: date) -> Resolution:
    """Codes -> the payer's governing documents on the plan; their versions in effect on the date;
    the riders attached to the plan, in effect, that override them; the FAQs on the same codes."""
    base: dict[str, Governing] = {}
    faqs: dict[str, Governing] = {}
    refusals: list[Reason] = []
    documents: set[str] = set()
    for code in dict.fromkeys(c.strip() for c in req.procedure_codes):
        docs = [d for d in governing_documents_for_code(corpus, req.payer_id, code, req.plan_id) if d.kind != "rider"]
        policies = [d for d in docs if d.kind != "faq"]
        if not policies:
            refusals.append(Reason(
                "no_governing_document",
                f"no document of payer {req.payer_id} governs procedure code {code} on plan {req.plan_id}",
            ))
            continue
        in_effect = 0
        for doc in docs:
            version = version_in_effect(doc, day)
            if version is None:
                if doc.kind != "faq":
                    refusals.append(Reason(
                        "no_version", f"no version of {doc.id} ({doc.title}) is in effect on {day.isoformat()}"
                    ))
                continue
            in_effect += doc.kind != "faq"
            documents.add(doc.id)
            target = faqs if doc.kind == "faq" else base
            for clause in version.clauses:
                target.setdefault(clause.id, Governing(doc, version, clause))
        if in_effect:
            refusals = [r for r in refusals if r.code != "no_version" or code not in r.text]
    riders: dict[str, Governing] = {}
    for rider, version in riders_overriding(corpus, req.plan_id, day, documents):
        for clause in version.clauses:
            riders[clause.id] = Governing(rider, version, clause)
    return Resolution(list(base.values()), list(riders.values()), list(faqs.values()), refusals, documents)


def relies_on(faq: Document, req: DeterminationRequest) -> bool:
    """The request relies on a FAQ when its narrative or question names it (id, title, or FAQ words)."""
    text = f"{req.narrative}\n{req.question}"
    return faq.id.lower() in text.lower() or faq.title.lower() in text.lower() or bool(_FAQ_WORDS.search(text))


def _quote(text: str, evaluation: Evaluation, outcome: str) -> str:
    """The verbatim stretch of the clause covering the rules that gave the outcome (whole clause if none)."""
    spans = [r.span for r in evaluation.rules if r.outcome == outcome] or [r.span for r in evaluation.rules]
    if not spans:
        return text
    return text[min(s.start for s in spans):max(s.end for s in spans)]


@dataclass
class Read:
    """Everything the reader produced for one request."""

    facts: FactSheet
    readings: list[ClauseReading]
    evaluations: dict[str, Evaluation]
    refused: dict[str, Refusal]
    overrides: dict[str, list[Override]]
    designations: dict[str, list[str]]
    decision: Decision
    read_by: dict[str, ReadBy] = field(default_factory=dict)  # clause id -> who read its criteria


def read(
    res: Resolution, req: DeterminationRequest, pf: Preflight, lexicon: Lexicon, cache: CompiledCache,
    *, model_criteria: Mapping[str, Criteria] | None = None, extra_facts: Sequence[Fact] = (),
) -> Read:
    """Compile the governing clauses, read the facts, apply riders and designations, decide.
    `model_criteria` and `extra_facts`: what a model read, already checked (clauseguard.models)."""
    compiled = {g.clause.id: cache.get(g.clause, lexicon) for g in [*res.base, *res.riders, *res.faqs]}
    if model_criteria:
        compiled.update(model_criteria)
    criteria = [c for c in compiled.values() if isinstance(c, Criteria)]
    facts = read_facts(
        pf.narrative.fact_text, tuple(c.strip() for c in req.diagnosis_codes),
        tuple(c.strip() for c in req.procedure_codes), lexicon, vocabulary_of(criteria, lexicon),
        as_of=pf.as_of, structured=Structured.of(req, pf.as_of),
    )
    if extra_facts:
        facts = replace(facts, facts=facts.facts + tuple(extra_facts))
    overrides: dict[str, list[Override]] = {}
    for rider in res.riders:
        rider_criteria = compiled[rider.clause.id]
        if not isinstance(rider_criteria, Criteria):
            continue
        for amendment in rider_criteria.amendments:
            for g in res.base:
                base = compiled[g.clause.id]
                if amendment.targets and g.document.id not in amendment.targets:
                    continue
                if g.document.id not in rider.document.overrides or not isinstance(base, Criteria):
                    continue
                if amendment.action == "add":
                    # a rider that adds a requirement adds it to every covering rule of the policy it amends
                    if amendment.replacement is not None and any(r.effect == "covered" for r in base.rules):
                        overrides.setdefault(g.clause.id, []).append(
                            Override("add", (), amendment, rider_clause=rider.clause.id))
                    continue
                found = resolve_amendment(base, amendment, lexicon, rider_clause=rider.clause.id)
                if found is not None:
                    overrides.setdefault(g.clause.id, []).append(found)
    references = References.of(
        (g.clause.id, c) for g in [*res.base, *res.riders] if isinstance(c := compiled[g.clause.id], Criteria))
    designations: dict[str, list[str]] = {}
    readings: list[ClauseReading] = []
    evaluations: dict[str, Evaluation] = {}
    refused: dict[str, Refusal] = {}
    for g in [*res.base, *res.riders]:
        result = compiled[g.clause.id]
        if isinstance(result, Refusal):
            refused[g.clause.id] = result
            readings.append(ClauseReading(g.clause.id, result))
            continue
        siblings = [
            o for o in res.base
            if o.document.id == g.document.id and o.clause.id != g.clause.id
            and isinstance(compiled[o.clause.id], Criteria) and compiled[o.clause.id].designations  # type: ignore[union-attr]
        ]
        designations[g.clause.id] = [o.clause.id for o in siblings]
        statements = [d for o in siblings for d in compiled[o.clause.id].designations]  # type: ignore[union-attr]
        evaluation = evaluate(result, facts, lexicon, statements + list(result.designations),
                              overrides.get(g.clause.id, ()), references, g.clause.id)
        evaluations[g.clause.id] = evaluation
        readings.append(ClauseReading(g.clause.id, evaluation))
    # A quantity question: the question asks about a limit, or the narrative states how much was billed or
    # dispensed. An amount only requested (the narrative's "Requested: 30 per 30 days", the form's quantity
    # field) asks for coverage, so the criteria decide; a limit it exceeds still decides on its own.
    quantity = aspect_of(req.question) == "limit" or any(
        q.source == "narrative" and q.assertion == "affirmed" for q in facts.of(QuantityFact))
    decision = decide_clauses(readings, facts, quantity_question=quantity, lexicon=lexicon,
                              amount_asked=_names_a_number(req.question, lexicon))
    for g in res.faqs:
        result = compiled[g.clause.id]
        if isinstance(result, Criteria):
            evaluations[g.clause.id] = evaluate(result, facts, lexicon, result.designations)
        else:
            refused[g.clause.id] = result
    read_by = {g.clause.id: cache.read_by(g.clause) for g in [*res.base, *res.riders]}
    return Read(facts, readings, evaluations, refused, overrides, designations, decision, read_by)


def conflicts_of(res: Resolution, rd: Read, req: DeterminationRequest) -> tuple[list[Conflict], list[ConflictReport]]:
    """Every disagreement and how precedence settles it (rider > policy > FAQ)."""
    found: list[Conflict] = []
    shown: list[ConflictReport] = []
    decided = rd.decision.outcome
    seen_faqs: set[str] = set()
    for g in res.faqs:
        if g.document.id in seen_faqs:
            continue
        faq_clauses = [f for f in res.faqs if f.document.id == g.document.id]
        relied = relies_on(g.document, req)
        disagreeing = [
            f.clause.id for f in faq_clauses
            if (ev := rd.evaluations.get(f.clause.id)) is not None
            and ev.outcome in OUTCOMES and decided in OUTCOMES and ev.outcome != decided
        ]
        unread = [f.clause.id for f in faq_clauses if f.clause.id in rd.refused]
        if disagreeing or (relied and unread):
            seen_faqs.add(g.document.id)
            ids = disagreeing or unread
            text = (
                f"FAQ {g.document.id} ({', '.join(ids)}) disagrees with the governing policy for this request"
                if disagreeing else
                f"the request relies on FAQ {g.document.id}, which the governing policy overrides"
            )
            found.append(Conflict(text, resolved_by_precedence=True, request_relies_on_overridden=relied))
            shown.append(ConflictReport(sources=ids, overridden_by=list(rd.decision.deciding), precedence="policy > FAQ",
                                        description=text, request_relies_on_overridden=relied))
    for flag in rd.facts.flags:
        if flag.kind == "service_discrepancy":
            # the codes bill one service and the narrative asks for another: no precedence settles which was meant
            found.append(Conflict(flag.message, resolved_by_precedence=False, request_relies_on_overridden=False))
            shown.append(ConflictReport(sources=[], overridden_by=[], precedence="none: codes and narrative disagree",
                                        description=flag.message, request_relies_on_overridden=False))
    for clause_id, overrides in sorted(rd.overrides.items()):
        for o in overrides:
            text = f"rider clause {o.rider_clause} {o.amendment.action}s a requirement of {clause_id}"
            found.append(Conflict(text, resolved_by_precedence=True, request_relies_on_overridden=False))
            shown.append(ConflictReport(sources=[clause_id], overridden_by=[o.rider_clause] if o.rider_clause else [],
                                        precedence="rider > policy", description=text,
                                        request_relies_on_overridden=False))
    return found, shown


def citations_of(res: Resolution, rd: Read) -> list[Citation]:
    """A citation per deciding clause (and per rider clause whose amendment it used), with its claim."""
    by_id = {g.clause.id: g for g in [*res.base, *res.riders]}
    ids = list(rd.decision.deciding) or list(rd.decision.unreadable)
    out: list[Citation] = []
    for clause_id in ids:
        g = by_id.get(clause_id)
        if g is None:
            continue
        ev = rd.evaluations.get(clause_id)
        read_by = rd.read_by.get(clause_id)
        if ev is None:
            out.append(Citation(clause_id=clause_id, quote=g.clause.text, statement="this clause could not be read",
                                claim=Claim(kind="unreadable"), read_by=read_by))
            continue
        riders = sorted({o.rider_clause for o in rd.overrides.get(clause_id, []) if o.rider_clause})
        referred = sorted({a.atom_id.split("#", 1)[0] for a in ev.atoms if "#" in a.atom_id})
        designations = rd.designations.get(clause_id, [])
        revisions = {cid: rb.revision_id for cid in (clause_id, *riders, *designations, *referred)
                     if (rb := rd.read_by.get(cid)) is not None and rb.revision_id is not None}
        claim = Claim(
            kind="criteria", outcome=ev.outcome, atoms={a.atom_id: a.status for a in ev.atoms},
            riders=riders, designations=designations, references=referred, revisions=revisions,
        )
        met = [a.label for a in ev.atoms if a.status == "met" and not a.waived]
        failed = [a.label for a in ev.atoms if a.status == "not_met" and not a.waived]
        unknown = [a.label for a in ev.atoms if a.status == "unknown" and not a.waived]
        waived = [a.label for a in ev.atoms if a.waived]
        pieces = [f"{clause_id} reads {ev.outcome.replace('_', ' ')} for this request"]
        if waived:
            pieces.append("waived: " + "; ".join(waived))
        if failed:
            pieces.append("not met: " + "; ".join(failed))
        if unknown:
            pieces.append("not stated: " + "; ".join(unknown))
        if met:
            pieces.append("met: " + "; ".join(met))
        out.append(Citation(clause_id=clause_id, quote=_quote(g.clause.text, ev, ev.outcome),
                            statement=" — ".join(pieces), claim=claim, read_by=read_by))
        for rider_id in riders:
            rider = by_id[rider_id]
            rider_read = rd.read_by.get(rider_id)
            out.append(Citation(clause_id=rider_id, quote=rider.clause.text,
                                statement=f"{rider_id} modifies a requirement of {clause_id} on this plan",
                                claim=Claim(kind="amendment", revisions={rider_id: rider_read.revision_id}
                                            if rider_read is not None and rider_read.revision_id else {}),
                                read_by=rider_read))
    return out


def criteria_of(rd: Read, pf: Preflight) -> list[CriterionResult]:
    """Every criterion of the clauses that bear on the outcome, mapped to a fact or named as missing."""
    ids = list(rd.decision.deciding) or [cid for cid, ev in rd.evaluations.items() if ev.missing_facts]
    out = []
    for clause_id in ids:
        ev = rd.evaluations.get(clause_id)
        if ev is None:
            continue
        for a in ev.atoms:
            span = a.narrative_span
            out.append(CriterionResult(
                clause_id=clause_id, criterion=a.label, clause_span=a.clause_span.text, role=a.role,
                result=a.status, fact=a.fact,
                narrative_span=pf.redaction.span(span.start, span.end) if span is not None else None,
                source=a.source, missing=a.missing, waived=a.waived,
            ))
    return out


def _answer_text(decision: GateDecision, citations: Sequence[Citation]) -> str:
    cited = " ".join(f"[{c.clause_id}]" for c in citations)
    if decision.gate == "HALT":
        return "The request cannot be assessed: " + "; ".join(r.text for r in decision.reasons) + "."
    if decision.gate == "REFUSE":
        text = "No determination: " + "; ".join(r.text for r in decision.reasons) + "."
        return text + (f" {cited}" if cited else "")
    verdict = {"COVERED": "covered", "NOT_COVERED": "not covered"}.get(decision.outcome, decision.outcome)
    lead = f"The requested service is {verdict} under {cited}." if cited else f"The requested service is {verdict}."
    if decision.gate == "REVIEW":
        lead = "Provisionally: " + lead + " A handler must review: " + "; ".join(r.text for r in decision.reasons) + "."
    statements = " ".join(f"{c.statement} [{c.clause_id}]." for c in citations)
    return f"{lead} {statements}".strip()


def determine(
    req: DeterminationRequest,
    *,
    corpus: Corpus,
    store: CorpusStore,
    index: RetrievalIndex,
    lexicon: Lexicon,
    cache: CompiledCache,
    verifier: ColdVerifier,
    fault: Any = None,
    assist: ModelRun | None = None,
    stages: dict[str, float] | None = None,
) -> DeterminationResponse:
    """The design's determination answer (ids, timings and audit are the engine's). `assist`: the
    model's run for this determination when a model is configured (it reads, phrases, never decides);
    `stages` receives the seconds each stage took (preflight, resolve, retrieve, read, verify, gate)."""
    lap = Laps(stages if stages is not None else {})
    pf = preflight(req, corpus)
    lap("preflight")
    flags = [Flag(kind="instruction", text=f) for f in pf.narrative.flags]
    if not pf.ok or pf.as_of is None:
        decision = decide(GateInput(halts=pf.halts))
        return _response(decision, flags=flags)
    if len(req.narrative) > MAX_READ_CHARS:
        return _response(too_long_to_read(len(req.narrative)), flags=flags)
    day = pf.as_of
    res = resolve(corpus, req, day)
    elig = eligibility(corpus, plan_id=req.plan_id, day=day, payer_id=req.payer_id)
    lap("resolve")
    handed = [*res.base, *res.riders, *res.faqs]
    retrieved = _retrieved(index, req, handed, elig)
    excluded = _excluded(corpus, index, req, res, elig)
    lap("retrieve")
    if not res.base:
        decision = decide(GateInput(refusals=tuple(res.refusals)))
        return _response(decision, flags=flags, retrieved=retrieved, excluded=excluded)

    rd = read(res, req, pf, lexicon, cache)
    if assist is not None:
        rd = assist.reread(rd, res, pf, lambda **kw: read(res, req, pf, lexicon, cache, **kw),
                           lambda g: cache.get(g.clause, lexicon))
    conflicts, shown_conflicts = conflicts_of(res, rd, req)
    citations = citations_of(res, rd)
    lap("read")
    if fault is not None:
        citations = fault(citations, corpus=corpus, request=req)
    ctx = VerifyContext(
        payer_id=req.payer_id, plan_id=req.plan_id, as_of=day,
        procedure_codes=tuple(c.strip() for c in req.procedure_codes),
        diagnosis_codes=tuple(c.strip() for c in req.diagnosis_codes), fact_text=pf.narrative.fact_text,
        structured=Structured.of(req, day),
    )
    cold = store.reopen()
    try:
        checks = verifier.verify(citations, cold, ctx)
    finally:
        if cold is not store:
            cold.close()
    citations = [c.model_copy(update={"checks": check}) for c, check in zip(citations, checks, strict=True)]
    lap("verify")

    refusals = list(res.refusals)
    outcome = OUTCOMES.get(rd.decision.outcome)
    if rd.decision.outcome == "undecided":
        refusals.append(Reason("missing_fact", "the request does not state: " + "; ".join(rd.decision.missing_facts)))
    elif rd.decision.outcome == "no_clause" and not rd.decision.unreadable:
        refusals.append(Reason("no_clause", "no clause of the governing documents applies to this request"))
    uncompiled = tuple(
        Reason("criterion_not_compiled", f"clause {cid} could not be read in full: {rd.refused[cid].message}")
        for cid in rd.decision.unreadable if cid in rd.refused
    )
    unconfirmed = tuple(
        Reason("exception_from_narrative", f"clause {cid}: {said}; the answer rests on it, so a person confirms it")
        for cid in rd.decision.deciding if cid in rd.evaluations for said in rd.evaluations[cid].rests_on
    )
    gate_input = GateInput(
        refusals=tuple(refusals),
        citations=tuple(CheckedCitation(c.clause_id, c.checks or Checks.failing()) for c in citations),
        conflicts=tuple(conflicts), uncompiled=uncompiled, outcome=outcome,  # type: ignore[arg-type]
        unconfirmed=unconfirmed,
    )
    decision = decide(gate_input)
    if assist is not None:
        decision = assist.settle(gate_input, citations)
    response = _response(
        decision, citations=citations, criteria=criteria_of(rd, pf), conflicts=shown_conflicts,
        missing_facts=list(rd.decision.missing_facts), excluded=excluded, retrieved=retrieved,
        flags=flags + [Flag(kind=f.kind, text=f.message) for f in rd.facts.flags if f.kind != "instruction"],
    )
    if assist is not None:
        assist.finish(response, citations)
    lap("gate")
    return response


class Laps:
    """Seconds since the previous lap, recorded under each stage's name (for traces, never for answers)."""

    def __init__(self, into: dict[str, float]) -> None:
        self.into = into
        self.last = time.perf_counter()

    def __call__(self, stage: str) -> None:
        now = time.perf_counter()
        self.into[stage] = round(now - self.last, 6)
        self.last = now


def _response(decision: GateDecision, citations: Sequence[Citation] = (), **body: Any) -> DeterminationResponse:
    return DeterminationResponse(
        gate=decision.gate, outcome=decision.outcome, reasons=list(decision.reasons),
        answer=_answer_text(decision, citations), citations=list(citations), **body,
    )


def _retrieved(index: RetrievalIndex, req: DeterminationRequest, handed: list[Governing], elig: Eligibility) -> list[RetrievedClause]:
    """The clauses handed to the reader, ranked by retrieval for the question, with their scores."""
    if not handed:
        return []
    mask = index.clauses.mask_of(tuple(g.clause.id for g in handed))
    hits = retrieve(index, req.question or " ", mask, k=len(handed))
    scores = {h.clause_id: h.score for h in hits}
    by_id = {g.clause.id: g for g in handed}
    order = sorted(by_id, key=lambda cid: (-scores.get(cid, 0.0), cid))
    return [
        RetrievedClause(clause_id=cid, document_id=by_id[cid].document.id, version=by_id[cid].version.version,
                        score=round(scores.get(cid, 0.0), 2), in_effect=elig.reason(cid) is None)
        for cid in order
    ]


def _excluded(corpus: Corpus, index: RetrievalIndex, req: DeterminationRequest, res: Resolution,
              elig: Eligibility, k: int = 3) -> list[ExcludedPassage]:
    """The best-matching clauses of other versions of the governing documents and of the riders that
    override them (another plan's, or not yet in effect), with the fixed reason each is out."""
    wanted = set(res.documents) | {
        d.id for d in corpus.documents if d.kind == "rider" and set(d.overrides) & res.documents
    }
    rows = index.clauses.rows
    ids = tuple(r.clause_id for r in rows if r.document_id in wanted and elig.reason(r.clause_id) is not None)
    if not ids:
        return []
    hits = best_ineligible(index, req.question or " ", index.clauses.mask_of(ids), k)
    return [
        ExcludedPassage(clause_id=h.clause_id, document_id=rows[h.clause_index].document_id,
                        version=rows[h.clause_index].version, article=rows[h.clause_index].article,
                        page=rows[h.clause_index].page, page_label=rows[h.clause_index].page_label,
                        page_end=rows[h.clause_index].page_end, page_end_label=rows[h.clause_index].page_end_label,
                        score=round(h.score, 2),
                        reason=elig.reason(h.clause_id) or "not eligible")
        for h in hits
    ]


def _names_a_number(question: str, lexicon: Lexicon) -> bool:
    """Whether the question names an amount ("Are 400 strips per 90 days covered?"): then a limit it would be
    held to is never set aside for want of a stated amount (any figure counts, so the test errs towards asking)."""
    words = lexicon.number_words()
    return any(c.isdigit() for c in question) or any(w in words for w in re.findall(r"[a-z]+", question.lower()))
