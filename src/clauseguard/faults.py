"""Fault injection: corrupt the answer's citations before verification, to prove the verifier catches it.

Switched on by `CLAUSEGUARD_FAULT=<mode>` (or the engine's `fault` setting) for tests and drills only.
It changes nothing but the citation list handed to the verifier; the gate must then refuse to let
the answer out on its own. Each mode names the check that must fail.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import date
from typing import Any, Final

from clauseguard.corpus.model import Corpus
from clauseguard.errors import RequestError
from clauseguard.requests import DeterminationRequest
from clauseguard.responses import Citation

ENV: Final = "CLAUSEGUARD_FAULT"

# mode -> the verifier check that must fail
MODES: Final[dict[str, str]] = {
    "unknown_clause": "exists",  # a clause id that does not exist
    "paraphrase": "verbatim",  # a quote reworded
    "stale_version": "in_effect",  # a quote from a version not in effect on the date
    "other_plan_rider": "applicable",  # a rider attached to another plan
    "wrong_document": "applicable",  # a document that does not govern the code
    "unsupported": "supports",  # a statement the quote does not support
    "flipped_result": "supports",  # one criterion's result flipped
}

Fault = Callable[..., list[Citation]]


def _clauses(corpus: Corpus) -> list[tuple[Any, Any, Any]]:
    return [(d, v, c) for d in corpus.documents for v in d.versions for c in v.clauses]


def _replace_first(citations: list[Citation], clause: Any) -> list[Citation]:
    first = citations[0].model_copy(update={"clause_id": clause.id, "quote": clause.text})
    return [first, *citations[1:]]


def inject(mode: str, citations: list[Citation], *, corpus: Corpus, request: DeterminationRequest) -> list[Citation]:
    """The citations with one corruption of the given kind (unchanged when there is nothing to corrupt)."""
    if not citations:
        return citations
    first = citations[0]
    day = date.fromisoformat(request.as_of_date.strip())
    plan = next(p for p in corpus.plans if p.id == request.plan_id)
    codes = {c.strip() for c in request.procedure_codes}
    if mode == "unknown_clause":
        return [first.model_copy(update={"clause_id": first.clause_id + ".X404"}), *citations[1:]]
    if mode == "paraphrase":
        words = first.quote.split()
        return [first.model_copy(update={"quote": " ".join(reversed(words))}), *citations[1:]]
    if mode == "unsupported":
        outcome = "covered" if first.claim.outcome != "covered" else "not_covered"
        claim = first.claim.model_copy(update={"outcome": outcome})
        return [first.model_copy(update={"claim": claim}), *citations[1:]]
    if mode == "flipped_result":
        atoms = dict(first.claim.atoms)
        flip = {"met": "not_met", "not_met": "met", "unknown": "met"}
        for atom_id in sorted(atoms):
            atoms[atom_id] = flip[atoms[atom_id]]  # type: ignore[assignment]
            break
        claim = first.claim.model_copy(update={"atoms": atoms})
        return [first.model_copy(update={"claim": claim}), *citations[1:]]
    for doc, version, clause in _clauses(corpus):
        if mode == "stale_version" and clause.id != first.clause_id and not version.covers(day) and \
                first.clause_id.startswith(doc.id + "."):
            return _replace_first(citations, clause)
        if mode == "other_plan_rider" and doc.kind == "rider" and doc.id not in plan.riders:
            return _replace_first(citations, clause)
        if mode == "wrong_document" and doc.kind != "rider" and doc.payer == plan.payer and \
                not codes & set(doc.codes) and version.covers(day):
            return _replace_first(citations, clause)
    return citations


def from_environment() -> Fault | None:
    """The fault named by CLAUSEGUARD_FAULT, or None; an unknown name is an error naming the valid ones."""
    mode = os.environ.get(ENV, "").strip()
    if not mode:
        return None
    if mode not in MODES:
        raise RequestError(ENV, f"unknown fault {mode!r}; valid: {', '.join(MODES)}")
    return lambda citations, **kw: inject(mode, citations, **kw)
