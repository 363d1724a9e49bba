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
from clauseguard.corpus.readers.blocks import Block, PageProgress, ReadDocument, ReadReport
from clauseguard.corpus.readers.structure import DraftClause, Structure, is_chunk_section, structure
from clauseguard.errors import CorpusError, Problem

Reader = Callable[..., ReadDocument]  # read(path, on_page=None)

READERS: Final[dict[str, tuple[str, Reader]]] = {
    suffix: (module.NAME, module.read)
    for module in (pdf, docx, html, markdown, text)
    for suffix in module.SUFFIXES
}

__all__ = [
    "READERS", "Block", "DraftClause", "FileRead", "ReadDocument", "ReadFiles", "ReadReport", "Structure",
    "is_chunk_section", "read_file", "read_files", "reader_for", "structure",
]


def reader_for(path: Path) -> tuple[str, Reader]:
    """The reader for a file's suffix, or CorpusError naming the suffixes that can be read."""
    found = READERS.get(path.suffix.lower())
    if found is None:
        known = ", ".join(sorted(READERS))
        raise CorpusError([Problem(str(path), "", f"cannot ingest a {path.suffix or 'suffix-less'} file; readable: {known}")])
    return found


def read_file(path: Path, on_page: PageProgress | None = None) -> ReadDocument:
    """One file read by the reader its suffix names; CorpusError if it is missing, empty or unreadable."""
    if not path.is_file():
        raise CorpusError([Problem(str(path), "", "no such file")])
    name, reader = reader_for(path)
    if path.stat().st_size == 0:
        raise CorpusError([Problem(str(path), "", f"is empty (0 bytes); give the complete {name.upper()} file")])
    return reader(path, on_page=on_page)


@dataclass(frozen=True)
class FileRead:
    """One file of a version as read: its reader, pages and report (the first page's number in the whole)."""

    path: Path
    reader: str
    pages: int
    first_page: int
    report: ReadReport


@dataclass(frozen=True)
class ReadFiles:
    """Several files read as one document: blocks in file order, physical pages continuing."""

    reader: str  # the reader names joined with "+" in file order, e.g. "pdf" or "pdf+docx"
    blocks: tuple[Block, ...]
    title: str | None
    pages: int
    files: tuple[FileRead, ...] = ()
    marks_title: bool = False  # every file's reader marks its title itself (see structure's guess_title)


def read_files(
    paths: Sequence[Path], on_file: Callable[[Path], None] | None = None, on_page: PageProgress | None = None
) -> ReadFiles:
    """Read the files of one version in the order given; the second file's first page follows the
    first file's last page, so every clause keeps one physical page number in the whole document.
    `on_file` is told of each file before it is read, `on_page` of each page read (a progress bar)."""
    blocks: list[Block] = []
    names: list[str] = []
    files: list[FileRead] = []
    title: str | None = None
    offset = 0
    for path in paths:
        if on_file is not None:
            on_file(path)
        doc = read_file(path, on_page)
        blocks += [b.on_page(offset) for b in doc.blocks]
        files.append(FileRead(path, doc.reader, doc.pages, offset + 1, doc.report))
        offset += doc.pages
        if doc.reader not in names:
            names.append(doc.reader)
        title = title or doc.title
    marks = bool(paths) and all(READERS[p.suffix.lower()][0] == pdf.NAME for p in paths)
    return ReadFiles("+".join(names), tuple(blocks), title, offset, tuple(files), marks)
