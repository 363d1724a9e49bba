"""Where a position of a narrative falls: its sentence, the tokens of a stretch, the concept named at a
point, found by binary search over spans that are sorted and never overlap.

The reader asks these questions once per mention or value; a scan of the whole text per question
made a long narrative cost the square of its length. It never changes what is found, only how fast.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence

from clauseguard.reading.lexicon import Token


class SpanIndex:
    """Sorted, non-overlapping (start, end) spans and the one holding a position."""

    def __init__(self, spans: Sequence[tuple[int, int]]) -> None:
        self.spans = spans
        self._starts = [s for s, _ in spans]

    def sentence_of(self, pos: int) -> tuple[int, int]:
        """The first span with start <= pos < end, or ending at pos (a stop right after it); else (pos, pos)."""
        i = bisect_right(self._starts, pos) - 1
        for k in (i - 1, i):  # a span ending exactly at pos may be the one before the span holding it
            if 0 <= k < len(self.spans):
                start, end = self.spans[k]
                if start <= pos < end or (pos == end and start < end):
                    return start, end
        return pos, pos

    def holding(self, pos: int) -> tuple[int, int] | None:
        """The span with start <= pos < end, if any."""
        i = bisect_right(self._starts, pos) - 1
        return self.spans[i] if i >= 0 and pos < self.spans[i][1] else None

    def holds(self, pos: int) -> bool:
        return self.holding(pos) is not None


class TokenIndex:
    """The tokens of a text, in order, and those lying wholly inside a stretch."""

    def __init__(self, tokens: Sequence[Token]) -> None:
        self.tokens = tokens
        self._starts = [t.start for t in tokens]
        self._ends = [t.end for t in tokens]

    def inside(self, left: int, right: int) -> list[Token]:
        """Tokens with left <= start and end <= right, in order (tokens never overlap, so ends are sorted)."""
        return list(self.tokens[bisect_left(self._starts, left):bisect_right(self._ends, right)])
