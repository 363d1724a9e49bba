"""The search request: a handler's question over the terms that govern a contract or a plan on a date.

Eligibility is decided first (clauseguard.versions), retrieval ranks only eligible clauses, each
question part is answered from its own passage above the threshold or named as unsettled, and every
source's excerpt is re-read from the store before the answer goes out. It never invents text: the
answer is built from verbatim excerpts and fixed sentences.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any, Final, Protocol

from clauseguard.corpus.model import Corpus
from clauseguard.corpus.store import CorpusStore
from clauseguard.reading.extract import Reading, excludes, quantity_asked, read_passage
from clauseguard.requests import RetrievalEvalRequest, SearchRequest
from clauseguard.responses import (
    ExcludedPassage,
    Passage,
    RankedClause,
    RetrievalEvalResponse,
    SearchAnswer,
    SearchResponse,
    SearchStatus,
    Source,
)
from clauseguard.retrieval import (
    Hit,
    QuestionPart,
    RetrievalIndex,
    best_ineligible,
    retrieve,
    split_question,
)
from clauseguard.retrieval.retrieve import subject_share
from clauseguard.retrieval.tokens import content_terms
from clauseguard.versions import (
    Eligibility,
    eligibility,
    eligibility_under_terms,
    governing_documents_for_code,
    governing_terms,
    plan_documents,
    policy_terms_version,
    riders_in_effect,
    version_in_effect,
)

NO_EVIDENCE: Final = "Not enough evidence found in policy documents."
ESCALATE: Final = "escalate to handler"
NO_ACTION: Final = "none"
SUBJECT_SHARE: Final = 1 / 3  # a source must contain at least a third of the weight of the part's subject words


@dataclass(frozen=True)
class Target:
    """What governs a search: the eligibility decision and the labels handlers are shown."""

    eligibility: Eligibility | None
    effective_date: date | None
    requested_date: date | None
    applicable_version: str | None
    applicable_versions: dict[str, str] | None
    uncovered: str | None
    contract_id: str | None = None
    payer_id: str | None = None
    plan_id: str | None = None


def resolve_target(corpus: Corpus, request: SearchRequest) -> Target:
    """Contract -> its governing terms; payer + plan + date -> the versions in effect that day."""
    if request.contract_id is not None:
        terms = governing_terms(corpus, request.contract_id, request.effective_date)
        elig = eligibility_under_terms(corpus, terms) if terms.uncovered is None else None
        return Target(
            eligibility=elig,
            effective_date=terms.effective_date,
            requested_date=terms.requested_date,
            applicable_version=policy_terms_version(terms),
            applicable_versions=terms.applicable_versions,
            uncovered=terms.uncovered,
            contract_id=request.contract_id,
        )
    assert request.payer_id is not None and request.plan_id is not None and request.effective_date is not None
    day = request.effective_date
    elig = eligibility(corpus, plan_id=request.plan_id, day=day, payer_id=request.payer_id)
    docs = plan_documents(corpus, request.plan_id)
    versions = {d.id: v.version for d in docs if (v := version_in_effect(d, day)) is not None}
    versions.update({r.document.id: r.version.version for r in riders_in_effect(corpus, request.plan_id, day)})
    ranked = sorted(docs, key=lambda d: (d.kind != "policy_terms", d.id))
    label = next((versions[d.id] for d in ranked if d.id in versions), None)
    uncovered = None if any(d.id in versions for d in docs) else f"no version of the terms covers {day.isoformat()}"
    return Target(
        eligibility=elig if uncovered is None else None,
        effective_date=day,
        requested_date=None,
        applicable_version=label,
        applicable_versions=dict(sorted(versions.items())) if uncovered is None else None,
        uncovered=uncovered,
        payer_id=request.payer_id,
        plan_id=request.plan_id,
    )


@dataclass(frozen=True)
class PartAnswer:
    part: QuestionPart
    settled_by: list[tuple[Hit, Reading]]  # hits above threshold whose passage settles the part
    unsettled_because: str | None


def _row(index: RetrievalIndex, hit: Hit) -> Any:
    return index.clauses.rows[hit.clause_index]


def _where(row: Any, score: float) -> dict[str, Any]:
    """The fields every passage entry shares: the clause, where it is printed, its score (2 decimals)."""
    return {"clause_id": row.clause_id, "document_id": row.document_id, "version": row.version,
            "article": row.article, "page": row.page, "page_label": row.page_label, "page_end": row.page_end,
            "page_end_label": row.page_end_label, "score": round(score, 2)}


def _pages(row: Any) -> str:
    """"page 4 (printed), PDF page 6" when the printed label differs; "pages 4-5" when it runs over."""
    physical = f"{row.page}-{row.page_end}" if row.page_end else str(row.page)
    printed = f"{row.page_label}-{row.page_end_label or row.page_end}" if row.page_end else row.page_label
    word = "pages" if row.page_end else "page"
    return f"{word} {printed} (printed), PDF {word} {physical}" if printed and printed != physical else f"{word} {physical}"


def _cite(row: Any) -> str:
    where = []
    if row.article:
        where.append(f"article {row.article.split(' ', 1)[0]}")
    if row.page:
        where.append(_pages(row))
    where.append(row.version)
    return f"({', '.join(where)}; {row.clause_id})"


def answer_parts(
    index: RetrievalIndex, parts: Sequence[QuestionPart], mask: Any, threshold: float, k: int
) -> tuple[list[PartAnswer], list[Hit]]:
    """Each part from its own passages above the threshold (k per part); the rest under the threshold."""
    answers: list[PartAnswer] = []
    below: list[Hit] = []
    for part in parts:
        hits = retrieve(index, part, mask, k)
        about = dict(zip((h.clause_id for h in hits), subject_share(index, part.subject, [h.clause_index for h in hits]), strict=True))
        terms = content_terms(part.text)
        asked = quantity_asked(part.label, part.aspect)
        settled: list[tuple[Hit, Reading]] = []
        seen: list[str] = []
        for hit in hits:
            if hit.score < threshold:
                below.append(hit)
                continue
            if about[hit.clause_id] < SUBJECT_SHARE:
                continue  # above the threshold on generic words, but about something else
            reading = read_passage(
                _row(index, hit).text, asked=asked, asks_quantity=part.asks_quantity, terms=terms
            )
            seen.append(f"{hit.clause_id}: {reading.settles}")
            if reading.settled:
                settled.append((hit, reading))
        why = None
        if not settled:
            deferred = [h for h in hits if h.score >= threshold and about[h.clause_id] >= SUBJECT_SHARE]
            if deferred:
                row = _row(index, deferred[0])
                why = f"the passage above the threshold does not state it {_cite(row)}"
            else:
                why = "no passage above the threshold answers it"
        answers.append(PartAnswer(part, settled, why))
    return answers, below


def _moot_by_exclusion(answers: list[PartAnswer]) -> list[PartAnswer]:
    """When a passage settles that the benefit is excluded, the parts asking for its amounts are
    answered by that exclusion, not left unsettled."""
    exclusions = [(h, r) for a in answers for h, r in a.settled_by if r.settles == "excluded"]
    coverage_exclusions = [
        (h, r) for a in answers if not a.part.asks_quantity for h, r in a.settled_by
        if r.settles == "answers" and excludes(r.excerpt)
    ]
    found = exclusions + coverage_exclusions
    if not found:
        return answers
    out = []
    for a in answers:
        if a.part.asks_quantity and not a.settled_by:
            out.append(PartAnswer(a.part, [found[0]], None))
        else:
            out.append(a)
    return out


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
        sentence = target.uncovered or NO_EVIDENCE
        return SearchResponse(
            **base, status="refused", reason="no_version", action=ESCALATE, unsettled=[p.label for p in parts],
            answer=sentence[0].upper() + sentence[1:] + ".",
        )

    scope: Scope = target.eligibility
    codes = tuple(dict.fromkeys(c.strip() for c in request.codes if c.strip()))
    if codes:
        scope = GoverningCodes.of(corpus, target.eligibility, codes)
        base["codes"] = list(codes)
        base["governing_documents"] = sorted(scope.documents)
    answered = answer_over(index, store, parts, scope, request.threshold, request.k)
    return SearchResponse(**base, **dict(answered))


@dataclass(frozen=True)
class GoverningCodes:
    """An eligibility narrowed, before ranking, to the documents (and their riders) that govern some codes."""

    base: Eligibility
    documents: frozenset[str]
    codes: tuple[str, ...]
    document_of: dict[str, str]

    @classmethod
    def of(cls, corpus: Corpus, base: Eligibility, codes: tuple[str, ...]) -> GoverningCodes:
        documents = {
            d.id for code in codes for d in governing_documents_for_code(corpus, base.payer_id, code, base.plan_id)
        }
        documents |= {d.id for d in corpus.documents if d.kind == "rider" and set(d.overrides) & documents}
        document_of = {c.id: d.id for d in corpus.documents for v in d.versions for c in v.clauses}
        return cls(base, frozenset(documents), codes, document_of)

    @property
    def day(self) -> date:
        return self.base.day

    @property
    def eligible(self) -> tuple[str, ...]:
        return tuple(c for c in self.base.eligible if self.document_of[c] in self.documents)

    def reason(self, clause_id: str) -> str | None:
        why = self.base.reason(clause_id)
        if why is None and self.document_of.get(clause_id) not in self.documents:
            return f"does not govern {', '.join(self.codes)}"
        return why


class Scope(Protocol):
    """Which clauses a question may be answered from, and why each other clause may not."""

    @property
    def eligible(self) -> tuple[str, ...]: ...

    @property
    def day(self) -> date: ...

    def reason(self, clause_id: str) -> str | None: ...


def answer_over(
    index: RetrievalIndex, store: CorpusStore, parts: Sequence[QuestionPart], elig: Scope, threshold: float, k: int
) -> SearchAnswer:
    """Excluded, below-threshold, status, sources, action, unsettled and answer for one scope."""
    mask = index.clauses.mask_of(elig.eligible)
    answers, below = answer_parts(index, parts, mask, threshold, k)
    answers = _moot_by_exclusion(answers)

    excluded = []
    for hit in best_ineligible(index, parts, ~mask, k):
        row = _row(index, hit)
        excluded.append(ExcludedPassage(**_where(row, hit.score), reason=elig.reason(row.clause_id) or "not eligible"))

    sources: list[Source] = []
    cited: set[str] = set()
    sentences: list[str] = []
    for a in answers:
        if a.unsettled_because is not None:
            continue
        hit, reading = a.settled_by[0]
        for h, r in a.settled_by:
            if h.clause_id in cited:
                continue
            cited.add(h.clause_id)
            row = _row(index, h)
            sources.append(Source(**_where(row, h.score), excerpt=r.excerpt))
        row = _row(index, hit)
        sentences.append(f"{a.part.label[:1].upper()}{a.part.label[1:]}: \u201c{reading.excerpt}\u201d {_cite(row)}.")
    unsettled = [a.part.label for a in answers if a.unsettled_because is not None]
    for a in answers:
        if a.unsettled_because is not None:
            sentences.append(f"The {a.part.label} is not settled: {a.unsettled_because}.")

    below_threshold = []
    listed: set[str] = set(cited)
    for hit in sorted(below, key=lambda h: (-h.score, h.clause_id)):
        if hit.clause_id in listed:
            continue
        listed.add(hit.clause_id)
        row = _row(index, hit)
        below_threshold.append(Passage(**_where(row, hit.score)))

    verify_sources(sources, store, elig)
    status: SearchStatus = "answered" if sources else "refused"
    return SearchAnswer(
        excluded=excluded, below_threshold=below_threshold, status=status,
        reason="no_evidence" if status == "refused" else None, sources=sources,
        action=ESCALATE if (status == "refused" or unsettled) else NO_ACTION, unsettled=unsettled,
        answer=" ".join(sentences) if sources else NO_EVIDENCE,
    )




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
