"""The CLI's record commands (decide, report, trace, audit list), its start-up discipline (no engine
import for --help), and arguments that are not text (exit 2 naming the argument, never a traceback)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from clauseguard.interfaces.cli import main

ASK = ["--corpus", "demo", "ask", "--payer", "KHP", "--plan", "KHP-HMO-CORE", "--code", "29881", "--dx", "S83.511D",
       "--as-of", "2024-01-01", "--narrative", "Medial meniscal tear confirmed on MRI, with locking and catching. "
       "Six weeks of supervised physical therapy without adequate relief.",
       "--question", "Is arthroscopic meniscectomy covered?"]


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_decide_report_trace_and_audit_list(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, *ASK, "--json")
    assert code == 0
    answer = json.loads(out)

    code, out, _ = run(capsys, "decide", answer["assertion_id"], "--final", answer["outcome"], "--by", "dr-k.mensah",
                       "--reason", "criteria reviewed", "--json")
    assert code == 0 and json.loads(out)["agrees"] is True

    code, out, _ = run(capsys, "report", "--json")
    report = json.loads(out)
    assert code == 0 and report["decided"] == 1 and report["agreement_rate"] == 1.0
    code, out, _ = run(capsys, "report")
    assert code == 0 and "1 decided assertions: 1 agreed" in out and "by document" in out

    code, out, _ = run(capsys, "trace", answer["trace_id"], "--json")
    traced = json.loads(out)
    assert code == 0 and traced["traces"][0]["trace_id"] == answer["trace_id"]
    assert traced["audit"]["assertion_id"] == answer["assertion_id"] and traced["audit"]["final_outcome"]
    code, out, _ = run(capsys, "trace", answer["assertion_id"])
    assert code == 0 and answer["trace_id"] in out and "preflight" in out

    code, out, _ = run(capsys, "audit", "list", "--json")
    rows = json.loads(out)
    assert code == 0 and rows[0]["assertion_id"] == answer["assertion_id"] and rows[0]["final_outcome"] == answer["outcome"]
    code, out, _ = run(capsys, "audit", "list", "--kind", "search", "--json")
    assert code == 0 and json.loads(out) == []


def test_record_commands_refuse_bad_input_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "trace", "tr-nothing")
    assert code == 2 and out == "" and err.count("\n") == 1 and "unknown trace or assertion 'tr-nothing'" in err
    code, _, err = run(capsys, "decide", "as-nothing", "--final", "COVERED", "--by", "x", "--reason", "y")
    assert code == 2 and "unknown assertion" in err and "/" not in err.split("'as-nothing'")[0]
    code, _, err = run(capsys, "audit", "list", "--kind", "everything")
    assert code == 2 and err.startswith("error: kind: ")


def test_every_answer_prints_its_ids(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, *ASK)
    assert code == 0 and "assertion as-" in out and "trace tr-" in out


@pytest.mark.parametrize("args", [
    [b"--corpus", b"demo", b"clause", b"GRP-TERMS.\xff\xfe"],
    [b"--corpus", b"demo", b"search", b"--contract", b"CT-48213", b"--question", b"implant \xe9t\xe9"],
])
def test_an_argument_that_is_not_text_is_exit_2_naming_it(args: list[bytes], isolated_home: Path) -> None:
    env = {**os.environ, "LC_ALL": "C.UTF-8", "PYTHONIOENCODING": "utf-8"}
    done = subprocess.run([sys.executable.encode(), b"-m", b"clauseguard", *args],  # noqa: S603 - our own CLI
                          capture_output=True, env=env, timeout=120, check=False)
    err = done.stderr.decode("utf-8", "replace")
    assert done.returncode == 2 and done.stdout == b"", err
    assert err.startswith("error: the argument ") and err.count("\n") == 1 and "Traceback" not in err


def test_help_loads_no_engine_code() -> None:
    """--help must stay fast: nothing of the engine, the corpus, the models or rich's help renderer loads."""
    probe = ("import sys; from clauseguard.interfaces.cli import main; code = main(['--help']); "
             "heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('numpy', 'pydantic', 'yaml', 'fastapi', "
             "'mcp', 'bm25s', 'wordllama') or m in ('clauseguard.engine', 'clauseguard.corpus.model', "
             "'typer.rich_utils', 'rich.console')); print('HEAVY', heavy)")
    done = subprocess.run([sys.executable, "-c", probe],  # noqa: S603 - a fixed probe of our own
                          capture_output=True, text=True, timeout=60, check=False)
    assert "HEAVY []" in done.stdout, done.stdout[-500:] + done.stderr[-500:]


def test_the_constants_written_out_for_a_fast_start_match_their_source() -> None:
    from clauseguard.corpus.model import DOCUMENT_KINDS
    from clauseguard.engine import lexicon_files_fingerprint
    from clauseguard.interfaces import cli, ingest_commands
    from clauseguard.reading.lexicon import default_lexicon
    from clauseguard.requests import DEFAULT_K, DEFAULT_THRESHOLD

    assert (cli.DEFAULT_THRESHOLD, cli.DEFAULT_K) == (DEFAULT_THRESHOLD, DEFAULT_K)
    assert ingest_commands.DOCUMENT_KINDS == DOCUMENT_KINDS
    assert lexicon_files_fingerprint() == default_lexicon().fingerprint
