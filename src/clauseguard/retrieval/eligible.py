"""From the version rules' decision to the row masks retrieval takes: the only bridge between them.

`clauseguard.versions` decides which clauses a request may see; this turns that decision into the
boolean masks every backend applies before ranking. It never decides eligibility itself.
"""

from __future__ import annotations

import numpy as np

from clauseguard.retrieval.index import RetrievalIndex
from clauseguard.versions import Eligibility


def eligible_mask(index: RetrievalIndex, eligibility: Eligibility) -> np.ndarray:
    """True for exactly the clauses the request may retrieve."""
    return index.clauses.mask_of(eligibility.eligible)


def ineligible_mask(index: RetrievalIndex, eligibility: Eligibility) -> np.ndarray:
    """True for every other clause of the corpus: what the bounded `excluded` pass searches."""
    return ~eligible_mask(index, eligibility)
