"""What governs a search: the versions in effect (decided by clauseguard.versions), the scope of
clauses a question may be answered from, and the labels a handler is shown.

It never decides a version itself: `versions.governing_contract` / `versions.governing_plan` do, and
the applicable version follows `versions.Governing.applicable_version`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Protocol

from clauseguard.corpus.model import Corpus
from clauseguard.requests import SearchRequest
from clauseguard.versions import (
    Eligibility,
    Governing,
    governing_contract,
    governing_documents_for_code,
    governing_plan,
)


@dataclass(frozen=True)
class Target:
    """What governs a search: the version decision and who asked about what."""

    governing: Governing
    contract_id: str | None = None
    payer_id: str | None = None
    plan_id: str | None = None

    @property
    def eligibility(self) -> Eligibility | None:
        return self.governing.eligibility

    @property
    def effective_date(self) -> date | None:
        return self.governing.effective_date

    @property
    def requested_date(self) -> date | None:
        return self.governing.requested_date

    @property
    def applicable_versions(self) -> dict[str, str] | None:
        return self.governing.applicable_versions

    @property
    def applicable_version(self) -> str | None:
        """The label before any answer is known (the terms document, else the first governing document)."""
        return self.governing.applicable_version()

    @property
    def uncovered(self) -> str | None:
        return self.governing.uncovered


def resolve_target(corpus: Corpus, request: SearchRequest) -> Target:
    """Contract -> its governing terms; payer + plan + date -> the versions in effect that day."""
    if request.contract_id is not None:
        return Target(governing_contract(corpus, request.contract_id, request.effective_date),
                      contract_id=request.contract_id)
    assert request.payer_id is not None and request.plan_id is not None and request.effective_date is not None
    return Target(governing_plan(corpus, request.plan_id, request.effective_date, request.payer_id),
                  payer_id=request.payer_id, plan_id=request.plan_id)


class Scope(Protocol):
    """Which clauses a question may be answered from, and why each other clause may not."""

    @property
    def eligible(self) -> tuple[str, ...]: ...

    @property
    def day(self) -> date: ...

    def reason(self, clause_id: str) -> str | None: ...


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
