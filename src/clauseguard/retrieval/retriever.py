"""The seam every ranking backend implements: score the rows under a mask, and only those.

A backend returns candidates, never a decision; it must not return a row whose mask entry is False.
"""

from __future__ import annotations

from typing import NamedTuple, Protocol, runtime_checkable

import numpy as np


class Scored(NamedTuple):
    """Rows (sorted, all under the mask) and their backend scores, unordered by score."""

    indices: np.ndarray  # int64
    scores: np.ndarray  # float64


@runtime_checkable
class Retriever(Protocol):
    """A ranking backend over one clause table (BM25, dense, ...)."""

    @property
    def name(self) -> str: ...

    def search(self, query: str, mask: np.ndarray) -> Scored:
        """Score the rows where `mask` is True for `query`; rows outside the mask are never returned."""
        ...
