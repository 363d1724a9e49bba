"""`clauseguard criteria ...`: the analyst's workflow end to end, exit 2 on any problem, and export."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from clauseguard.interfaces.cli import main

from .conftest import UNREAD, cgm_entry, cgm_rule, sheet, write


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_draft_lists_every_clause_with_the_compiler_s_tree_or_holes(capsys: pytest.CaptureFixture[str],
                                                                    corpus_file: Path) -> None:
    code, out, _ = run(capsys, "--corpus", str(corpus_file), "criteria", "draft", "GM", "--json")
    assert code == 0
    draft = json.loads(out)
    by_id = {c["id"]: c for c in draft["clauses"]}
    assert by_id["GM.v1.1"]["read_by"] == "compiler" and by_id["GM.v1.1"]["criteria"]["rules"]
    assert by_id["GM.v1.1"]["plain"] == ["home blood glucose monitors (E0607): covered when diabetes mellitus"]
    hole = by_id["GM.v1.2"]["holes"][0]
    assert by_id["GM.v1.2"]["read_by"] == "hole" and hole["reason"]
    assert UNREAD[hole["span"]["start"]:hole["span"]["end"]] == hole["span"]["text"]
    assert by_id["GM.v1.3"] == {"id": "GM.v1.3", "role": "administrative", "read_by": "compiler",
                                "text_sha256": by_id["GM.v1.3"]["text_sha256"], "text": by_id["GM.v1.3"]["text"]}
    # deterministic, and a sheet that copies none of the policy's words on request
    assert run(capsys, "--corpus", str(corpus_file), "criteria", "draft", "GM", "--json")[1] == out
    code, bare, _ = run(capsys, "--corpus", str(corpus_file), "criteria", "draft", "GM", "--offsets-only")
    assert code == 0 and "text" not in yaml.safe_load(bare)["clauses"][0]
    assert UNREAD not in bare and "boxes of fifty" not in bare and "within 90 days" not in bare


def test_check_add_approve_log_and_export(capsys: pytest.CaptureFixture[str], corpus_file: Path, tmp_path: Path) -> None:
    corpus = ["--corpus", str(corpus_file)]
    bad = cgm_rule()
    bad["rules"][0]["when"]["children"][0]["kind"] = "birthday"
    bad_file = write(tmp_path / "bad.yaml", sheet(cgm_entry(criteria=bad)))
    code, out, err = run(capsys, *corpus, "criteria", "check", str(bad_file))
    assert code == 2
    assert "error: GM.v1.2: clauses[0].criteria.rules[0].when.children[0].kind: 'birthday' is not a node kind" in err
    code, _, err = run(capsys, *corpus, "criteria", "add", str(bad_file), "--author", "ana", "--note", "n")
    assert code == 2 and "nothing was written" in err

    good = write(tmp_path / "good.yaml", sheet(cgm_entry()))
    code, out, _ = run(capsys, *corpus, "criteria", "check", str(good))
    assert code == 0 and "covered when ALL of: age >= 65 years; diabetes mellitus; fingerstick tests >= 3 per day" in out
    code, out, _ = run(capsys, *corpus, "criteria", "add", str(good), "--author", "ana", "--note", "from the text",
                       "--json")
    assert code == 0
    [added] = json.loads(out)["added"]
    rid = added["revision_id"]
    assert added["status"] == "added"
    code, _, err = run(capsys, *corpus, "criteria", "approve", rid, "--by", "ana")
    assert code == 2 and "four eyes" in err
    assert run(capsys, *corpus, "criteria", "approve", rid, "--by", "bo")[0] == 0
    code, out, _ = run(capsys, *corpus, "criteria", "log", "GM.v1.2", "--json")
    log = json.loads(out)
    assert log["active_revision"] == rid and log["read_by"] == f"read by revision {rid} of ana, approved by bo"
    assert [r["approved_by"] for r in log["revisions"]] == [["bo"]] and log["revisions"][0]["intact"]

    exported = tmp_path / "out.yaml"
    assert run(capsys, *corpus, "corpus", "export", str(exported))[0] == 0
    data = yaml.safe_load(exported.read_text(encoding="utf-8"))
    clause = data["documents"][0]["versions"][0]["clauses"][1]
    assert clause["id"] == "GM.v1.2" and clause["criteria"]["rules"][0]["when"]["kind"] == "all"
    # the exported corpus carries its rules: another store reads the clause from its own criteria
    code, out, _ = run(capsys, "--corpus", str(exported), "criteria", "log", "GM.v1.2", "--json")
    assert json.loads(out)["read_by"] == "read from the corpus's own criteria"


def test_report_shows_who_reads_each_clause(capsys: pytest.CaptureFixture[str], corpus_file: Path) -> None:
    code, out, _ = run(capsys, "--corpus", str(corpus_file), "criteria", "report", "--json")
    assert code == 0
    report = json.loads(out)
    assert report["summary"]["authored"] == 0 and report["summary"]["read_deciding"] == report["summary"]["compiled_deciding"]
