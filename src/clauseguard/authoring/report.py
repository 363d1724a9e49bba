"""The reading report with the criteria revisions in use: for every clause who reads it (the compiler,
the corpus's own criteria, or revision R of NAME), and, where both a revision and the compiler read it,
whether their trees disagree on any generated case shape.

It extends `reading.report.reading_report` (the compiler's own figures stay as they are) and adds
`read_deciding` / `read_rate`: deciding clauses read whole by the compiler or by a revision.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from clauseguard.authoring.disagreement import disagreement
from clauseguard.authoring.draft import compiler_reading
from clauseguard.authoring.revisions import Revision
from clauseguard.corpus.criteria import Criteria
from clauseguard.corpus.model import Corpus
from clauseguard.reading.lexicon import Lexicon, default_lexicon
from clauseguard.reading.report import reading_report


def _rate(rows: list[dict[str, Any]]) -> dict[str, Any]:
    deciding = [r for r in rows if r["deciding"]]
    read = sum(1 for r in deciding if r["compiled"] or r["revision"] is not None)
    return {"read_deciding": read, "read_rate": round(read / len(deciding), 4) if deciding else None,
            "authored": sum(1 for r in rows if r["revision"] is not None),
            "disagreeing": sum(1 for r in rows if r["disagreement"] and r["disagreement"]["disagreeing"])}


def authored_report(corpus: Corpus, revisions: Mapping[str, Revision], lexicon: Lexicon | None = None) -> dict[str, Any]:
    """`reading_report` plus, per clause, `read_by`, `revision` and `disagreement` (None when only one
    side reads the clause); the summary and each document gain read_deciding, read_rate, authored and
    disagreeing."""
    lex = lexicon or default_lexicon()
    report = reading_report(corpus, lex)
    clauses = {c.id: (v, c) for d in corpus.documents for v in d.versions for c in v.clauses}
    for row in report["clauses"]:
        version, clause = clauses[row["id"]]
        revision = revisions.get(clause.id)
        row["revision"] = None
        row["read_by"] = "corpus" if row.get("authored") else "compiler"
        row["disagreement"] = None
        if revision is None:
            continue
        row.update({"revision": revision.id, "read_by": f"revision {revision.id} of {revision.author}",
                    "revision_role": revision.role, "approved_by": revision.approved_by})
        mine = revision.read(clause.text)
        theirs = compiler_reading(clause, lex)
        if not revision.deciding or not theirs.deciding or not isinstance(theirs.result, Criteria) \
                or theirs.result.empty:
            continue  # only one side reads the clause as deciding: nothing to compare
        siblings = []
        for other in version.clauses:
            if other.id == clause.id:
                continue
            other_revision = revisions.get(other.id)
            result = other_revision.read(other.text) if other_revision else compiler_reading(other, lex).result
            if isinstance(result, Criteria):
                siblings.append((other.id, result))
        row["disagreement"] = disagreement(clause.id, theirs.result, mine, lexicon=lex, siblings=siblings).as_json()
    report["summary"].update(_rate(report["clauses"]))
    for doc in report["documents"]:
        doc.update(_rate([r for r in report["clauses"] if r["document_id"] == doc["id"]]))
    return report
