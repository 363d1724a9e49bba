"""The criteria routes: read-only draft, check, clause view and log; adding only with an admin key."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from clauseguard.authoring.revisions import revision_log
from clauseguard.corpus.loader import load_demo
from clauseguard.corpus.sources import open_corpus
from clauseguard.engine import Engine
from clauseguard.interfaces.api import create_app
from clauseguard.interfaces.http.criteria import CHECK_EXAMPLES

from .conftest import UNREAD, cgm_entry, cgm_rule, sheet


@pytest.fixture
def client(corpus_file: Path) -> TestClient:
    return TestClient(create_app(lambda: Engine(open_corpus(str(corpus_file), None)), api_keys=[]))


def test_the_draft_the_check_and_the_clause_view_are_read_only_lookups(client: TestClient) -> None:
    with client:
        draft = client.get("/v1/criteria/documents/GM/draft")
        assert draft.status_code == 200
        assert [c["id"] for c in draft.json()["clauses"]] == ["GM.v1.1", "GM.v1.2", "GM.v1.3", "GM.v1.4"]
        assert client.get("/v1/criteria/documents/NOPE/draft").status_code == 404
        checked = client.post("/v1/criteria/check", json=sheet(cgm_entry()))
        assert checked.status_code == 200 and checked.json()["ok"] is True
        bad = cgm_rule()
        bad["rules"][0]["when"]["children"][0]["comparator"] = "=>"
        problems = client.post("/v1/criteria/check", json=sheet(cgm_entry(criteria=bad))).json()
        assert problems["ok"] is False
        assert problems["problems"][0]["path"] == "clauses[0].criteria.rules[0].when.children[0].comparator"
        shape = client.post("/v1/criteria/check", json={"format": "clauseguard.criteria-sheet/v1", "document": "GM",
                                                        "clauses": [{"id": "GM.v1.2", "rol": "criteria"}]})
        assert shape.status_code == 422
        assert shape.json()["detail"][0]["loc"] == ["body", "clauses[0]", "rol"]
        assert "unknown key; a clause entry takes id, role" in shape.json()["detail"][0]["msg"]
        view = client.get("/v1/criteria/clauses/GM.v1.2").json()
        assert view["read_by"] == {"source": "compiler"} and view["unread"] and view["text"] == UNREAD
        read = client.get("/v1/criteria/clauses/GM.v1.1").json()
        assert {s["kind"] for s in read["spans"]} >= {"rule", "subject", "criterion"} and read["unread"] == []
        assert client.get("/v1/criteria/clauses/GM.v1.2/log").json()["revisions"] == []


def test_adding_over_http_needs_an_admin_key(client: TestClient, corpus_file: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    body = {"sheet": sheet(cgm_entry()), "author": "ana", "note": "from the text"}
    with client:
        refused = client.post("/v1/criteria/revisions", json=body)
        assert refused.status_code == 403 and "admin key" in refused.json()["detail"]
        monkeypatch.setenv("CLAUSEGUARD_ADMIN_KEYS", "s3cret")
        assert client.post("/v1/criteria/revisions", json=body).status_code == 401
        assert client.post("/v1/criteria/revisions", json=body, headers={"X-Admin-Key": "wrong"}).status_code == 401
        added = client.post("/v1/criteria/revisions", json=body, headers={"X-Admin-Key": "s3cret"})
        assert added.status_code == 201, added.text
        [entry] = added.json()["added"]
        assert entry["status"] == "added"
        bad = dict(body, sheet=sheet(cgm_entry(criteria={"rules": [{"effect": "covered", "span": "nowhere"}]})))
        rejected = client.post("/v1/criteria/revisions", json=bad, headers={"X-Admin-Key": "s3cret"})
        assert rejected.status_code == 422 and "not a verbatim part" in rejected.text
    opened = open_corpus(str(corpus_file), None)
    with revision_log(opened.store) as log:
        assert [r.id for r in log.history("GM.v1.2")] == [entry["revision_id"]]
        assert log.active() == {}  # approval is never offered over HTTP


def test_the_published_check_example_checks_on_the_demo_corpus() -> None:
    from clauseguard.authoring.check import check_sheet
    from clauseguard.authoring.sheet import parse_sheet

    for example in CHECK_EXAMPLES.values():
        report = check_sheet(parse_sheet(example["value"]), load_demo())
        assert report.ok, report.problems
