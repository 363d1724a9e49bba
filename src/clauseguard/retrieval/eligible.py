"""From the version rules' decision to the row masks retrieval takes: the only bridge between them.

`clauseguard.versions` decides which clauses a request may see; this turns that decision into the
boolean masks every backend applies before ranking. It never decides eligibility itself.
"""

from __future__ import annotations

import numpy as np

from clauseguard.retrieval.index import RetrievalIndex
from clauseguard.versions import Eligibility


def eligible_mask(index: RetrievalIndex, eligibility: Eligibility) -> np.ndarray:
    """True for exactly the clauses the request may retrieve: the rows of each document's governing
    version, for the documents the version rules let through (one slice per document, since a
    version's clauses are contiguous rows)."""
    mask = np.zeros(index.size, dtype=bool)
    for ref in eligibility.decided.governing:
        span = index.clauses.version_rows.get((ref.document_id, ref.version))
        if span is not None:
            mask[span[0] : span[1]] = True
    return mask


def ineligible_mask(index: RetrievalIndex, eligibility: Eligibility) -> np.ndarray:
    """True for every other clause of the corpus: what the bounded `excluded` pass searches."""
    return ~eligible_mask(index, eligibility)
