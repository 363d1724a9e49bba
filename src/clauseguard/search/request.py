"""The search request: a handler's question over the terms that govern a contract or a plan on a date.

Eligibility is decided first (clauseguard.versions), retrieval ranks only eligible clauses, each
question part is answered from its own passage above the threshold or named as unsettled, and every
source's excerpt is re-read from the store before the answer goes out. It never invents text: the
answer is built from verbatim excerpts and fixed sentences.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from clauseguard.corpus.model import Corpus
from clauseguard.corpus.store import CorpusStore
from clauseguard.reading.passage import sentences as sentences_of
from clauseguard.requests import RetrievalEvalRequest, SearchRequest
from clauseguard.responses import (
    ExcludedPassage,
    OverriddenPassage,
    PartResult,
    Passage,
    RankedClause,
    RetrievalEvalResponse,
    SearchAnswer,
    SearchConflict,
    SearchResponse,
    SearchStatus,
    Source,
    StatedValue,
)
from clauseguard.retrieval import Hit, QuestionPart, RetrievalIndex, best_ineligible, retrieve, split_question
from clauseguard.retrieval.eligible import eligible_mask
from clauseguard.retrieval.parts import asks_open, asks_yes_or_no, names_more
from clauseguard.search.answers import PRECEDENCE, PartAnswer, Precedence, Settled, cite
from clauseguard.search.parts import answer_part
from clauseguard.search.target import GoverningCodes, Scope, resolve_target
from clauseguard.versions import Eligibility

NO_EVIDENCE: Final = "Not enough evidence found in policy documents."
ESCALATE: Final = "escalate to handler"
NO_ACTION: Final = "none"


def scope_mask(index: RetrievalIndex, elig: Scope) -> Any:
    """The scope's row mask: from the version rules' slices (one per governing document version),
    kept per decision so the requests of one plan and date interval share it; else from the ids."""
    if isinstance(elig, Eligibility):
        key = ("mask", id(elig.decided))
        found = index.shared_by_decision.get(key)
        if found is None or found[0] is not elig.decided:
            mask = eligible_mask(index, elig)
            mask.flags.writeable = False  # shared by every request of the decision
            found = index.shared_by_decision[key] = (elig.decided, mask)
        return found[1]
    return index.clauses.mask_of(elig.eligible)


def _row(index: RetrievalIndex, hit: Hit) -> Any:
    return index.clauses.rows[hit.clause_index]


def _where(row: Any, score: float) -> dict[str, Any]:
    """The fields every passage entry shares: the clause, where it is printed, its score (2 decimals)."""
    return {"clause_id": row.clause_id, "document_id": row.document_id, "version": row.version,
            "article": row.article, "page": row.page, "page_label": row.page_label, "page_end": row.page_end,
            "page_end_label": row.page_end_label, "score": round(score, 2)}


def _moot_by_exclusion(answers: list[PartAnswer]) -> list[PartAnswer]:
    """When a passage settles that the benefit is excluded, the parts asking for its amounts are
    answered by that exclusion, not left unsettled. Only a no about the benefit itself does: a part that
    names a case of its own ("covered together with an indwelling catheter") is refused for that case,
    and a reading that says neither yes nor no settles nothing for the amounts, whatever its excerpt holds."""
    found = [s for a in answers for s in a.settled_by if s.reading.settles == "excluded"]
    found += [
        s for a in answers if not a.part.asks_quantity and not names_more(a.part) for s in a.settled_by
        if s.reading.settles == "answers" and s.reading.value == "no"
        and (s.reading.condition is None or s.reading.condition.kind == "procedural")
    ]
    if not found:
        return answers
    for a in answers:
        if a.part.asks_quantity and not a.settled_by and a.condition is None:
            a.settled_by = [found[0]]
            a.unsettled_because = None
    return answers


def search(
    request: SearchRequest, *, corpus: Corpus, store: CorpusStore, index: RetrievalIndex
) -> SearchResponse:
    """The design's search response (without trace_id, which the engine adds)."""
    target = resolve_target(corpus, request)
    base: dict[str, Any] = {}
    if target.contract_id is not None:
        base["contract_id"] = target.contract_id
    else:
        base["payer_id"] = target.payer_id
        base["plan_id"] = target.plan_id
    base["effective_date"] = target.effective_date.isoformat() if target.effective_date else None
    if target.requested_date is not None:
        base["requested_date"] = target.requested_date.isoformat()
    base["applicable_version"] = target.applicable_version
    base["applicable_versions"] = target.applicable_versions
    base["threshold"] = request.threshold
    base["k"] = request.k
    parts = split_question(request.question)

    if target.eligibility is None:
        why = target.uncovered or "nothing governs the request"
        return SearchResponse(
            **base, status="refused", reason="no_version", action=ESCALATE, unsettled=[p.label for p in parts],
            parts=[PartResult(part=p.label, status="unsettled", why=why) for p in parts],
            answer=f"{why[0].upper()}{why[1:]}: {NO_EVIDENCE[0].lower()}{NO_EVIDENCE[1:]}",
        )

    scope: Scope = target.eligibility
    codes = tuple(dict.fromkeys(c.strip() for c in request.codes if c.strip()))
    if codes:
        scope = GoverningCodes.of(corpus, target.eligibility, codes)
        base["codes"] = list(codes)
        base["governing_documents"] = sorted(scope.documents)
    answered = answer_over(index, store, parts, scope, request.threshold, request.k,
                           corpus=corpus, question=request.question)
    documents = tuple(s.document_id for s in answered.sources if s.settles)  # the version the answer comes from
    base["applicable_version"] = target.governing.applicable_version(documents)
    return SearchResponse(**base, **dict(answered))


def _value(s: Settled) -> StatedValue | None:
    reading = s.reading
    if reading.value is None:
        return None
    stated = reading.stated
    condition = reading.condition.text if reading.condition is not None else None
    if stated is None:
        return StatedValue(value=reading.value, condition=condition, text=reading.excerpt)
    return StatedValue(item=stated.unit if stated.kind == "count" else None, value=stated.value,
                       unit=stated.unit, period=stated.period, condition=condition, text=stated.piece)


def _sentence(a: PartAnswer, index: RetrievalIndex) -> str:
    lead = a.settled_by[0]
    label = f"{a.part.label[:1].upper()}{a.part.label[1:]}"
    text = f"{label}: \u201c{lead.reading.excerpt}\u201d {cite(_row(index, lead.hit))}."
    if lead.reading.condition is not None:
        text += f" This holds under the condition stated: \u201c{lead.reading.condition.text}\u201d."
    for hit, rider in a.overridden:
        text += f" It replaces {hit.clause_id}, which the rider {rider} overrides."
    return text


def answer_over(
    index: RetrievalIndex, store: CorpusStore, parts: Sequence[QuestionPart], elig: Scope, threshold: float, k: int,
    *, corpus: Corpus | None = None, question: str | None = None,
) -> SearchAnswer:
    """Excluded, below-threshold, status, sources, action, unsettled and answer for one scope."""
    mask = scope_mask(index, elig)
    precedence = Precedence.of(index, corpus, mask)
    asked = question if question is not None else " ".join(p.label for p in parts)
    answers: list[PartAnswer] = []
    below: list[Hit] = []
    for part in parts:
        # each part is read against its own words and the shared subject: a condition stated for one part
        # ("... after a documented inadequate response") is not met for another ("... at the starting dose")
        own = asked if len(parts) == 1 else part.text
        answer, under = answer_part(index, part, own, mask, threshold, k, precedence)
        answers.append(answer)
        below += under
    answers = _moot_by_exclusion(answers)

    excluded = []
    for hit in best_ineligible(index, parts, ~mask, k):
        row = _row(index, hit)
        excluded.append(ExcludedPassage(**_where(row, hit.score), reason=elig.reason(row.clause_id) or "not eligible"))

    sources: list[Source] = []
    cited: set[str] = set()
    for a in answers:
        for s in a.settled_by:
            if s.hit.clause_id not in cited:
                cited.add(s.hit.clause_id)
                sources.append(Source(**_where(_row(index, s.hit), s.hit.score), excerpt=s.reading.excerpt))
    for a in answers:  # the passages unsettled parts point to come after every answering one
        for s in a.consulted if not a.settled_by else ():
            if s.hit.clause_id not in cited:
                cited.add(s.hit.clause_id)
                sources.append(Source(**_where(_row(index, s.hit), s.hit.score), settles=False,
                                      excerpt=s.reading.excerpt or sentences_of(_row(index, s.hit).text)[0]))
    verify_sources(sources, store, elig)
    verified = {s.clause_id for s in sources}
    for a in answers:  # a part whose sources failed the cold check is not answered
        a.settled_by = [s for s in a.settled_by if s.hit.clause_id in verified]
        if not a.settled_by and a.unsettled_because is None:
            a.unsettled_because = "its passage failed the cold check against the store"

    results: list[PartResult] = []
    sentences: list[str] = []
    overridden: list[OverriddenPassage] = []
    conflicts: list[SearchConflict] = []
    for a in answers:
        if a.settled_by:
            lead = a.settled_by[0]
            condition = lead.reading.condition
            results.append(PartResult(
                part=a.part.label, status="answered", clause_id=lead.hit.clause_id, value=_value(lead),
                excerpt=lead.reading.excerpt, condition=condition.text if condition is not None else None,
            ))
            sentences.append(_sentence(a, index))
        else:
            condition = a.condition.condition if a.condition is not None else None
            results.append(PartResult(part=a.part.label, status="unsettled", why=a.unsettled_because,
                                      condition=condition.text if condition is not None else None))
        for hit, rider in a.overridden:
            overridden.append(OverriddenPassage(**_where(_row(index, hit), hit.score), by=rider, part=a.part.label))
        for hit, standing in a.conflicts:
            row = _row(index, hit)
            conflicts.append(SearchConflict(
                part=a.part.label, clause_id=row.clause_id, document_id=row.document_id, overridden_by=standing,
                precedence=PRECEDENCE,
                description=f"{row.clause_id} (a FAQ) disagrees with {standing} on the {a.part.label}; the FAQ never decides",
            ))
    unsettled = [a.part.label for a in answers if not a.settled_by]
    for a in answers:
        if not a.settled_by:
            sentences.append(f"{_named(a.part.label)} is not settled: {a.unsettled_because}.")

    below_threshold = []
    listed: set[str] = set(cited) | {o.clause_id for o in overridden}
    for hit in sorted(below, key=lambda h: (-h.score, h.clause_id)):
        if hit.clause_id in listed:
            continue
        listed.add(hit.clause_id)
        below_threshold.append(Passage(**_where(_row(index, hit), hit.score)))

    status: SearchStatus = "answered" if sources else "refused"
    return SearchAnswer(
        excluded=excluded, below_threshold=below_threshold, status=status,
        reason="no_evidence" if status == "refused" else None, sources=sources,
        action=ESCALATE if (status == "refused" or unsettled) else NO_ACTION, unsettled=unsettled,
        answer=" ".join(sentences) if sources else NO_EVIDENCE,
        parts=results, overridden=overridden, conflicts=conflicts,
    )


def _named(label: str) -> str:
    """A part as the subject of a sentence: "The annual cap", or a question part quoted whole."""
    if asks_open(label) or asks_yes_or_no(label) or ". " in label:  # a question, or a case told then asked
        return f"\u201c{label[:1].upper()}{label[1:]}?\u201d"
    return f"The {label if label[:2].isupper() else label[:1].lower() + label[1:]}"  # "The monthly limit", "The MRI limit"


def verify_sources(sources: list[Source], store: CorpusStore, elig: Scope) -> None:
    """Each source re-read cold from the store: it exists, its excerpt is verbatim, it is in effect on
    the governing date. A source that fails is dropped (never shown as evidence)."""
    cold = store.reopen()
    try:
        kept = []
        for source in sources:
            stored = cold.clause(source.clause_id)
            ok = (
                stored is not None
                and " ".join(source.excerpt.split()) in " ".join(stored.text.split())
                and stored.version == source.version
                and stored.covers(elig.day)
            )
            if ok:
                kept.append(source)
        sources[:] = kept
    finally:
        if cold is not store:
            cold.close()


def evaluate_retrieval(
    request: RetrievalEvalRequest, *, corpus: Corpus, index: RetrievalIndex
) -> RetrievalEvalResponse:
    """Gold-clause recall of what retrieval hands the reader: the top k eligible clauses per part."""
    search_like = SearchRequest(
        question=request.question, contract_id=request.contract_id, payer_id=request.payer_id,
        plan_id=request.plan_id, effective_date=request.effective_date, k=request.k,
    )
    target = resolve_target(corpus, search_like)
    best: dict[str, Hit] = {}
    if target.eligibility is not None:
        mask = index.clauses.mask_of(target.eligibility.eligible)
        for part in split_question(request.question):
            for hit in retrieve(index, part, mask, request.k):
                if hit.clause_id not in best or hit.score > best[hit.clause_id].score:
                    best[hit.clause_id] = hit
    ranked = sorted(best.values(), key=lambda h: (-h.score, h.clause_id))
    gold = list(dict.fromkeys(request.gold_clause_ids))
    found = {h.clause_id for h in ranked}
    return RetrievalEvalResponse(
        recall=(sum(1 for g in gold if g in found) / len(gold)) if gold else None,
        retrieved=[RankedClause(clause_id=h.clause_id, rank=i, score=round(h.score, 2)) for i, h in enumerate(ranked, 1)],
        missing=[g for g in gold if g not in found],
    )
