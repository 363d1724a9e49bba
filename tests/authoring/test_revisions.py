"""Criteria revisions: append-only and content-addressed in the store, used only once a second person approves."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from clauseguard.authoring.check import check_sheet
from clauseguard.authoring.revisions import RevisionLog, revision_log, store_path
from clauseguard.authoring.sheet import parse_sheet
from clauseguard.authoring.submit import add_checked
from clauseguard.corpus.sources import Opened, open_corpus
from clauseguard.errors import NotFoundError, RequestError

from .conftest import cgm_entry, cgm_rule, sheet


@pytest.fixture
def opened(corpus_file: Path) -> Opened:
    return open_corpus(str(corpus_file), None)


def add(opened: Opened, minimum_age: int = 65, author: str = "ana", note: str = "CGM criteria from the text") -> str:
    report = check_sheet(parse_sheet(sheet(cgm_entry(criteria=cgm_rule(minimum_age)))), opened.corpus)
    with revision_log(opened.store) as log:
        [added] = add_checked(report, log, author=author, note=note)
    assert added.revision_id is not None
    return added.revision_id


def test_a_revision_is_used_only_once_someone_other_than_its_author_approves_it(opened: Opened) -> None:
    rid = add(opened)
    with revision_log(opened.store) as log:
        assert log.active() == {}
        for same_person in ("ana", "  ANA ", "Ana"):
            with pytest.raises(RequestError, match=f"four eyes: revision {rid} was written by ana"):
                log.approve(rid, same_person)
        approved = log.approve(rid, "bo")
        assert approved.approved_by == "bo"
        assert log.active()["GM.v1.2"].id == rid
        with pytest.raises(NotFoundError, match="unknown criteria revision 'cr-nope'"):
            log.approve("cr-nope", "bo")


def test_the_store_itself_refuses_an_approval_by_the_author(opened: Opened) -> None:
    rid = add(opened)
    conn = sqlite3.connect(str(opened.store.path), isolation_level=None)  # type: ignore[attr-defined]
    with pytest.raises(sqlite3.DatabaseError, match="four eyes"):
        conn.execute("INSERT INTO criteria_approvals (revision_id, approved_by, approved_at) VALUES (?, 'ana', 'now')",
                     (rid,))


def test_the_newest_approved_revision_is_the_one_used(opened: Opened) -> None:
    older = add(opened, 65)
    newer = add(opened, 70, note="the age threshold re-read")
    with revision_log(opened.store) as log:
        log.approve(older, "bo")
        assert log.active()["GM.v1.2"].id == older  # the newer one is not approved yet
        log.approve(newer, "cy")
        assert log.active()["GM.v1.2"].id == newer
        assert [r.id for r in log.history("GM.v1.2")] == [older, newer]


def test_a_revision_written_twice_is_recorded_once(opened: Opened) -> None:
    first = add(opened)
    report = check_sheet(parse_sheet(sheet(cgm_entry())), opened.corpus)
    with revision_log(opened.store) as log:
        again = add_checked(report, log, author="ana", note="CGM criteria from the text")
        assert [(a.status, a.revision_id) for a in again] == [("unchanged", first)]
        assert log.count() == 1
        revision = log.get(first)
        assert revision is not None
    # the same revision id cannot be inserted a second time, whatever writes it
    with closing(sqlite3.connect(str(store_path(opened.store)))) as conn, pytest.raises(sqlite3.IntegrityError, match="UNIQUE"):
        conn.execute(
            "INSERT INTO criteria_revisions (id, clause_id, clause_sha256, role, criteria, author, note, created_at, "
            "content_hash) VALUES (?, ?, ?, ?, '{}', ?, ?, ?, ?)",
            (revision.id, revision.clause_id, revision.clause_sha256, revision.role, revision.author,
             revision.note, revision.created_at, revision.content_hash))


def test_revision_rows_are_never_updated_or_deleted(opened: Opened) -> None:
    rid = add(opened)
    conn = sqlite3.connect(str(opened.store.path), isolation_level=None)  # type: ignore[attr-defined]
    for sql in ("UPDATE criteria_revisions SET author = 'eve'", "DELETE FROM criteria_revisions"):
        with pytest.raises(sqlite3.DatabaseError, match="append-only"):
            conn.execute(sql)
    with revision_log(opened.store) as log:
        log.approve(rid, "bo")
    for sql in ("UPDATE criteria_approvals SET approved_by = 'eve'", "DELETE FROM criteria_approvals"):
        with pytest.raises(sqlite3.DatabaseError, match="append-only"):
            conn.execute(sql)


def tamper(store_path: Path, sql: str) -> None:
    """What an attacker with the file could do: drop the trigger, rewrite the row."""
    conn = sqlite3.connect(str(store_path), isolation_level=None)
    conn.execute("DROP TRIGGER criteria_revisions_no_update")
    conn.execute(sql)
    conn.close()


def test_a_tampered_row_no_longer_matches_its_id_and_hash_and_is_never_used(opened: Opened) -> None:
    rid = add(opened)
    with revision_log(opened.store) as log:
        log.approve(rid, "bo")
    tamper(opened.store.path, "UPDATE criteria_revisions SET criteria = replace(criteria, '65', '18')")  # type: ignore[attr-defined]
    with RevisionLog(opened.store.path) as log:  # type: ignore[attr-defined]
        revision = log.get(rid)
        assert revision is not None
        assert revision.problems() == [f"revision {rid}: its content no longer gives its id",
                                       f"revision {rid}: its row no longer matches its content hash"]
        assert log.active() == {}
        assert revision.summary()["intact"] is False


def test_a_revision_needs_an_author_a_note_and_a_clause_of_the_store(opened: Opened) -> None:
    with revision_log(opened.store) as log:
        with pytest.raises(RequestError, match="author: give the author's name"):
            log.add("GM.v1.2", "text", "criteria", {}, "  ", "note")
        with pytest.raises(RequestError, match="note: give a note"):
            log.add("GM.v1.2", "text", "criteria", {}, "ana", "")
        with pytest.raises(NotFoundError, match="unknown clause 'GM.v9.9'"):
            log.add("GM.v9.9", "text", "criteria", {}, "ana", "note")
