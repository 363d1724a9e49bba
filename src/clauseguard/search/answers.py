"""What answering a question part produces, and how a clause is cited: who outranks whom among the
documents in scope (rider > policy > FAQ), the passages that settle a part, and the part's outcome.
Data and citation only: it never reads a passage or decides an answer.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

import numpy as np

from clauseguard.reading.extract import Reading
from clauseguard.retrieval import Hit, QuestionPart, RetrievalIndex
from clauseguard.versions import version_index

PRECEDENCE: Final = "rider > policy > FAQ"


class _Kinds(Mapping[str, str]):
    """Document id -> kind, read from the corpus's document index (no copy per request)."""

    def __init__(self, documents: Mapping[str, Any]) -> None:
        self._documents = documents

    def __getitem__(self, key: str) -> str:
        return str(self._documents[key].kind)

    def __iter__(self) -> Iterator[str]:
        return iter(self._documents)

    def __len__(self) -> int:
        return len(self._documents)


@dataclass(frozen=True)
class Precedence:
    """Who outranks whom among the documents in scope: each document's kind, and the riders in
    scope that override each document."""

    kinds: Mapping[str, str]
    riders_over: Mapping[str, tuple[str, ...]]  # document id -> rider ids in scope that override it

    @classmethod
    def of(cls, index: RetrievalIndex, corpus: Any, mask: np.ndarray) -> Precedence:
        """The kinds of the corpus's documents, and the riders with an eligible row under the mask
        (only the riders' own rows are looked at, never every row)."""
        if corpus is None:
            return cls({}, {})
        documents = version_index(corpus).documents
        spans = index.shared_by_decision.get(("rider spans", 0))
        if spans is None or spans[0] is not documents:
            found: dict[str, list[tuple[int, int]]] = {}
            for (doc, _version), span in sorted(index.clauses.version_rows.items()):
                if documents.get(doc) is not None and documents[doc].kind == "rider":
                    found.setdefault(doc, []).append(span)
            spans = index.shared_by_decision[("rider spans", 0)] = (documents, found)  # type: ignore[assignment]
        over: dict[str, list[str]] = {}
        for rider_id, rows in sorted(spans[1].items()):  # type: ignore[union-attr]
            if any(mask[start:stop].any() for start, stop in rows):
                for target in documents[rider_id].overrides:
                    over.setdefault(target, []).append(rider_id)
        return cls(_Kinds(documents), {k: tuple(v) for k, v in over.items()})

    def is_faq(self, document_id: str) -> bool:
        return self.kinds.get(document_id) == "faq"


@dataclass(frozen=True)
class Settled:
    hit: Hit
    reading: Reading


@dataclass
class PartAnswer:
    """A part's outcome: the passages that settle it (the answer first), or why it is unsettled."""

    part: QuestionPart
    settled_by: list[Settled]
    unsettled_because: str | None
    condition: Reading | None = None  # a conditional reading whose condition the question does not state
    overridden: list[tuple[Hit, str]] = field(default_factory=list)  # (policy hit, rider clause id)
    conflicts: list[tuple[Hit, str]] = field(default_factory=list)  # (FAQ hit, clause whose answer stands)
    # an unsettled part: the policy passage above the threshold its reason points to, shown as a source that
    # settles nothing, so a refusal never says "not enough evidence" of terms that speak to the part
    consulted: list[Settled] = field(default_factory=list)


def row_of(index: RetrievalIndex, hit: Hit) -> Any:
    """The clause row a hit points at."""
    return index.clauses.rows[hit.clause_index]


def _pages(row: Any) -> str:
    """"page 4 (printed), PDF page 6" when the printed label differs; "pages 4-5" when it runs over."""
    physical = f"{row.page}-{row.page_end}" if row.page_end else str(row.page)
    if row.page_label and row.page_end:  # no printed label: the physical pages alone, never "None-7"
        printed = f"{row.page_label}-{row.page_end_label or row.page_end}"
    else:
        printed = row.page_label
    word = "pages" if row.page_end else "page"
    return f"{word} {printed} (printed), PDF {word} {physical}" if printed and printed != physical else f"{word} {physical}"


def cite(row: Any) -> str:
    where = []
    if row.article:
        where.append(f"article {row.article.split(' ', 1)[0]}")
    if row.page:
        where.append(_pages(row))
    where.append(row.version)
    return f"({', '.join(where)}; {row.clause_id})"
