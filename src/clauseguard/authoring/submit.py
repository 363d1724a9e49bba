"""`criteria add`: a checked sheet written as criteria revisions, all of them or none.

Only what changes the reading is written: an entry that says what the compiler (or the corpus's own
criteria) already reads, or what the clause's newest revision already says, writes nothing. A sheet
with any problem writes nothing at all.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from clauseguard.authoring.check import CheckReport, check_sheet
from clauseguard.authoring.revisions import RevisionLog, active_revisions, revision_log
from clauseguard.authoring.sheet import load_sheet
from clauseguard.errors import CorpusError, Problem, RequestError

Status = Literal["added", "already recorded", "unchanged", "read by the compiler"]


@dataclass(frozen=True)
class Added:
    clause_id: str
    status: Status
    revision_id: str | None = None

    def as_json(self) -> dict[str, Any]:
        return {"clause_id": self.clause_id, "status": self.status, "revision_id": self.revision_id}


def add_checked(report: CheckReport, log: RevisionLog, *, author: str, note: str) -> list[Added]:
    """One revision per entry whose reading changes; RequestError (nothing written) if the check failed."""
    if not report.ok:
        raise RequestError("file", f"the sheet has {len(report.problems)} problem(s); `clauseguard criteria check "
                                   "FILE` lists them, and nothing is written until there are none")
    out: list[Added] = []
    with log.atomic():
        for e in report.entries:
            newest = log.newest(e.clause.id)
            data = e.data if e.deciding and e.data is not None else {"notes": []}
            if newest is None and e.same_as_compiler():
                out.append(Added(e.clause.id, "read by the compiler"))
                continue
            if newest is not None and newest.role == e.role and newest.criteria == data:
                out.append(Added(e.clause.id, "unchanged", newest.id))
                continue
            note_text = note if e.deciding or not e.entry.reason else f"{note} ({e.entry.reason})"
            revision, written = log.add(e.clause.id, e.clause.text, e.role, data, author, note_text)
            out.append(Added(e.clause.id, "added" if written else "already recorded", revision.id))
    return out


def apply_reviewed_sheet(opened: Any, path: Path, *, author: str, approved_by: str, note: str) -> list[Added]:
    """A suite's reviewed sheet, written into the store it is evaluated on (a throwaway one): added under
    its recorded author and approved by its recorded reviewer, four eyes as always (the store refuses
    the author's own approval). What `criteria add` then `criteria approve` do, in one call."""
    report = check_sheet(load_sheet(path), opened.corpus, revisions=active_revisions(opened.store))
    if not report.ok:
        raise CorpusError([Problem(str(path), p.path, f"{p.clause_id}: {p.message}") for p in report.problems])
    with revision_log(opened.store) as log:
        added = add_checked(report, log, author=author, note=note)
        for a in added:
            if a.revision_id is not None:
                log.approve(a.revision_id, approved_by)
    return added
