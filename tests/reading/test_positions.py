"""The reader's position indexes answer exactly as the scans of the whole text they replaced."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from clauseguard.reading.facts import _Reader
from clauseguard.reading.lexicon import tokenize
from clauseguard.reading.positions import SpanIndex, TokenIndex

TEXT = st.text(alphabet=st.sampled_from("ab .,;!?\n1-"), max_size=120)


def scanned_sentence(spans: list[tuple[int, int]], pos: int) -> tuple[int, int]:
    for start, end in spans:
        if start <= pos < end or (pos == end and start < end):
            return start, end
    return pos, pos


@settings(max_examples=300, deadline=None)
@given(TEXT, st.integers(min_value=-2, max_value=125))
def test_the_sentence_of_a_position_is_the_scanned_one(text: str, pos: int) -> None:
    spans = _Reader._sentences(text)
    index = SpanIndex(spans)
    assert index.sentence_of(pos) == scanned_sentence(spans, pos)
    assert index.holding(pos) == next(((a, b) for a, b in spans if a <= pos < b), None)


@settings(max_examples=300, deadline=None)
@given(TEXT, st.integers(min_value=-2, max_value=125), st.integers(min_value=-2, max_value=125))
def test_the_tokens_inside_a_stretch_are_the_scanned_ones(text: str, left: int, right: int) -> None:
    tokens = tokenize(text)
    assert TokenIndex(tokens).inside(left, right) == [t for t in tokens if left <= t.start and t.end <= right]
