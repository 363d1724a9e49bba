"""Criteria revisions in a PostgreSQL store: added, approved by someone else, used by determinations with
the revision named, replayed with the very revision, and a tampered row reported, as in SQLite."""

from __future__ import annotations

from pathlib import Path

import psycopg
import pytest
import yaml

from clauseguard.authoring.check import check_sheet
from clauseguard.authoring.revisions import revision_log
from clauseguard.authoring.sheet import parse_sheet
from clauseguard.authoring.submit import add_checked
from clauseguard.corpus.loader import load_path
from clauseguard.corpus.postgres_store import PostgresStore
from clauseguard.corpus.sources import open_corpus
from clauseguard.engine import Engine
from clauseguard.errors import RequestError
from clauseguard.replay import replay

from .conftest import CORPUS, cgm_entry, sheet
from .test_precedence import REQUEST, citation

pytestmark = pytest.mark.integration


def test_revisions_live_in_the_database_and_decide_replay_and_report_tampering(
    pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, isolated_home: Path,
) -> None:
    source = tmp_path / "corpus.yaml"
    source.write_text(yaml.safe_dump(CORPUS, sort_keys=False), encoding="utf-8")
    with PostgresStore(pg_url) as store:
        store.add(load_path(source))
    monkeypatch.setenv("CLAUSEGUARD_STORE_URL", pg_url)
    opened = open_corpus(None, None)
    assert type(opened.store).__name__ == "PostgresStore"
    report = check_sheet(parse_sheet(sheet(cgm_entry())), opened.corpus)
    with revision_log(opened.store) as log:
        [added] = add_checked(report, log, author="ana", note="CGM criteria from the text")
        rid = added.revision_id
        assert rid is not None
        with pytest.raises(RequestError, match="four eyes"):
            log.approve(rid, " ANA ")
        log.approve(rid, "bo")
        assert [r.id for r in log.history("GM.v1.2")] == [rid] and log.active()["GM.v1.2"].approved_by == "bo"

    answer = Engine(opened).determine(REQUEST).as_json()
    assert (answer["gate"], answer["outcome"]) == ("DETERMINE", "COVERED")
    assert citation(answer, "GM.v1.2")["read_by"]["revision_id"] == rid
    assert citation(answer, "GM.v1.2")["checks"]["supports"] is True  # the cold verifier re-read it from the database
    again = replay(answer["assertion_id"])
    assert again["match"], again

    with psycopg.connect(pg_url, autocommit=True) as conn:  # a row changed behind the store's back
        conn.execute("ALTER TABLE criteria_revisions DISABLE TRIGGER criteria_revisions_no_update")
        conn.execute("UPDATE criteria_revisions SET note = 'changed' WHERE id = %s", (rid,))
    tampered = replay(answer["assertion_id"])
    assert not tampered["match"] and tampered["tampered_revisions"] == [rid]
    assert Engine(open_corpus(None, None)).determine(REQUEST).as_json()["gate"] == "REVIEW"  # never used again
