"""An approved revision reads its clause in every determination, says so, enters the ids, and replays."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from clauseguard.authoring.check import check_sheet
from clauseguard.authoring.revisions import RevisionLog, revision_log
from clauseguard.authoring.sheet import parse_sheet
from clauseguard.authoring.submit import add_checked
from clauseguard.corpus.sources import open_corpus
from clauseguard.engine import Engine
from clauseguard.replay import replay

from .conftest import UNREAD, cgm_entry, cgm_rule, sheet

REQUEST: dict[str, Any] = {
    "payer_id": "GHP", "plan_id": "GHP-BASIC", "procedure_codes": ["E2103"], "diagnosis_codes": ["E11.9"],
    "as_of_date": "2024-05-01", "question": "Is the CGM covered?",
    "narrative": "72-year-old with type 2 diabetes. She does four fingerstick tests per day.",
}


def author(corpus_file: Path, minimum_age: int = 65, approve: bool = True) -> str:
    opened = open_corpus(str(corpus_file), None)
    report = check_sheet(parse_sheet(sheet(cgm_entry(criteria=cgm_rule(minimum_age)))), opened.corpus)
    with revision_log(opened.store) as log:
        [added] = add_checked(report, log, author="ana", note="CGM criteria from the text")
        assert added.revision_id is not None
        if approve:
            log.approve(added.revision_id, "bo")
    return added.revision_id


def engine(corpus_file: Path) -> Engine:
    return Engine(open_corpus(str(corpus_file), None))


def citation(answer: dict[str, Any], clause_id: str) -> dict[str, Any]:
    return next(c for c in answer["citations"] if c["clause_id"] == clause_id)


def test_without_a_revision_the_unread_clause_goes_to_review_read_by_the_compiler(corpus_file: Path) -> None:
    answer = engine(corpus_file).determine(REQUEST).as_json()
    assert answer["gate"] == "REVIEW"
    assert citation(answer, "GM.v1.2")["read_by"] == {"source": "compiler"}


def test_an_approved_revision_decides_its_clause_and_the_answer_says_whose_it_is(corpus_file: Path) -> None:
    before = engine(corpus_file)
    unauthored = before.determine(REQUEST)
    rid = author(corpus_file)
    after = engine(corpus_file)
    answer = after.determine(REQUEST).as_json()
    assert (answer["gate"], answer["outcome"]) == ("DETERMINE", "COVERED")
    assert citation(answer, "GM.v1.2")["read_by"] == {"source": "revision", "revision_id": rid, "author": "ana",
                                                      "approved_by": "bo"}
    assert all(citation(answer, "GM.v1.2")["checks"].values())
    # the revision ids are part of the corpus fingerprint and of the assertion id
    assert after.knobs["criteria_revisions"] == {"GM.v1.2": rid}
    assert after.corpus_fingerprint != before.corpus_fingerprint == after.corpus.fingerprint()
    assert answer["assertion_id"] != unauthored.assertion_id


def test_an_unapproved_revision_changes_nothing(corpus_file: Path) -> None:
    before = engine(corpus_file).determine(REQUEST)
    author(corpus_file, approve=False)
    again = engine(corpus_file).determine(REQUEST)
    assert again.as_json() | {"timings": None} == before.as_json() | {"timings": None}


def test_the_cold_verifier_never_takes_the_reader_s_word_for_a_revision(corpus_file: Path) -> None:
    rid = author(corpus_file, approve=False)
    opened = open_corpus(str(corpus_file), None)
    with RevisionLog(opened.store.path) as log:  # type: ignore[attr-defined]
        unapproved = log.get(rid)
    assert unapproved is not None
    pinned = Engine(opened, authored={"GM.v1.2": unapproved}).determine(REQUEST).as_json()
    assert pinned["gate"] == "REVIEW"  # the reader used it, but the verifier re-fetched it: not approved
    assert citation(pinned, "GM.v1.2")["checks"]["supports"] is False


def test_replay_recomputes_with_the_revision_the_answer_was_made_with(corpus_file: Path) -> None:
    rid = author(corpus_file)
    answer = engine(corpus_file).determine(REQUEST)
    author(corpus_file, minimum_age=80)  # a later approved revision must not change the replay
    result = replay(answer.assertion_id)
    assert result["match"] is True, result
    assert result["tampered_revisions"] == [] and result["missing_revisions"] == []
    newer = engine(corpus_file).determine(REQUEST).as_json()
    assert citation(newer, "GM.v1.2")["read_by"]["revision_id"] != rid


def test_a_tampered_revision_row_makes_the_replay_a_mismatch(corpus_file: Path) -> None:
    rid = author(corpus_file)
    answer = engine(corpus_file).determine(REQUEST)
    store = open_corpus(str(corpus_file), None).store.path  # type: ignore[attr-defined]
    conn = sqlite3.connect(str(store), isolation_level=None)
    conn.execute("DROP TRIGGER criteria_revisions_no_update")
    conn.execute("""UPDATE criteria_revisions SET criteria = replace(criteria, '"value":65', '"value":18') WHERE id = ?""",
                 (rid,))
    conn.close()
    result = replay(answer.assertion_id)
    assert result["match"] is False
    assert result["tampered_revisions"] == [rid]
    assert result["differences"]  # recomputed with the row as it reads now: the answer no longer matches


@pytest.mark.parametrize("source", ["compiler", "corpus"])
def test_read_by_names_the_compiler_or_the_corpus_s_own_criteria(corpus_file: Path, source: str) -> None:
    if source == "corpus":
        import yaml

        data = yaml.safe_load(corpus_file.read_text(encoding="utf-8"))
        from clauseguard.authoring.sheet import with_span_text

        data["documents"][0]["versions"][0]["clauses"][1]["criteria"] = with_span_text(cgm_rule(), UNREAD, "", [])
        corpus_file.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    answer = engine(corpus_file).determine(REQUEST).as_json()
    assert citation(answer, "GM.v1.2")["read_by"] == {"source": source}


def test_a_shared_home_store_with_revisions_is_not_re_read_on_every_request(
    corpus_file: Path, isolated_home: Path,
) -> None:
    """The store records the corpus model's fingerprint; the answers carry one over the revision ids too.
    Asking whether another instance appended compares the former, so revisions in use never look like an
    append (which would rebuild the index before every answer)."""
    from clauseguard.corpus.loader import load_path
    from clauseguard.corpus.sources import STORE_FILE
    from clauseguard.corpus.store import SqliteStore

    with SqliteStore(isolated_home / STORE_FILE) as store:
        store.add(load_path(corpus_file))
    opened = open_corpus(None, None)
    assert opened.origin == "home"
    report = check_sheet(parse_sheet(sheet(cgm_entry())), opened.corpus)
    with revision_log(opened.store) as log:
        [added] = add_checked(report, log, author="ana", note="CGM criteria from the text")
        assert added.revision_id is not None
        log.approve(added.revision_id, "bo")
    served = Engine(opened)
    first = served.determine(REQUEST).as_json()
    second = served.determine(REQUEST).as_json()
    assert served.opened is opened  # never re-read: no one appended
    assert first["assertion_id"] == second["assertion_id"] and first["gate"] == "DETERMINE"
    assert served.corpus_fingerprint != served.model_fingerprint == opened.store.stored_fingerprint()
