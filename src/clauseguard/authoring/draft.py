"""`criteria draft`: the sheet an analyst starts from, for one document (or one version of it).

For every deciding clause it writes the tree it is read with today (an approved revision, the
corpus's own criteria, or the compiler's) and, where the compiler cannot read the clause, a hole per
unread stretch with the compiler's reason; every other clause is listed with its role so a wrong
role can be corrected. It reads and renders; it never writes to a store.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from clauseguard.authoring.plain import criteria_words
from clauseguard.authoring.revisions import DECIDING_ROLES, Revision, clause_sha256
from clauseguard.authoring.sheet import FORMAT, offsets_only
from clauseguard.corpus.criteria import Criteria, criteria_from_json, criteria_to_json
from clauseguard.corpus.model import Clause, Corpus, Document, Version
from clauseguard.errors import NotFoundError
from clauseguard.reading.grammar import Refusal, read_clause
from clauseguard.reading.lexicon import Lexicon, default_lexicon
from clauseguard.reading.roles import ROLE_OF_KIND, clause_headings


@dataclass(frozen=True)
class Reading:
    """How a clause is read today: its role, its criteria or refusal, and by whom."""

    role: str
    result: Criteria | Refusal
    read_by: str  # "compiler", "corpus" or "revision <id>"
    revision: Revision | None = None

    @property
    def deciding(self) -> bool:
        return self.role in DECIDING_ROLES


def compiler_reading(clause: Clause, lexicon: Lexicon) -> Reading:
    """The rule compiler's own reading (the corpus's criteria, when it gives them, stand in for it)."""
    if clause.criteria is not None:
        role = ROLE_OF_KIND.get(clause.kind or "other") or "criteria"
        return Reading(role, criteria_from_json(clause.criteria, clause.text), "corpus")
    read = read_clause(clause.text, clause.kind, lexicon, clause_headings(clause))
    return Reading(read.role, read.result, "compiler")


def current_reading(clause: Clause, lexicon: Lexicon, revisions: Mapping[str, Revision]) -> Reading:
    """The reading answers use: an approved revision first, else the corpus's criteria, else the compiler."""
    revision = revisions.get(clause.id)
    if revision is not None:
        return Reading(revision.role, revision.read(clause.text), f"revision {revision.id}", revision)
    return compiler_reading(clause, lexicon)


def find_document(corpus: Corpus, document_id: str) -> Document:
    doc = next((d for d in corpus.documents if d.id == document_id), None)
    if doc is None:
        known = ", ".join(d.id for d in corpus.documents[:20])
        raise NotFoundError("document", document_id, f"documents of this corpus: {known}")
    return doc


def versions_of(doc: Document, version: str | None) -> list[Version]:
    if version is None:
        return list(doc.versions)
    found = [v for v in doc.versions if v.version == version]
    if not found:
        raise NotFoundError("version", version, f"versions of {doc.id}: {', '.join(v.version for v in doc.versions)}")
    return found


def _entry(clause: Clause, reading: Reading, *, with_text: bool, offsets: bool) -> dict[str, Any]:
    entry: dict[str, Any] = {"id": clause.id, "role": reading.role}
    refusal = reading.result if isinstance(reading.result, Refusal) else None
    entry["read_by"] = "hole" if refusal is not None and reading.deciding else reading.read_by
    entry["text_sha256"] = clause_sha256(clause.text)
    if with_text:
        entry["text"] = clause.text
    if not reading.deciding:
        return entry
    tree = refusal.partial if refusal is not None else reading.result
    if refusal is not None:
        entry["holes"] = [
            {"span": {"start": u.span.start, "end": u.span.end} if offsets
             else {"start": u.span.start, "end": u.span.end, "text": u.span.text}, "reason": u.reason}
            for u in refusal.unread
        ]
    if isinstance(tree, Criteria):
        data = criteria_to_json(tree)
        data.pop("schema", None)
        entry["criteria"] = offsets_only(data) if offsets else data
        if not offsets:  # the words of a note quote the clause
            entry["plain"] = criteria_words(tree)
    else:
        entry["criteria"] = None
    return entry


def draft_sheet(
    corpus: Corpus, document_id: str, version: str | None = None, *, lexicon: Lexicon | None = None,
    revisions: Mapping[str, Revision] | None = None, with_text: bool = True, offsets: bool = False,
) -> dict[str, Any]:
    """The sheet as plain data, clauses in document order (deterministic for the same corpus)."""
    lex = lexicon or default_lexicon()
    doc = find_document(corpus, document_id)
    entries = []
    for v in versions_of(doc, version):
        for clause in v.clauses:
            entries.append(_entry(clause, current_reading(clause, lex, revisions or {}), with_text=with_text,
                                  offsets=offsets))
    data: dict[str, Any] = {"format": FORMAT, "document": doc.id}
    if version is not None:
        data["version"] = version
    data["corpus_fingerprint"] = corpus.fingerprint()
    data["clauses"] = entries
    return data


DRAFT_HEADER = """\
# clauseguard criteria sheet: edit `criteria` (the corpus criteria format), fill every hole and delete it,
# correct a `role` (with a `reason` when a clause decides nothing); then `clauseguard criteria check FILE`.
# `plain` is the tree in words, rewritten by every check; `read_by` says what the draft found.
"""
