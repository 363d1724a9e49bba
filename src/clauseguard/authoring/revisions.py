"""Criteria revisions: an analyst's criteria for one clause, append-only, approved by a second person.

A revision is content-addressed: its id is the hash of what it says (clause, clause text, role,
criteria, author, note), and its row's `content_hash` covers every column, so a row changed behind
the store's back no longer matches either. Rows are never updated or deleted (the store's triggers
refuse it); approval is a row of its own, refused for the revision's author (four eyes). The newest
approved revision of a clause is the one the reader uses. This module never judges a request.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

from clauseguard.authoring.revision_db import Clock, RevisionDb, SqliteRevisions, revisions_db, store_file
from clauseguard.corpus.criteria import Criteria, Note, Span, criteria_from_json
from clauseguard.errors import CorpusError, NotFoundError, Problem, RequestError

DECIDING_ROLES: Final = frozenset({"criteria", "limitation", "exclusion"})
ROLES: Final[tuple[str, ...]] = ("criteria", "limitation", "exclusion", "administrative", "definition",
                                 "framing", "reference")
MAX_NAME: Final = 200
MAX_NOTE: Final = 2000


def canonical(data: Any) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def clause_sha256(text: str) -> str:
    """The hash of a clause's text a revision was written against (the text itself is never copied)."""
    return sha256(text)


def person(value: str) -> str:
    """A name as compared for four eyes: case and spacing do not make another person."""
    return " ".join(value.split()).casefold()


@dataclass(frozen=True)
class Approval:
    by: str
    at: str


@dataclass(frozen=True)
class Revision:
    """One recorded revision of a clause's criteria, with its approvals (oldest first)."""

    id: str
    clause_id: str
    clause_sha256: str
    role: str
    criteria: dict[str, Any]
    author: str
    note: str
    created_at: str
    content_hash: str
    seq: int = 0
    approvals: tuple[Approval, ...] = ()

    @property
    def approved(self) -> bool:
        return bool(self.approvals)

    @property
    def approved_by(self) -> str | None:
        return self.approvals[0].by if self.approvals else None

    @property
    def deciding(self) -> bool:
        return self.role in DECIDING_ROLES

    def read(self, clause_text: str) -> Criteria:
        """The criteria this revision gives the clause: its tree, or nothing for a non-deciding role."""
        criteria = criteria_from_json(self.criteria, clause_text)
        if self.deciding:
            return criteria
        whole = Note(f"{self.role}: {self.note}", Span(0, len(clause_text), clause_text))
        return Criteria(notes=criteria.notes or (whole,))

    def problems(self) -> list[str]:
        """What no longer matches in this row (empty for an intact revision)."""
        found = []
        if revision_id(self.clause_id, self.clause_sha256, self.role, self.criteria, self.author, self.note) != self.id:
            found.append(f"revision {self.id}: its content no longer gives its id")
        if row_hash(self) != self.content_hash:
            found.append(f"revision {self.id}: its row no longer matches its content hash")
        return found

    def summary(self) -> dict[str, Any]:
        return {"revision_id": self.id, "clause_id": self.clause_id, "role": self.role, "author": self.author,
                "note": self.note, "created_at": self.created_at, "content_hash": self.content_hash,
                "approved_by": [a.by for a in self.approvals], "approved_at": [a.at for a in self.approvals],
                "intact": not self.problems()}


def revision_id(clause_id: str, clause_hash: str, role: str, criteria: Mapping[str, Any], author: str, note: str) -> str:
    """`cr-` and 20 hex digits of the hash of what the revision says: the same revision has the same id."""
    identity = {"clause_id": clause_id, "clause_sha256": clause_hash, "role": role, "criteria": criteria,
                "author": author, "note": note}
    return "cr-" + sha256(canonical(identity))[:20]


def row_hash(revision: Revision) -> str:
    """The hash over every column of the row (the time it was written included)."""
    return "sha256:" + sha256(canonical({
        "id": revision.id, "clause_id": revision.clause_id, "clause_sha256": revision.clause_sha256,
        "role": revision.role, "criteria": revision.criteria, "author": revision.author, "note": revision.note,
        "created_at": revision.created_at,
    }))


def checked_text(field: str, value: str, limit: int, what: str) -> str:
    cleaned = " ".join(value.split())
    if not cleaned:
        raise RequestError(field, f"give {what}; it must not be blank")
    if len(cleaned) > limit:
        raise RequestError(field, f"is {len(cleaned)} characters long; keep it under {limit}")
    if any(ord(ch) < 32 or 0xD800 <= ord(ch) <= 0xDFFF for ch in cleaned):
        raise RequestError(field, "holds control characters or unpaired surrogates; send plain text")
    return cleaned


_COLUMNS: Final = "seq, id, clause_id, clause_sha256, role, criteria, author, note, created_at, content_hash"


class RevisionLog:
    """The criteria revisions of one store (its `criteria_revisions` and `criteria_approvals` tables), on a
    connection of its own: a SQLite store file (a path) or any `RevisionDb` (a PostgreSQL store's)."""

    def __init__(self, where: Path | str | RevisionDb, clock: Clock | None = None) -> None:
        self._clock = clock or (lambda: datetime.now(UTC))
        self._db: RevisionDb = SqliteRevisions(where, self._clock) if isinstance(where, (Path, str)) else where
        self.location = self._db.location

    def __enter__(self) -> RevisionLog:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        self._db.close()

    # -- writing ------------------------------------------------------------------------------

    @contextmanager
    def atomic(self) -> Iterator[RevisionLog]:
        """Everything written inside is written together, or nothing is."""
        with self._db.transaction():
            yield self

    def add(self, clause_id: str, clause_text: str, role: str, criteria: Mapping[str, Any], author: str,
            note: str) -> tuple[Revision, bool]:
        """Append a revision; (revision, False) when this very revision is already recorded."""
        author = checked_text("author", author, MAX_NAME, "the author's name")
        note = checked_text("note", note, MAX_NOTE, "a note saying why the criteria change")
        if role not in ROLES:
            raise RequestError("role", f"{role!r} is not a clause role; use one of {', '.join(ROLES)}")
        data = json.loads(canonical(criteria))
        digest = clause_sha256(clause_text)
        rid = revision_id(clause_id, digest, role, data, author, note)
        found = self.get(rid)
        if found is not None:
            return found, False
        made = Revision(rid, clause_id, digest, role, data, author, note,
                        self._clock().isoformat(timespec="seconds"), "")
        made = replace(made, content_hash=row_hash(made))
        try:
            [(seq,)] = self._db.rows(
                "INSERT INTO criteria_revisions (id, clause_id, clause_sha256, role, criteria, author, note, "
                "created_at, content_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING seq",
                (made.id, made.clause_id, made.clause_sha256, made.role, canonical(made.criteria), made.author,
                 made.note, made.created_at, made.content_hash),
            )
        except Exception as exc:
            if self._db.missing_reference(exc):
                raise NotFoundError("clause", clause_id, "a revision is written for a clause of this store") from exc
            raise
        return replace(made, seq=int(seq)), True

    def approve(self, rid: str, by: str) -> Revision:
        """Record `by`'s approval of a revision: never its author's own (four eyes), once per person."""
        by = checked_text("by", by, MAX_NAME, "the approver's name")
        found = self.get(rid)
        if found is None:
            raise NotFoundError("criteria revision", rid, "`clauseguard criteria log CLAUSE_ID` lists a clause's revisions")
        if person(found.author) == person(by):
            raise RequestError("by", f"four eyes: revision {rid} was written by {found.author}; someone else approves it")
        if any(person(a.by) == person(by) for a in found.approvals):
            return found
        problems = found.problems()
        if problems:
            raise RequestError("revision", "; ".join(problems) + ": a tampered revision is never approved")
        self._db.run("INSERT INTO criteria_approvals (revision_id, approved_by, approved_at) VALUES (?, ?, ?)",
                     (rid, by, self._clock().isoformat(timespec="seconds")))
        again = self.get(rid)
        assert again is not None
        return again

    def import_revision(self, revision: Revision) -> None:
        """Copy a recorded revision and its approvals into this store as they are (ids and times kept):
        how a replay's snapshot store gets the revisions the answer was made with."""
        with self._db.transaction():
            self._db.run(
                f"INSERT INTO criteria_revisions ({_COLUMNS.removeprefix('seq, ')}) "  # noqa: S608 - fixed
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                (revision.id, revision.clause_id, revision.clause_sha256, revision.role, canonical(revision.criteria),
                 revision.author, revision.note, revision.created_at, revision.content_hash),
            )
            for a in revision.approvals:
                self._db.run("INSERT INTO criteria_approvals (revision_id, approved_by, approved_at) "
                             "VALUES (?, ?, ?) ON CONFLICT DO NOTHING", (revision.id, a.by, a.at))

    # -- reading ------------------------------------------------------------------------------

    def _rows(self, where: str, args: tuple[Any, ...]) -> list[Revision]:
        rows = self._db.rows(f"SELECT {_COLUMNS} FROM criteria_revisions {where} ORDER BY seq", args)  # noqa: S608
        approvals: dict[str, list[Approval]] = {}
        ids = [r[1] for r in rows]
        if ids:
            marks = ",".join("?" for _ in ids)
            for rid, by, at in self._db.rows(
                f"SELECT revision_id, approved_by, approved_at FROM criteria_approvals WHERE revision_id IN ({marks}) "  # noqa: S608
                "ORDER BY seq", ids,
            ):
                approvals.setdefault(rid, []).append(Approval(by, at))
        return [Revision(id=r[1], clause_id=r[2], clause_sha256=r[3], role=r[4], criteria=json.loads(r[5]),
                         author=r[6], note=r[7], created_at=r[8], content_hash=r[9], seq=r[0],
                         approvals=tuple(approvals.get(r[1], ()))) for r in rows]

    def get(self, rid: str) -> Revision | None:
        found = self._rows("WHERE id = ?", (rid,))
        return found[0] if found else None

    def history(self, clause_id: str) -> list[Revision]:
        """Every revision of a clause, oldest first, with its approvals."""
        return self._rows("WHERE clause_id = ?", (clause_id,))

    def newest(self, clause_id: str) -> Revision | None:
        found = self.history(clause_id)
        return found[-1] if found else None

    def active(self) -> dict[str, Revision]:
        """The newest approved, intact revision of every clause that has one."""
        out: dict[str, Revision] = {}
        for revision in self._rows("WHERE id IN (SELECT revision_id FROM criteria_approvals)", ()):
            if not revision.problems():
                out[revision.clause_id] = revision  # rows come oldest first: the newest wins
        return dict(sorted(out.items()))

    def pending(self) -> list[str]:
        """Ids of the revisions no one has approved yet, oldest first."""
        return [r.id for r in self._rows("WHERE id NOT IN (SELECT revision_id FROM criteria_approvals)", ())]

    def count(self) -> int:
        return int(self._db.rows("SELECT COUNT(*) FROM criteria_revisions")[0][0])


def store_path(store: Any) -> Path | None:
    """The file of a SQLite store (None for an in-memory store or another backend)."""
    return store_file(store)


def open_log(store: Any, clock: Clock | None = None) -> RevisionLog | None:
    """The revision log of a store's own tables (SQLite file or PostgreSQL), None for one in memory."""
    db = revisions_db(store, clock)
    return RevisionLog(db, clock) if db is not None else None


def revision_log(store: Any, clock: Clock | None = None) -> RevisionLog:
    """The revision log of a store that can hold revisions, or an error saying which stores can."""
    log = open_log(store, clock)
    if log is None:
        raise CorpusError([Problem(str(getattr(store, "location", store)), "",
                                   "criteria revisions live in a store file or a PostgreSQL store; give --store FILE "
                                   "or --store-url, or use the persistent store or a --corpus PATH store")])
    return log


def active_revisions(store: Any) -> dict[str, Revision]:
    """The revisions a store's answers use (none for a store that cannot hold them)."""
    log = open_log(store)
    if log is None:
        return {}
    with log:
        return log.active()


def revision_ids(revisions: Mapping[str, Revision]) -> dict[str, str]:
    """Clause id -> revision id, sorted: what enters the corpus fingerprint and the assertion ids."""
    return {cid: r.id for cid, r in sorted(revisions.items())}


def stamped_fingerprint(corpus_fingerprint: str, revisions: Mapping[str, Revision]) -> str:
    """The fingerprint answers carry: the corpus model's alone with no revision in use (every id stays as
    it was), else a hash over it and the revision ids."""
    if not revisions:
        return corpus_fingerprint
    from clauseguard.audit import digest

    return "sha256:" + digest({"corpus": corpus_fingerprint, "criteria_revisions": revision_ids(revisions)}, 64)


def revision_knobs(revisions: Mapping[str, Revision]) -> dict[str, Any]:
    """What the revisions in use add to an answer's settings (nothing when none is)."""
    return {"criteria_revisions": revision_ids(revisions)} if revisions else {}


def fetch_revision(store: Any, rid: str) -> Revision | None:
    """A cold read of one revision by id through a store's own tables (the verifier's and replay's read)."""
    log = open_log(store)
    if log is None:
        return None
    with log:
        return log.get(rid)


def unusable(revision: Revision, clause_id: str, clause_text: str) -> str | None:
    """Why a revision may not be used to read a clause (None when it may): another clause's, written
    against other text, changed since it was written, or never approved."""
    if revision.clause_id != clause_id:
        return f"revision {revision.id} is for clause {revision.clause_id}, not {clause_id}"
    if revision.clause_sha256 != clause_sha256(clause_text):
        return f"revision {revision.id} was written against another text of {clause_id}"
    problems = revision.problems()
    if problems:
        return "; ".join(problems)
    if not revision.approved:
        return f"revision {revision.id} is not approved"
    return None
