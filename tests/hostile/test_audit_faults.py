"""Issue 15, item 4: audit first, answer second. When the audit log cannot be written the answer is a
clear error (CLI exit 3 naming the file), never a traceback and never an unaudited answer; traces
follow the audit row or are marked missing; a vanished audit file is noticed."""

from __future__ import annotations

import json
import os
import resource
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from clauseguard.corpus.sources import open_corpus
from clauseguard.engine import Engine
from clauseguard.errors import EnvironmentFailure
from clauseguard.interfaces.cli import main
from clauseguard.interfaces.demo_commands import DEMO_DETERMINATION
from tests.hostile.conftest import audit_rows, missing_traces, trace_ids

ASK = [
    "--corpus", "demo", "ask", "--payer", DEMO_DETERMINATION["payer_id"], "--plan", DEMO_DETERMINATION["plan_id"],
    "--code", DEMO_DETERMINATION["procedure_codes"][0], "--dx", DEMO_DETERMINATION["diagnosis_codes"][0],
    "--as-of", "2024-03-01", "--narrative", DEMO_DETERMINATION["narrative"],
    "--question", DEMO_DETERMINATION["question"], "--json",
]


def ask(capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str, str]:
    code = main([*ASK[:-1], *extra, "--json"])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_a_locked_audit_log_is_exit_3_naming_the_file_and_no_answer(
    isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert ask(capsys)[0] == 0  # the log exists and holds one row
    holder = sqlite3.connect(isolated_home / "audit.sqlite", isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        code, out, err = ask(capsys, "--narrative", "Another narrative, so another assertion.")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert code == 3 and out == ""
    assert str(isolated_home / "audit.sqlite") in err and "locked" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert len(audit_rows(isolated_home)) == 1 and trace_ids(isolated_home) == audit_rows(isolated_home)


def test_an_audit_log_that_cannot_be_opened_is_exit_3_naming_it(
    isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (isolated_home / "audit.sqlite").mkdir(parents=True)  # root ignores file modes; a folder is never writable as a file
    code, out, err = ask(capsys)
    assert code == 3 and out == ""
    assert str(isolated_home / "audit.sqlite") in err and "Traceback" not in err
    assert trace_ids(isolated_home) == []  # no trace of an answer that was never audited


def test_traces_that_cannot_be_written_are_marked_missing_in_the_audit_log(
    isolated_home: Path, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    (isolated_home / "traces.jsonl").mkdir(parents=True)
    code, out, err = ask(capsys)
    assert code == 0 and json.loads(out)["gate"]  # the answer is audited, so it goes out
    rows = audit_rows(isolated_home)
    assert len(rows) == 1 and missing_traces(isolated_home) == rows
    assert "traces.jsonl" in caplog.text and "marked missing" in caplog.text  # a warning on stderr


def test_the_file_size_limit_is_exit_3_and_audit_and_traces_agree(isolated_home: Path, tmp_path: Path) -> None:
    env = {**os.environ, "CLAUSEGUARD_HOME": str(isolated_home), "CLAUSEGUARD_LOCK_TIMEOUT": "0.2"}
    first = subprocess.run([sys.executable, "-m", "clauseguard", *ASK], env=env, capture_output=True, text=True,  # noqa: S603
                           check=False)
    assert first.returncode == 0, first.stderr

    def limit() -> None:  # every file this process writes stays under a few bytes beyond its size now
        resource.setrlimit(resource.RLIMIT_FSIZE, (1024, 1024))

    runs = []
    for n in range(3):
        runs.append(subprocess.run(  # noqa: S603 - our own CLI, fixed arguments
            [sys.executable, "-m", "clauseguard", *ASK[:-1], "--narrative", f"Narrative number {n}.", "--json"],
            env=env, capture_output=True, text=True, check=False, preexec_fn=limit,
        ))
    for run in runs:
        assert run.returncode == 3 and run.stdout == "", run.stderr
        assert "Traceback" not in run.stderr and str(isolated_home) in run.stderr
    rows = audit_rows(isolated_home)
    assert trace_ids(isolated_home) + missing_traces(isolated_home) == rows


def test_an_audit_file_deleted_while_serving_stops_answers_until_it_is_back(
    isolated_home: Path, tmp_path: Path
) -> None:
    engine = Engine(open_corpus("demo", None))
    first = engine.determine({**DEMO_DETERMINATION, "as_of_date": "2024-03-01"})
    path = isolated_home / "audit.sqlite"
    saved = tmp_path / "saved.sqlite"
    engine.audit.close()  # a checkpoint, so the saved copy is whole (an operator's backup)
    engine.__dict__.pop("audit")
    shutil.copy(path, saved)
    engine.determine({**DEMO_DETERMINATION, "as_of_date": "2024-03-02"})
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    with pytest.raises(EnvironmentFailure, match="vanished") as failure:
        engine.determine({**DEMO_DETERMINATION, "as_of_date": "2024-03-03"})
    assert str(path) in str(failure.value)
    with pytest.raises(EnvironmentFailure, match="vanished"):  # still refused: nothing was written anywhere
        engine.determine({**DEMO_DETERMINATION, "as_of_date": "2024-03-03"})
    shutil.copy(saved, path)  # the operator puts it back
    again = engine.determine({**DEMO_DETERMINATION, "as_of_date": "2024-03-04"})
    assert again.gate and first.trace_id in audit_rows(isolated_home)
    assert again.trace_id in audit_rows(isolated_home)
