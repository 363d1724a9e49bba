"""The CLI contract: exit statuses, one JSON document under --json, one-line errors on stderr."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from clauseguard.interfaces.cli import main

OVERLAPPING = {
    "format": "clauseguard.corpus/v1",
    "payers": [{"id": "HX", "name": "Halden Health"}],
    "codes": [{"code": "E0784", "system": "HCPCS", "descriptor": "insulin pump"}],
    "documents": [
        {
            "id": "HX-MP-7", "payer": "HX", "kind": "medical_policy", "title": "Insulin pumps", "codes": ["E0784"],
            "versions": [
                {"version": "v1", "effective_start": "2022-01-01", "effective_end": "2024-03-31",
                 "clauses": [{"id": "HX-MP-7.v1.C1", "section": "Criteria", "text": "Covered when ..."}]},
                {"version": "v2", "effective_start": "2024-03-01",
                 "clauses": [{"id": "HX-MP-7.v2.C1", "section": "Criteria", "text": "Covered."}]},
            ],
        }
    ],
}


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def overlapping(tmp_path: Path) -> Path:
    path = tmp_path / "overlap.yaml"
    path.write_text(yaml.safe_dump(OVERLAPPING))
    return path


def test_validate_refuses_overlapping_versions(capsys: pytest.CaptureFixture[str], overlapping: Path) -> None:
    code, out, err = run(capsys, "corpus", "validate", str(overlapping))
    assert code == 2 and out == ""
    assert "HX-MP-7" in err and "v1 (2022-01-01 to 2024-03-31)" in err and "v2 (2024-03-01 to open-ended)" in err


@pytest.mark.parametrize(
    "args",
    [["corpus", "stats"], ["versions", "HX-MP-7"], ["clause", "HX-MP-7.v1.C1"], ["corpus", "validate"]],
)
def test_any_command_given_an_overlapping_corpus_exits_2(
    capsys: pytest.CaptureFixture[str], overlapping: Path, args: list[str]
) -> None:
    code, out, err = run(capsys, "--corpus", str(overlapping), *args, "--json")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("error: ") and "overlap" in err


def test_validate_ok_does_not_create_a_store(capsys: pytest.CaptureFixture[str], isolated_home: Path) -> None:
    code, out, _ = run(capsys, "--corpus", "demo", "corpus", "validate", "--json")
    assert code == 0 and json.loads(out)["valid"] is True
    assert not any(isolated_home.rglob("*.sqlite"))


def test_validate_needs_a_path(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "corpus", "validate", "--json")
    assert code == 2 and out == "" and "validate PATH" in err


def test_external_corpus_stats(capsys: pytest.CaptureFixture[str], mkrafa: Path) -> None:
    code, out, _ = run(capsys, "--corpus", str(mkrafa / "corpus.json"), "corpus", "stats", "--json")
    assert code == 0
    stats = json.loads(out)
    fingerprint = stats.pop("fingerprint")
    assert fingerprint.startswith("sha256:")
    assert stats == {
        "payers": 3, "plans": 5, "contracts": 0, "codes": 26, "documents": 12, "riders": 3, "versions": 14,
        "clauses": 40, "documents_by_kind": {"faq": 1, "medical_policy": 8, "rider": 3},
    }


def test_external_clause_verbatim(capsys: pytest.CaptureFixture[str], mkrafa: Path) -> None:
    raw = json.loads((mkrafa / "corpus.json").read_text())
    want = next(c["text"] for c in raw["clauses"] if c["clause_id"] == "MHP-MP-0142.v1.C2")
    code, out, _ = run(capsys, "--corpus", str(mkrafa / "corpus.json"), "clause", "MHP-MP-0142.v1.C2", "--json")
    assert code == 0
    data = json.loads(out)
    assert list(data) == [
        "clause_id", "document_id", "document_title", "kind", "version", "effective_start", "effective_end",
        "section", "article", "page", "text",
    ]
    assert (data["text"], data["version"], data["effective_start"], data["effective_end"]) == (
        want, "v1", "2023-01-01", "2024-06-30"
    )


def test_unknown_ids_are_errors(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "--corpus", "demo", "clause", "NO-SUCH-CLAUSE", "--json")
    assert code == 2 and out == "" and "unknown clause 'NO-SUCH-CLAUSE'" in err
    code, out, err = run(capsys, "--corpus", "demo", "versions", "NO-SUCH-DOC")
    assert code == 2 and "unknown document 'NO-SUCH-DOC'" in err


def test_versions_timeline_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--corpus", "demo", "versions", "GRP-TERMS", "--json")
    assert code == 0
    timeline = json.loads(out)
    assert [(v["version"], v["effective_start"], v["effective_end"]) for v in timeline["versions"]] == [
        ("CG-2021-09", "2021-09-01", "2023-12-31"),
        ("CG-2024-01", "2024-01-01", None),
    ]
    assert all(v["clauses"] > 0 for v in timeline["versions"])


def test_usage_errors_are_one_line_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "clause", "--json")
    assert code == 2 and out == "" and err.count("\n") == 1
    code, out, err = run(capsys, "--no-such-flag")
    assert code == 2 and err.count("\n") == 1


def test_schema_is_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "corpus", "schema")
    assert code == 0 and json.loads(out)["title"].startswith("clauseguard corpus")


def test_demo_runs_in_a_fresh_process(isolated_home: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "clauseguard", "demo"], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert "CG-2021-09" in done.stdout and "CG-2024-01" in done.stdout


def test_first_command_without_corpus_uses_demo_while_store_is_empty(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "corpus", "stats", "--json")
    assert code == 0 and json.loads(out)["contracts"] >= 3
