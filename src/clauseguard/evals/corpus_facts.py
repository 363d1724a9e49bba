"""What the harness knows about the corpus, read straight from the corpus model: which clause ids exist,
where each lives, and whether its version is in effect on a date.

Built by the harness from the corpus it was given, sharing nothing with the engine's stores or
indexes, so a scorecard never takes the engine's word for what a clause is.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from clauseguard.corpus.model import Clause, Corpus, Document, Version


@dataclass(frozen=True)
class PlacedClause:
    """A clause with the document and version that hold it."""

    clause: Clause
    document: Document
    version: Version


class CorpusFacts:
    """Clause lookups over one corpus, built once per run."""

    def __init__(self, corpus: Corpus) -> None:
        self.corpus = corpus
        self.fingerprint = corpus.fingerprint()
        self.documents = {d.id: d for d in corpus.documents}
        self.plans = {p.id: p for p in corpus.plans}
        self.payers = {p.id: p for p in corpus.payers}
        self.contracts = {c.id: c for c in corpus.contracts}
        self._clauses: dict[str, PlacedClause] = {}
        for doc in corpus.documents:
            for version in doc.versions:
                for clause in version.clauses:
                    self._clauses.setdefault(clause.id, PlacedClause(clause, doc, version))

    def exists(self, clause_id: str) -> bool:
        return clause_id in self._clauses

    def placed(self, clause_id: str) -> PlacedClause | None:
        return self._clauses.get(clause_id)

    def in_effect(self, clause_id: str, day: date) -> bool:
        """True when the clause exists and its version's period (inclusive at both ends) contains the day."""
        placed = self._clauses.get(clause_id)
        return placed is not None and placed.version.covers(day)
