"""The clauses of one corpus laid out as rows: what every backend indexes and every hit points at.

Rows follow the normalised corpus (documents by id, versions by start, clauses in the document's
order), so one version's clauses are contiguous. It copies what the corpus says and never decides
eligibility: that is `clauseguard.versions`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from clauseguard.corpus.model import Corpus
from clauseguard.retrieval.tokens import article_number, code_references


class ClauseRow(NamedTuple):
    """One clause as retrieval sees it, with where it lives."""

    row: int
    clause_id: str
    document_id: str
    document_title: str
    version: str
    section: str
    article: str | None
    article_number: str | None
    page: int | None
    kind: str | None
    coverage_type: str | None
    text: str
    codes: tuple[str, ...]  # codes the clause text names, sorted
    document_codes: tuple[str, ...]  # codes the clause's document governs, sorted
    page_label: str | None = None  # as printed; page_end / page_end_label when the clause runs over
    page_end: int | None = None
    page_end_label: str | None = None


@dataclass(frozen=True, eq=False)
class ClauseTable:
    """All clauses of a corpus in a fixed order, plus the arrays the rankers need."""

    rows: tuple[ClauseRow, ...]
    id_order: np.ndarray  # int64: position of each row when rows are sorted by clause id
    positions: Mapping[str, int]  # clause id -> row
    version_rows: Mapping[tuple[str, str], tuple[int, int]]  # (document, version) -> [start, stop)

    @classmethod
    def from_corpus(cls, corpus: Corpus) -> ClauseTable:
        rows: list[ClauseRow] = []
        for doc in corpus.normalised().documents:
            doc_codes = tuple(sorted(set(doc.codes)))
            for version in doc.versions:
                for clause in version.clauses:
                    rows.append(
                        ClauseRow(
                            row=len(rows),
                            clause_id=clause.id,
                            document_id=doc.id,
                            document_title=doc.title,
                            version=version.version,
                            section=clause.section,
                            article=clause.article,
                            article_number=article_number(clause.article),
                            page=clause.page,
                            kind=clause.kind,
                            coverage_type=clause.coverage_type,
                            text=clause.text,
                            codes=code_references(clause.text),
                            document_codes=doc_codes,
                            page_label=clause.page_label,
                            page_end=clause.page_end,
                            page_end_label=clause.page_end_label,
                        )
                    )
        ids = [r.clause_id for r in rows]
        by_id = sorted(range(len(ids)), key=ids.__getitem__)
        id_order = np.empty(len(ids), dtype=np.int64)
        id_order[np.asarray(by_id, dtype=np.int64)] = np.arange(len(ids), dtype=np.int64)
        version_rows: dict[tuple[str, str], tuple[int, int]] = {}
        for r in rows:
            start, _ = version_rows.get((r.document_id, r.version), (r.row, r.row))
            version_rows[(r.document_id, r.version)] = (start, r.row + 1)
        return cls(
            rows=tuple(rows),
            id_order=id_order,
            positions={cid: i for i, cid in enumerate(ids)},
            version_rows=version_rows,
        )

    def __len__(self) -> int:
        return len(self.rows)

    def position(self, clause_id: str) -> int:
        """The row of a clause id; KeyError when the corpus has no such clause."""
        return self.positions[clause_id]

    def mask_of(self, clause_ids: Iterable[str]) -> np.ndarray:
        """A boolean row mask that is True exactly for the given clause ids (all must exist)."""
        mask = np.zeros(len(self.rows), dtype=bool)
        for cid in clause_ids:
            mask[self.position(cid)] = True
        return mask

    def ids_of(self, mask: np.ndarray) -> list[str]:
        return [self.rows[i].clause_id for i in np.flatnonzero(mask)]


def lexical_text(row: ClauseRow) -> str:
    """What BM25 indexes for a clause: its article heading, section heading and text."""
    return " ".join(part for part in (row.article or "", row.section, row.text) if part)


def dense_text(row: ClauseRow) -> str:
    """What the embedder reads for a clause: the article heading and the text."""
    return f"{row.article}. {row.text}" if row.article else row.text


def title_text(row: ClauseRow) -> str:
    """The document-level field: the title and the codes it governs."""
    return " ".join((row.document_title, *row.document_codes))


def sort_by_score(indices: np.ndarray, scores: np.ndarray, id_order: np.ndarray) -> np.ndarray:
    """Row indices ordered by (-score, clause id): the one tie-break every ranking uses."""
    if len(indices) == 0:
        return indices
    order = np.lexsort((id_order[indices], -scores))
    return indices[order]


def top_k(indices: np.ndarray, scores: np.ndarray, id_order: np.ndarray, k: int) -> np.ndarray:
    """The k best of the given rows by (-score, clause id), without sorting the whole candidate set."""
    if k <= 0 or len(indices) == 0:
        return indices[:0]
    if len(indices) > 4 * k:
        # Keep every row tied with the k-th score so the clause-id tie-break stays exact.
        kth = np.partition(-scores, k - 1)[k - 1]
        keep = -scores <= kth
        indices, scores = indices[keep], scores[keep]
    return sort_by_score(indices, scores, id_order)[:k]


def check_mask(mask: np.ndarray, size: int, what: str = "eligible_mask") -> np.ndarray:
    """A mask must be a boolean row mask of this corpus: anything else is a programming error."""
    if not isinstance(mask, np.ndarray) or mask.dtype != np.bool_ or mask.shape != (size,):
        shape = getattr(mask, "shape", None)
        dtype = getattr(mask, "dtype", type(mask).__name__)
        raise ValueError(
            f"{what} must be a numpy bool array of shape ({size},) (one entry per clause of the index); "
            f"got dtype {dtype}, shape {shape}"
        )
    return mask
