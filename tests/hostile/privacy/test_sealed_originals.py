"""The original request is sealed into its audit row (AES-GCM, privacy.seal): never on disk in clear,
opened by replay and by impact's seal hook, and a key that cannot be used is exit 3 with no answer."""

from __future__ import annotations

import os
import sqlite3
import stat
from pathlib import Path

import pytest

from clauseguard.audit import AUDIT_MIGRATIONS, AuditLog
from clauseguard.batch.impact import default_originals
from clauseguard.corpus.migrations import migrate
from clauseguard.corpus.sources import open_corpus
from clauseguard.engine import Engine
from clauseguard.interfaces.cli import main
from clauseguard.interfaces.demo_commands import DEMO_DETERMINATION
from clauseguard.privacy.seal import SealError, key_path, original_request
from clauseguard.replay import replay
from tests.hostile.conftest import audit_rows, trace_ids

# Invented PHI; the name and the phone are found without a label in front of them.
PHI_VALUES = ("Aoife Byrne", "0131 496 0000")
REQUEST = {**DEMO_DETERMINATION, "as_of_date": "2024-03-01",
           "narrative": DEMO_DETERMINATION["narrative"] + " Aoife Byrne can be reached on 0131 496 0000."}


def on_disk(home: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(home.rglob("*")) if p.is_file() and p.name != "seal.key")


def test_the_row_holds_the_original_sealed_and_nothing_in_clear(isolated_home: Path) -> None:
    engine = Engine(open_corpus("demo", None))
    answer = engine.determine(REQUEST)
    record = engine.audit.get(answer.assertion_id)
    engine.audit.close()
    raw = on_disk(isolated_home)
    assert all(value.encode() not in raw for value in PHI_VALUES)
    assert all(value not in str(record.request) for value in PHI_VALUES)  # the redacted request, as before
    assert record.request_sealed is not None and b"Aoife" not in record.request_sealed
    original = original_request(record)
    assert original is not None and original["narrative"] == REQUEST["narrative"]
    assert stat.S_IMODE(key_path().stat().st_mode) == 0o600 and key_path().parent == isolated_home


def test_replay_recomputes_from_the_sealed_original(isolated_home: Path) -> None:
    engine = Engine(open_corpus("demo", None))
    answers = [engine.determine(REQUEST), engine.search({"contract_id": "CT-48213",
                                                         "question": "Aoife Byrne: dental implant coverage?"})]
    engine.audit.close()
    for answer in answers:
        result = replay(getattr(answer, "assertion_id", None) or answer.trace_id)
        assert result["match"] and result["request_source"] == "sealed original", result


def test_impact_reads_the_sealed_original_through_the_hook(isolated_home: Path) -> None:
    engine = Engine(open_corpus("demo", None))
    answer = engine.determine(REQUEST)
    record = engine.audit.get(answer.assertion_id)
    engine.audit.close()
    hook = default_originals()
    assert hook is original_request
    found = hook(record)
    assert found is not None and found["narrative"] == REQUEST["narrative"]


def test_a_row_written_before_sealing_is_replayed_from_its_redacted_request(isolated_home: Path) -> None:
    engine = Engine(open_corpus("demo", None), log=False)
    answer = engine.determine(REQUEST)
    redacted = {**REQUEST, "narrative": "[redacted]"}
    log = AuditLog(isolated_home / "audit.sqlite")
    log.record(kind="determination", assertion_id=answer.assertion_id, trace_id=answer.trace_id,
               request_redacted=redacted, response_redacted=answer.as_json(), corpus=engine.corpus,
               store_path=None, settings=engine.knobs)  # no request_sealed: as an older clauseguard wrote it
    record = log.get(answer.assertion_id)
    log.close()
    assert record.request_sealed is None and original_request(record) is None
    assert replay(answer.assertion_id)["request_source"] == "redacted"


def test_a_sealed_original_under_another_key_is_exit_3_naming_the_assertion(
    isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    engine = Engine(open_corpus("demo", None))
    answer = engine.determine(REQUEST)
    engine.audit.close()
    key_path().unlink()
    fd = os.open(key_path(), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(os.urandom(32))
    with pytest.raises(SealError, match="does not open"):
        replay(answer.assertion_id)
    code = main(["--corpus", "demo", "replay", answer.assertion_id, "--json"])
    err = capsys.readouterr().err
    assert code == 3 and answer.assertion_id in err and "Traceback" not in err


def test_a_key_others_can_read_is_exit_3_and_no_answer_goes_out(isolated_home: Path) -> None:
    key = isolated_home / "seal.key"
    key.write_bytes(os.urandom(32))
    key.chmod(0o644)
    with pytest.raises(SealError, match="chmod 600") as caught:
        Engine(open_corpus("demo", None)).determine(REQUEST)
    assert caught.value.resource == str(key)
    assert audit_rows(isolated_home) == [] and trace_ids(isolated_home) == []


def test_the_migration_adds_the_column_to_an_older_log(isolated_home: Path) -> None:
    path = isolated_home / "audit.sqlite"
    conn = sqlite3.connect(path, isolation_level=None)
    migrate(conn, None, [m for m in AUDIT_MIGRATIONS if m[0] != "a003_20261201_sealed_originals"])
    conn.close()
    AuditLog(path).close()
    with sqlite3.connect(path) as conn:
        columns = [r[1] for r in conn.execute("PRAGMA table_info(assertions)")]
        applied = [r[0] for r in conn.execute("SELECT id FROM _migrations ORDER BY id")]
    assert "request_sealed" in columns and applied == sorted(m for m, _ in AUDIT_MIGRATIONS)
