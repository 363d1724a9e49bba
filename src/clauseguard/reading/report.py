"""The reading report: for every clause its role, whether the compiler reads it whole, the unread
span and why, and the compile rate per document and role — what an analyst runs before a policy goes
live, and what criteria authoring starts from. It reads; it never judges a request.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from clauseguard.corpus.model import Corpus
from clauseguard.reading.grammar import Read, Refusal, read_clause
from clauseguard.reading.lexicon import Lexicon, default_lexicon
from clauseguard.reading.roles import clause_headings


def _row(clause_id: str, read: Read, authored: bool) -> dict[str, Any]:
    refusal = read.result if isinstance(read.result, Refusal) else None
    first = refusal.unread[0] if refusal is not None and refusal.unread else None
    return {
        "id": clause_id, "role": read.role, "deciding": read.deciding,
        "compiled": read.deciding and refusal is None, "authored": authored,
        "unread_span": first.span.text if first is not None else None,
        "reason": first.reason if first is not None else None,
        "unread": [{"span": u.span.text, "start": u.span.start, "end": u.span.end, "reason": u.reason}
                   for u in (refusal.unread if refusal is not None else ())],
    }


def _rate(rows: list[dict[str, Any]]) -> dict[str, Any]:
    deciding = [r for r in rows if r["deciding"]]
    compiled = sum(1 for r in deciding if r["compiled"])
    return {"clauses": len(rows), "deciding": len(deciding), "compiled_deciding": compiled,
            "compile_rate": round(compiled / len(deciding), 4) if deciding else None}


def reading_report(corpus: Corpus, lexicon: Lexicon | None = None) -> dict[str, Any]:
    """`{"summary", "documents", "clauses"}`: compile_rate is compiled deciding / deciding clauses."""
    lex = lexicon or default_lexicon()
    rows: list[dict[str, Any]] = []
    documents = []
    for doc in corpus.documents:
        doc_rows = []
        for version in doc.versions:
            for clause in version.clauses:
                if clause.criteria is not None:  # policy-as-code: read as authored, counted as compiled
                    from clauseguard.corpus.criteria import criteria_from_json
                    from clauseguard.reading.roles import ROLE_OF_KIND

                    role = ROLE_OF_KIND.get(clause.kind or "other") or "criteria"
                    read = Read(role, criteria_from_json(clause.criteria, clause.text))
                    row = _row(clause.id, read, True)
                else:
                    row = _row(clause.id, read_clause(clause.text, clause.kind, lex, clause_headings(clause)), False)
                row.update({"document_id": doc.id, "version": version.version})
                doc_rows.append(row)
        rows.extend(doc_rows)
        by_role = Counter(r["role"] for r in doc_rows)
        documents.append({"id": doc.id, "title": doc.title, **_rate(doc_rows), "roles": dict(sorted(by_role.items()))})
    return {"summary": _rate(rows), "documents": documents, "clauses": rows}
