"""Text with no structure cut into overlapping sentence chunks ("chunk 1", "chunk 2", ...): about
CHUNK_CHARS each, cut at sentence ends (the one splitter, clauseguard.text), lists kept with their
lead-in, each chunk opening with the last sentences of the one before.

It never drops or rewrites text; it is used only when a document has no headings at all.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

from clauseguard import text as toolkit
from clauseguard.corpus.readers.blocks import Block

CHUNK_CHARS: Final = 900
CHUNK_OVERLAP: Final = 200
_CHUNK_SECTION = re.compile(r"chunk \d+")


def chunk_section(n: int) -> str:
    """The section a fallback chunk carries ("chunk 3"): how a chunk is told apart in the corpus."""
    return f"chunk {n}"


def is_chunk_section(section: str) -> bool:
    return bool(_CHUNK_SECTION.fullmatch(section))


def sentences(text: str) -> list[str]:
    """The sentences of a text, from the one splitter (clauseguard.text)."""
    return [s.text for s in toolkit.sentences(text)]


@dataclass(frozen=True)
class Chunk:
    """One chunk: its text and the page its first piece is on."""

    text: str
    page: int | None
    page_label: str | None
    page_end: int | None
    page_end_label: str | None


@dataclass(frozen=True)
class _Piece:
    text: str
    block: int
    page: int | None
    page_label: str | None


def _wrap(text: str, size: int) -> list[str]:
    """A sentence longer than a chunk, cut at word boundaries."""
    words, out, line = text.split(), [], ""
    for w in words:
        if line and len(line) + 1 + len(w) > size:
            out.append(line)
            line = w
        else:
            line = f"{line} {w}" if line else w
    return [*out, line] if line else out


Groups = Callable[[Sequence[Block]], list[tuple[Block, list[str]]]]


def _pieces(blocks: Sequence[Block], groups: Groups) -> list[_Piece]:
    pieces: list[_Piece] = []
    for i, (first, lines) in enumerate(groups(blocks)):
        if first.kind == "table" or len(lines) > 1:  # a list with its lead-in, a table: kept whole
            pieces.append(_Piece("\n".join(lines), i, first.page, first.page_label))
            continue
        for s in sentences(lines[0]):
            pieces.extend(_Piece(part, i, first.page, first.page_label) for part in _wrap(s, CHUNK_CHARS))
    return pieces


def _join(pieces: Sequence[_Piece]) -> str:
    text = ""
    for k, p in enumerate(pieces):
        if k:
            text += " " if p.block == pieces[k - 1].block else "\n"
        text += p.text
    return text


def chunk_pieces(
    blocks: Sequence[Block], groups: Groups, size: int = CHUNK_CHARS, overlap: int = CHUNK_OVERLAP
) -> list[Chunk]:
    """About `size` characters per chunk, cut at sentence ends, each starting with the last
    sentences (up to `overlap` characters) of the one before; `groups` keeps lists whole."""
    pieces = _pieces(blocks, groups)
    chunks: list[list[_Piece]] = []
    current: list[_Piece] = []
    fresh = False  # whether `current` holds anything beyond the overlap it started with
    i = 0
    while i < len(pieces):
        piece = pieces[i]
        length = len(_join(current))
        if current and fresh and length + 1 + len(piece.text) > size:
            chunks.append(current)
            tail: list[_Piece] = []
            for p in reversed(current):
                if len(_join([p, *tail])) > overlap:
                    break
                tail.insert(0, p)
            if len(_join(tail)) + 1 + len(piece.text) > size:
                tail = []
            current, fresh = tail, False
            continue
        current.append(piece)
        fresh = True
        i += 1
    if current and fresh:
        chunks.append(current)
    out = []
    for chunk in chunks:
        first, last = chunk[0], chunk[-1]
        end = last.page if last.page is not None and last.page != first.page else None
        out.append(Chunk(_join(chunk), first.page, first.page_label, end, last.page_label if end else None))
    return out
