"""Test doubles shipped with the package (as httpx ships MockTransport): a scripted engine and the
builders of the answer shapes it returns.

Nothing here decides anything: a ScriptedEngine answers exactly what its script says, so tests of
the evaluation harness can compute every metric by hand. Never used by the CLI's real commands.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from clauseguard.evals.cases import Case

ALL_CHECKS: Final = ("exists", "verbatim", "in_effect", "applicable", "supports")

Answer = dict[str, Any]
Script = Mapping[str, Answer | BaseException] | Callable[[dict[str, Any]], Answer]


def request_key(request: Mapping[str, Any]) -> str:
    """The canonical text of a request: the key a script's mapping is looked up by."""
    return json.dumps(request, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def by_question(answers: Mapping[str, Answer | BaseException]) -> Callable[[dict[str, Any]], Answer]:
    """A script that answers by the request's `question` alone (tests with one question per case)."""

    def answer(request: dict[str, Any]) -> Answer:
        found = answers[str(request.get("question"))]
        if isinstance(found, BaseException):
            raise found
        return found

    return answer


def citation(
    clause_id: str,
    *,
    quote: str = "",
    statement: str = "",
    checks: Mapping[str, bool] | None = None,
) -> dict[str, Any]:
    """One citation; every check passes unless `checks` says otherwise."""
    merged = {name: True for name in ALL_CHECKS}
    merged.update(checks or {})
    return {"clause_id": clause_id, "quote": quote, "statement": statement, "checks": merged}


def retrieved_clause(
    clause_id: str, *, score: float = 0.9, document_id: str = "", version: str = "", in_effect: bool = True
) -> dict[str, Any]:
    """One clause handed to the reader."""
    return {"clause_id": clause_id, "document_id": document_id, "version": version, "score": score, "in_effect": in_effect}


def determination_answer(
    *,
    gate: str,
    outcome: str,
    citations: Sequence[Mapping[str, Any]] = (),
    retrieved: Sequence[Mapping[str, Any]] = (),
    reasons: Sequence[Mapping[str, str]] = (),
    engine_s: float = 0.001,
    answer: str = "",
    **extra: Any,
) -> Answer:
    """A determination answer with every key the design lists (extra keys, e.g. `cost_usd`, passed through)."""
    body: Answer = {
        "gate": gate,
        "outcome": outcome,
        "reasons": [dict(r) for r in reasons],
        "answer": answer,
        "citations": [dict(c) for c in citations],
        "criteria": [],
        "conflicts": [],
        "missing_facts": [],
        "excluded": [],
        "retrieved": [dict(r) for r in retrieved],
        "assertion_id": "scripted",
        "trace_id": "scripted",
        "timings": {"engine_s": engine_s},
    }
    body.update(extra)
    return body


def source(clause_id: str, *, score: float = 0.8, document_id: str = "", version: str = "", excerpt: str = "") -> dict[str, Any]:
    return {
        "clause_id": clause_id,
        "document_id": document_id,
        "version": version,
        "article": None,
        "page": None,
        "score": score,
        "excerpt": excerpt,
    }


def search_response(
    *,
    status: str,
    applicable_version: str | None,
    action: str = "none",
    sources: Sequence[Mapping[str, Any]] = (),
    below_threshold: Sequence[Mapping[str, Any]] = (),
    answer: str = "",
    unsettled: Sequence[str] = (),
    **extra: Any,
) -> Answer:
    """A search response with the design's keys."""
    body: Answer = {
        "contract_id": None,
        "effective_date": None,
        "applicable_version": applicable_version,
        "applicable_versions": {},
        "threshold": 0.62,
        "excluded": [],
        "below_threshold": [dict(b) for b in below_threshold],
        "status": status,
        "sources": [dict(s) for s in sources],
        "action": action,
        "unsettled": list(unsettled),
        "answer": answer,
        "trace_id": "scripted",
    }
    body.update(extra)
    return body


class ScriptedEngine:
    """An EngineLike that answers from a script: a mapping keyed by `request_key(request)` (a value
    that is an exception is raised) or a function of the request. It records every request it is given."""

    def __init__(
        self,
        *,
        corpus_fingerprint: str,
        determinations: Script | None = None,
        searches: Script | None = None,
        lexicon_fingerprint: str = "sha256:scripted-lexicon",
        knobs: Mapping[str, Any] | None = None,
    ) -> None:
        self.corpus_fingerprint = corpus_fingerprint
        self.lexicon_fingerprint = lexicon_fingerprint
        self.knobs: dict[str, Any] = dict(knobs or {"engine": "scripted"})
        self._determinations = determinations or {}
        self._searches = searches or {}
        self.calls: list[tuple[str, dict[str, Any]]] = []

    @staticmethod
    def _play(script: Script, request: dict[str, Any]) -> Answer:
        if callable(script):
            return copy.deepcopy(script(request))
        key = request_key(request)
        if key not in script:
            raise LookupError(f"no scripted answer for request {key}")
        found = script[key]
        if isinstance(found, BaseException):
            raise found
        return copy.deepcopy(found)

    def determine(self, request: dict[str, Any]) -> Answer:
        self.calls.append(("determine", copy.deepcopy(request)))
        return self._play(self._determinations, request)

    def search(self, request: dict[str, Any]) -> Answer:
        self.calls.append(("search", copy.deepcopy(request)))
        return self._play(self._searches, request)

    @classmethod
    def answering_from_labels(cls, cases: Iterable[Case], *, corpus_fingerprint: str, **kwargs: Any) -> ScriptedEngine:
        """An oracle for harness tests: each case's own label as the answer (gold clauses cited and
        retrieved, must-include ids as sources, an unknown-contract error raised)."""
        from clauseguard.errors import NotFoundError
        from clauseguard.evals.cases import DeterminationCase

        determinations: dict[str, Answer | BaseException] = {}
        searches: dict[str, Answer | BaseException] = {}
        for case in cases:
            key = request_key(case.request)
            if isinstance(case, DeterminationCase):
                determinations[key] = determination_answer(
                    gate=case.expected_gate,
                    outcome=case.expected_outcome,
                    citations=[citation(c) for c in case.gold_clause_ids],
                    retrieved=[retrieved_clause(c) for c in case.gold_clause_ids],
                    reasons=[{"code": "scripted", "text": case.rationale}],
                )
            elif case.expected_status == "error":
                searches[key] = NotFoundError("contract", str(case.request.get("contract_id")))
            else:
                searches[key] = search_response(
                    status=case.expected_status,
                    applicable_version=case.expected_applicable_version,
                    action=case.expected_action or "none",
                    sources=[source(c) for c in case.must_include_clause_ids],
                    answer=case.expected_reason or "",
                )
        return cls(corpus_fingerprint=corpus_fingerprint, determinations=determinations, searches=searches, **kwargs)
