"""`clauseguard impact`: audited determinations in a new version's window re-answered under it; those
whose gate, outcome or criteria change are listed with the clause differences (from compare)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from clauseguard.batch.impact import impact
from clauseguard.batch.runner import Source
from clauseguard.corpus.loader import load_demo
from clauseguard.corpus.model import Corpus
from clauseguard.corpus.sources import open_corpus
from clauseguard.corpus.store import SqliteStore
from clauseguard.engine import Engine
from clauseguard.interfaces.cli import main
from clauseguard.interfaces.demo_commands import DEMO_DETERMINATION

DOC = "KHP-MP-0224"  # v2 (from 2024-01-01) asks twelve weeks of conservative treatment instead of four


def split_demo() -> tuple[Corpus, Corpus]:
    """The demo without KHP-MP-0224 v2 (v1 open-ended), and v2 alone: the revision to announce."""
    demo = load_demo()
    doc = next(d for d in demo.documents if d.id == DOC)
    v1, v2 = doc.versions
    earlier = doc.model_copy(update={"versions": (v1.model_copy(update={"effective_end": None}),)})
    before = demo.model_copy(update={"documents": tuple(earlier if d.id == DOC else d for d in demo.documents)})
    revision = Corpus.model_validate({"format": demo.format, "documents": [
        {**doc.model_dump(mode="json"), "versions": [v2.model_dump(mode="json")]}]})
    return before, revision


@pytest.fixture
def store_file(tmp_path: Path) -> Path:
    before, _ = split_demo()
    path = tmp_path / "store.sqlite"
    with SqliteStore(path) as store:
        store.add(before)
    return path


def audit_some(store_file: Path) -> list[Any]:
    engine = Engine(open_corpus(None, str(store_file)))
    answers = [engine.determine({**DEMO_DETERMINATION, "as_of_date": day}) for day in ("2023-06-01", "2024-03-01")]
    answers.append(engine.determine({**DEMO_DETERMINATION, "procedure_codes": ["29882"], "as_of_date": "2024-03-01"}))
    engine.audit.close()
    return answers


def announce(store_file: Path) -> None:
    _, revision = split_demo()
    with SqliteStore(store_file) as store:
        assert any(e.kind == "version_closed" for e in store.add(revision).events)


def test_impact_lists_the_audited_answers_the_revision_changes(store_file: Path) -> None:
    answers = audit_some(store_file)
    assert answers[1].outcome == "COVERED"  # six weeks of therapy met v1's four
    announce(store_file)
    report = impact(DOC, "v2", Source(store=str(store_file)))
    assert report["window"] == {"effective_start": "2024-01-01", "effective_end": None}
    assert report["considered"] == 1  # 2023-06-01 is before the window; 29882 is another policy's code
    [changed] = report["changed"]
    assert changed["key"] == answers[1].assertion_id and changed["version_before"] == "v1"
    assert changed["before"]["outcome"] == "COVERED" and changed["after"]["outcome"] != "COVERED"
    assert "outcome" in changed["changes"] and changed["request"] == "sealed original"  # re-answered from the original
    assert report["clause_differences"]["v1"], "the criteria clause differs between v1 and v2"


def test_impact_of_a_requests_file_and_through_the_cli(
    store_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    announce(store_file)
    requests = tmp_path / "requests.jsonl"
    requests.write_text("\n".join(json.dumps({**DEMO_DETERMINATION, "as_of_date": d})
                                  for d in ("2023-06-01", "2024-03-01", "2024-09-09")) + "\n")
    report = impact(DOC, "v2", Source(store=str(store_file)), requests=requests, workers=2)
    assert report["considered"] == 2 and report["changed_count"] == 2
    code = main(["--store", str(store_file), "impact", "--document", DOC, "--version", "v2",
                 "--requests", str(requests), "--workers", "1", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["changed"] == report["changed"]
    assert main(["--store", str(store_file), "impact", "--document", DOC, "--version", "v9"]) == 2
