"""The cold verifier: every cited clause re-fetched from the store by id and checked afresh.

It opens its own store handle and loads its own lexicon, recompiles the re-fetched text and re-reads
the facts itself; it shares no object or cache with the code that produced the answer. Its five
checks per citation are exists, verbatim, in_effect, applicable and supports.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from clauseguard.corpus.criteria import Criteria
from clauseguard.corpus.store import CorpusStore, StoredClause
from clauseguard.reading import clause_criteria
from clauseguard.reading.amend import Override, resolve_amendment
from clauseguard.reading.evaluate import evaluate
from clauseguard.reading.facts import read_facts, vocabulary_of
from clauseguard.reading.lexicon import load_lexicon
from clauseguard.reading.references import References
from clauseguard.responses import Checks, Citation, Claim
from clauseguard.text import squash


@dataclass(frozen=True)
class VerifyContext:
    """What the request was: the verifier re-reads facts from it, never from the answer."""

    payer_id: str
    plan_id: str
    as_of: date
    procedure_codes: tuple[str, ...]
    diagnosis_codes: tuple[str, ...]
    fact_text: str  # the narrative as the reader saw it (instructions blanked, offsets kept)


normalise_ws = squash


def _applicable(stored: StoredClause, ctx: VerifyContext, plan_riders: tuple[str, ...], governs: bool) -> bool:
    """Same payer; a rider attached to the plan; a document that governs a requested code."""
    if stored.payer != ctx.payer_id:
        return False
    if stored.document_plans and ctx.plan_id not in stored.document_plans:
        return False
    if stored.document_kind == "rider":
        return stored.document_id in plan_riders and governs
    return bool(set(stored.document_codes) & set(ctx.procedure_codes))


class ColdVerifier:
    """The verifier's own lexicon (loaded from the package data for it alone) and its own memo of
    compilations keyed by the re-fetched text itself: the compiler is a pure function of that text, so
    a clause whose stored text changed is compiled anew; nothing here is shared with the reader."""

    MEMO_SIZE = 4096

    def __init__(self) -> None:
        self.lexicon = load_lexicon()
        self._compiled: dict[tuple[str, str], Criteria | Any] = {}

    def warm_up(self, cold: CorpusStore, clause_ids: Sequence[str]) -> None:
        """Compile clauses ahead of requests, re-read from the store like any verification."""
        try:
            for clause_id in clause_ids:
                stored = cold.clause(clause_id)
                if stored is not None:
                    self._compile(stored)
        finally:
            cold.close()

    def _compile(self, stored: StoredClause) -> Criteria | Any:
        key = (stored.text, json.dumps(stored.criteria, sort_keys=True))
        found = self._compiled.get(key)
        if found is None:
            if len(self._compiled) >= self.MEMO_SIZE:
                self._compiled.clear()
            found = self._compiled[key] = clause_criteria(stored.as_clause(), self.lexicon)
        return found

    def verify(self, citations: Sequence[Citation], cold: CorpusStore, ctx: VerifyContext) -> list[Checks]:
        """The five checks for each citation, in order. `cold` must be a fresh store handle."""
        plan_riders = cold.plan_riders(ctx.plan_id)
        fetched = {c.clause_id: cold.clause(c.clause_id) for c in citations}
        compiled = {cid: self._compile(stored) for cid, stored in sorted(fetched.items()) if stored is not None}
        related = self._related(citations, cold)
        vocabulary = vocabulary_of(
            [c for c in (*compiled.values(), *related.values()) if isinstance(c, Criteria)], self.lexicon
        )
        facts = read_facts(ctx.fact_text, ctx.diagnosis_codes, ctx.procedure_codes, self.lexicon, vocabulary)
        results = []
        for citation in citations:
            stored = fetched[citation.clause_id]
            if stored is None:
                results.append(Checks.failing())
                continue
            quote = normalise_ws(citation.quote)
            governs = any(set(cold.document_codes(d)) & set(ctx.procedure_codes) for d in stored.document_overrides)
            results.append(Checks(
                exists=True,
                verbatim=bool(quote) and quote in normalise_ws(stored.text),
                in_effect=stored.covers(ctx.as_of),
                applicable=_applicable(stored, ctx, plan_riders, governs),
                supports=self._supports(compiled[stored.id], citation.claim, facts, related, stored.id),
            ))
        return results

    def _related(self, citations: Sequence[Citation], cold: CorpusStore) -> dict[str, Criteria | Any]:
        """Rider and designating clauses a claim names, re-fetched and compiled afresh."""
        ids = sorted({i for c in citations for i in (*c.claim.riders, *c.claim.designations, *c.claim.references)})
        out: dict[str, Any] = {}
        for clause_id in ids:
            stored = cold.clause(clause_id)
            out[clause_id] = self._compile(stored) if stored is not None else None
        return out

    def _supports(self, compiled: Any, claim: Claim, facts: Any, related: dict[str, Any], clause_id: str = "") -> bool:
        """The re-fetched text, compiled afresh, yields the criteria and results the statement claims."""
        if not isinstance(compiled, Criteria):
            return False
        if claim.kind == "amendment":
            return bool(compiled.amendments)
        overrides = []
        for rider_id in claim.riders:
            rider = related.get(rider_id)
            if not isinstance(rider, Criteria):
                return False
            for amendment in rider.amendments:
                if amendment.action == "add":
                    if amendment.replacement is not None and any(r.effect == "covered" for r in compiled.rules):
                        overrides.append(Override("add", (), amendment, rider_id))
                    continue
                found = resolve_amendment(compiled, amendment, self.lexicon, rider_clause=rider_id)
                if found is not None:
                    overrides.append(found)
        designations: list[Any] = list(compiled.designations)
        for other_id in claim.designations:
            other = related.get(other_id)
            if not isinstance(other, Criteria):
                return False
            designations.extend(other.designations)
        referred = [(cid, related[cid]) for cid in claim.references]
        if any(not isinstance(c, Criteria) for _, c in referred):
            return False
        references = References.of([*referred, (clause_id, compiled)])
        evaluation = evaluate(compiled, facts, self.lexicon, designations, overrides, references, clause_id)
        if evaluation.outcome != claim.outcome:
            return False
        atoms = {a.atom_id: a.status for a in evaluation.atoms}
        return all(atoms.get(atom_id) == status for atom_id, status in claim.atoms.items())
