"""Document readers: PDF, Word, HTML, Markdown and plain text into blocks, and blocks into clauses.

`read_files` picks a reader by suffix and continues page numbers across one version's files.
Readers own layout only: they never classify clauses and never touch the store.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from clauseguard.corpus.readers import docx, html, markdown, pdf, text
from clauseguard.corpus.readers.blocks import Block, ReadDocument
from clauseguard.corpus.readers.structure import DraftClause, Structure, is_chunk_section, structure
from clauseguard.errors import CorpusError, Problem

Reader = Callable[[Path], ReadDocument]

READERS: Final[dict[str, tuple[str, Reader]]] = {
    suffix: (module.NAME, module.read)
    for module in (pdf, docx, html, markdown, text)
    for suffix in module.SUFFIXES
}

__all__ = [
    "READERS", "Block", "DraftClause", "ReadDocument", "ReadFiles", "Structure", "is_chunk_section",
    "read_file", "read_files", "reader_for", "structure",
]


def reader_for(path: Path) -> tuple[str, Reader]:
    """The reader for a file's suffix, or CorpusError naming the suffixes that can be read."""
    found = READERS.get(path.suffix.lower())
    if found is None:
        known = ", ".join(sorted(READERS))
        raise CorpusError([Problem(str(path), "", f"cannot ingest a {path.suffix or 'suffix-less'} file; readable: {known}")])
    return found


def read_file(path: Path) -> ReadDocument:
    """One file read by the reader its suffix names; CorpusError if it is missing or unreadable."""
    if not path.is_file():
        raise CorpusError([Problem(str(path), "", "no such file")])
    _, reader = reader_for(path)
    return reader(path)


@dataclass(frozen=True)
class ReadFiles:
    """Several files read as one document: blocks in file order, physical pages continuing."""

    reader: str  # the reader names joined with "+" in file order, e.g. "pdf" or "pdf+docx"
    blocks: tuple[Block, ...]
    title: str | None
    pages: int


def read_files(paths: Sequence[Path]) -> ReadFiles:
    """Read the files of one version in the order given; the second file's first page follows the
    first file's last page, so every clause keeps one physical page number in the whole document."""
    blocks: list[Block] = []
    names: list[str] = []
    title: str | None = None
    offset = 0
    for path in paths:
        doc = read_file(path)
        blocks += [b.on_page(offset) for b in doc.blocks]
        offset += doc.pages
        if doc.reader not in names:
            names.append(doc.reader)
        title = title or doc.title
    return ReadFiles("+".join(names), tuple(blocks), title, offset)
