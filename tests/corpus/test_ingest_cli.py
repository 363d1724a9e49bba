"""`clauseguard ingest` end to end: files into the persistent store, then the other commands read it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from clauseguard.interfaces import cli
from clauseguard.interfaces.cli import main
from clauseguard.interfaces.ingest_commands import register
from tests.corpus.readers.documents import write_scanned_pdf, write_terms_docx


@pytest.fixture(autouse=True)
def _commands() -> None:
    """Until cli.py calls `register` itself; registering twice is a no-op."""
    register(cli.app, cli.corpus_app)


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def ingest_args(path: Path, version: str, start: str, *more: str) -> list[str]:
    return ["ingest", str(path), "--document", "GRP-RID-PHYSIO", "--version", version, "--effective-start", start, *more]


def test_two_docx_versions_land_on_one_timeline(capsys: pytest.CaptureFixture[str], tmp_path: Path, isolated_home: Path) -> None:
    first = write_terms_docx(tmp_path / "physio-2022.docx", "PR-2022", physio_sessions="ten (10)")
    second = write_terms_docx(tmp_path / "physio-2024.docx", "PR-2024", physio_sessions="twelve (12)", cap="GBP 650")
    code, out, err = run(
        capsys, *ingest_args(first, "PR-2022", "2022-01-01", "--kind", "rider", "--payer", "ALD",
                             "--plan", "GRP-DENTAL", "--code", "97110", "--code", "97140")
    )
    assert code == 0, err
    for said in ("Added version PR-2022 of GRP-RID-PHYSIO", "new payer ALD", "new plan GRP-DENTAL",
                 "new code 97110 (CPT, told by its shape)", "new code 97140", "new document GRP-RID-PHYSIO",
                 "GRP-RID-PHYSIO.PR-2022.A3"):
        assert said in out
    assert (isolated_home / "store.sqlite").exists()

    code, out, err = run(capsys, *ingest_args(second, "PR-2024", "2024-01-01"), "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["status"] == "added" and report["created"] == {"payers": [], "plans": [], "codes": [], "documents": []}
    assert report["source"]["file"] == "physio-2024.docx" and report["source"]["reader"] == "docx"
    assert [e["kind"] for e in report["events"]] == ["version_closed", "version_added"]
    assert report["events"][0]["date"] == "2023-12-31"

    code, out, err = run(capsys, "versions", "GRP-RID-PHYSIO", "--json")
    assert code == 0, err
    timeline = json.loads(out)
    assert [(v["version"], v["effective_start"], v["effective_end"]) for v in timeline["versions"]] == [
        ("PR-2022", "2022-01-01", "2023-12-31"),
        ("PR-2024", "2024-01-01", None),
    ]
    assert [(e["kind"], e["version"]) for e in timeline["events"]] == [
        ("version_added", "PR-2022"), ("version_closed", "PR-2022"), ("version_added", "PR-2024"),
    ]
    code, out, _ = run(capsys, "clause", "GRP-RID-PHYSIO.PR-2024.A3", "--json")
    assert code == 0 and "twelve (12) sessions" in json.loads(out)["text"]

    code, out, _ = run(capsys, *ingest_args(second, "PR-2024", "2024-01-01"))
    assert code == 0 and "Nothing new" in out and "same file" in out


def test_no_text_layer_exits_2_naming_the_file(capsys: pytest.CaptureFixture[str], tmp_path: Path, isolated_home: Path) -> None:
    scan = write_scanned_pdf(tmp_path / "scanned-terms.pdf")
    code, out, err = run(capsys, *ingest_args(scan, "v1", "2022-01-01", "--kind", "rider", "--payer", "ALD"), "--json")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith(f"error: {scan}: no text layer: OCR needed")
    code, out, _ = run(capsys, "corpus", "stats", "--json")
    assert code == 0 and json.loads(out)["documents"] > 1  # still the demo: nothing was ingested


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--effective-start", "2022-02-30"], "--effective-start: the command line gives '2022-02-30', which is not a date"),
        (["--effective-start", "2022-01-01", "--code", "a9276", "--kind", "rider", "--payer", "ALD"], "--code: 'a9276'"),
        (["--effective-start", "2022-01-01"], "--payer: document GRP-RID-PHYSIO is new"),
    ],
)
def test_bad_input_exits_2_naming_the_flag(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, args: list[str], message: str
) -> None:
    path = write_terms_docx(tmp_path / "physio.docx", "PR-2022")
    code, out, err = run(capsys, "ingest", str(path), "--document", "GRP-RID-PHYSIO", "--version", "PR-2022", *args)
    assert code == 2 and out == "" and message in err


def test_ingest_refuses_corpus_option(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = write_terms_docx(tmp_path / "physio.docx", "PR-2022")
    code, _, err = run(capsys, "--corpus", "demo", *ingest_args(path, "PR-2022", "2022-01-01"))
    assert code == 2 and "--corpus: ingest writes into the persistent store" in err


def test_sidecar_and_dry_run(capsys: pytest.CaptureFixture[str], tmp_path: Path, isolated_home: Path) -> None:
    path = write_terms_docx(tmp_path / "physio.docx", "PR-2022")
    (tmp_path / "physio.docx.yaml").write_text(yaml.safe_dump({
        "document": "GRP-RID-PHYSIO", "version": "PR-2022", "effective_start": "2022-01-01",
        "kind": "rider", "payer": "ALD",
    }))
    code, out, err = run(capsys, "ingest", str(path), "--dry-run")
    assert code == 0, err
    assert "Would add version PR-2022" in out and "Dry run: nothing was written." in out
    code, out, _ = run(capsys, "corpus", "stats", "--json")
    assert code == 0 and json.loads(out)["documents"] > 1  # the store is still empty: the demo stands in
    code, out, _ = run(capsys, "--store", str(tmp_path / "other.sqlite"), "ingest", str(path))
    assert code == 0 and "Added version PR-2022" in out and (tmp_path / "other.sqlite").exists()
