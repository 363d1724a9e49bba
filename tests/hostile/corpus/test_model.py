"""NUL, control and zero-width characters are refused in ids and clause text, naming the key path."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from clauseguard.corpus.loader import parse_v1
from clauseguard.errors import CorpusError

INVISIBLE = ["\x00", "\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u202e", "\x1b"]


def corpus(clause_id: str = "D.v1.C1", text: str = "Covered when medically necessary.") -> dict[str, Any]:
    return {"format": "clauseguard.corpus/v1", "payers": [{"id": "P", "name": "P"}], "documents": [
        {"id": "D", "payer": "P", "kind": "faq", "title": "T", "versions": [
            {"version": "v1", "effective_start": "2024-01-01",
             "clauses": [{"id": clause_id, "section": "S", "text": text}]}]}]}


@pytest.mark.parametrize("char", INVISIBLE, ids=lambda c: f"U+{ord(c):04X}")
def test_invisible_characters_are_refused_in_clause_ids(char: str) -> None:
    with pytest.raises(CorpusError, match=r"documents\[0\]\.versions\[0\]\.clauses\[0\]\.id.*invisible"):
        parse_v1("c.yaml", corpus(clause_id=f"D.v1{char}.C1"))


@pytest.mark.parametrize("char", INVISIBLE, ids=lambda c: f"U+{ord(c):04X}")
def test_invisible_characters_are_refused_in_clause_text(char: str) -> None:
    with pytest.raises(CorpusError, match=r"clauses\[0\]\.text.*invisible"):
        parse_v1("c.yaml", corpus(text=f"Covered{char} when medically necessary."))


def test_tabs_and_line_breaks_stay_allowed_in_text() -> None:
    parse_v1("c.yaml", corpus(text="Covered when:\n\t(a) medically necessary;\r\n\t(b) ordered."))


@given(st.text(alphabet=st.characters(categories=["Cc", "Cf"], exclude_characters="\t\n\r\u00ad"), min_size=1, max_size=3))
def test_ids_never_hold_control_or_format_characters(junk: str) -> None:
    bad = {"\x00", "\x7f", *(chr(c) for c in range(0x20)), *map(chr, range(0x200B, 0x2010)),
           *map(chr, range(0x202A, 0x202F)), *map(chr, range(0x2060, 0x2065)), *map(chr, range(0x2066, 0x206A)), "\ufeff"}
    if not set(junk) & bad:
        return
    with pytest.raises(CorpusError):
        parse_v1("c.yaml", corpus(clause_id=f"D.v1.{junk}C1"))
