"""What the page and the API show of a clause's criteria: its text with the span of every rule,
criterion, reference and note, the stretches no one reads, the tree in plain words, and who reads it
(the compiler, the corpus's own criteria, or revision R of NAME); and a clause's revision history.
It reads; it never writes to a store.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from clauseguard.authoring.check import nodes_with_paths
from clauseguard.authoring.draft import current_reading
from clauseguard.authoring.plain import criteria_words, node_words
from clauseguard.authoring.revisions import Revision, open_log
from clauseguard.corpus.criteria import Atom, Criteria, Ref, Span
from clauseguard.corpus.model import Clause, Corpus
from clauseguard.errors import NotFoundError
from clauseguard.reading.grammar import Refusal
from clauseguard.reading.lexicon import Lexicon, default_lexicon
from clauseguard.responses import ReadBy


def find_clause(corpus: Corpus, clause_id: str) -> tuple[str, str, Clause]:
    for d in corpus.documents:
        for v in d.versions:
            for c in v.clauses:
                if c.id == clause_id:
                    return d.id, v.version, c
    raise NotFoundError("clause", clause_id, "clause ids look like DOCUMENT.VERSION.C2")


def read_by(clause: Clause, revision: Revision | None) -> ReadBy:
    if revision is not None:
        return ReadBy(source="revision", revision_id=revision.id, author=revision.author,
                      approved_by=revision.approved_by)
    return ReadBy(source="corpus" if clause.criteria is not None else "compiler")


def _spans(criteria: Criteria) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []

    def add(span: Span, kind: str, label: str) -> None:
        out.append({"start": span.start, "end": span.end, "kind": kind, "label": label})

    for rule in criteria.rules:
        add(rule.span, "rule", rule.effect.replace("_", " "))
    for _, node in nodes_with_paths(criteria):
        if isinstance(node, Ref):
            add(node.span, "reference", node_words(node))
        elif isinstance(node, Atom):
            add(node.span, "subject" if node.kind == "service" else "criterion", node.label)
    for d in criteria.designations:
        add(d.span, "rule", f"designated {d.designation}")
    for a in criteria.amendments:
        add(a.span, "rule", f"amends: {a.action} {a.requirement}")
    for n in criteria.notes:
        add(n.span, "note", n.kind)
    return sorted(out, key=lambda s: (s["start"], -s["end"], s["kind"]))


def clause_view(corpus: Corpus, clause_id: str, revisions: Mapping[str, Revision],
                lexicon: Lexicon | None = None) -> dict[str, Any]:
    """`{clause_id, document_id, version, text, role, deciding, read_by, spans, unread, plain}`."""
    document_id, version, clause = find_clause(corpus, clause_id)
    reading = current_reading(clause, lexicon or default_lexicon(), revisions)
    refusal = reading.result if isinstance(reading.result, Refusal) else None
    tree = refusal.partial if refusal is not None else reading.result
    return {
        "clause_id": clause.id, "document_id": document_id, "version": version, "text": clause.text,
        "role": reading.role, "deciding": reading.deciding,
        "read_by": read_by(clause, reading.revision).as_json(),
        "spans": _spans(tree) if isinstance(tree, Criteria) else [],
        "unread": [{"start": u.span.start, "end": u.span.end, "reason": u.reason}
                   for u in (refusal.unread if refusal is not None and reading.deciding else ())],
        "plain": criteria_words(tree) if isinstance(tree, Criteria) and reading.deciding else [],
    }


def clause_log(opened: Any, clause_id: str) -> dict[str, Any]:
    """A clause's revisions, oldest first, and who reads it now (the newest approved revision)."""
    _, _, clause = find_clause(opened.corpus, clause_id)
    log = open_log(opened.store)
    history: list[Revision] = []
    active = None
    if log is not None:
        with log:
            history = log.history(clause_id)
            active = log.active().get(clause_id)
    return {"clause_id": clause_id, "read_by": read_by(clause, active).words,
            "active_revision": active.id if active is not None else None,
            "revisions": [r.summary() for r in history]}
