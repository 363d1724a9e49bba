"""Issue 15, item 7: caches heal. A cached store or index that fails to open is rebuilt from its source
with a warning; a user's own store that cannot be used says whether it is locked or corrupt."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from clauseguard.corpus.loader import load_demo
from clauseguard.interfaces.cli import main
from clauseguard.retrieval import index as retrieval_index

SEARCH = ["--corpus", "demo", "search", "--contract", "CT-48213", "--question", "dental implant: coverage", "--json"]


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def without_timings(out: str) -> dict[str, object]:
    answer = json.loads(out)
    answer.pop("timings", None)
    return dict(answer)


def cached_store(home: Path) -> Path:
    return home / "cache" / f"{load_demo().fingerprint().removeprefix('sha256:')}.sqlite"


@pytest.mark.parametrize("damage", ["garbage", "truncated"])
def test_a_damaged_cached_store_is_rebuilt_with_a_warning(
    isolated_home: Path, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture, damage: str
) -> None:
    first = run(capsys, *SEARCH)
    assert first[0] == 0
    path = cached_store(isolated_home)
    data = path.read_bytes()
    path.write_bytes(b"\x00garbage" * 512 if damage == "garbage" else data[: len(data) // 2])
    code, out, err = run(capsys, *SEARCH)
    assert code == 0, err
    assert without_timings(out) == without_timings(first[1])  # the same answer, from the rebuilt cache
    assert "rebuilt" in caplog.text and str(path) in caplog.text
    assert run(capsys, *SEARCH)[0] == 0


def test_a_damaged_index_cache_is_rebuilt_with_a_warning(
    isolated_home: Path, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    assert run(capsys, *SEARCH)[0] == 0
    caches = sorted((isolated_home / "cache" / "index").glob("*.npz"))
    assert caches, "the first search leaves an embedding cache"
    for path in caches:
        path.write_bytes(b"PK\x03\x04 not really a zip file")
    retrieval_index._BUILT.clear()  # a new process: nothing built in memory
    code, out, err = run(capsys, *SEARCH)
    assert code == 0, err
    assert "rebuilt" in caplog.text and caches[0].name in caplog.text
    retrieval_index._BUILT.clear()
    assert run(capsys, *SEARCH)[0] == 0


def test_a_locked_own_store_says_locked(
    isolated_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    own = tmp_path / "mine.sqlite"
    assert run(capsys, "--corpus", "demo", "--store", str(own), "corpus", "stats", "--json")[0] == 0
    holder = sqlite3.connect(own, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        code, out, err = run(capsys, "--store", str(own), "corpus", "stats", "--json")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert code == 3 and out == "" and str(own) in err and "locked" in err and "corrupt" not in err


def test_a_corrupt_own_store_says_corrupt_and_is_left_alone(
    isolated_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    own = tmp_path / "mine.sqlite"
    assert run(capsys, "--corpus", "demo", "--store", str(own), "corpus", "stats", "--json")[0] == 0
    data = own.read_bytes()
    own.write_bytes(data[:100] + b"\xff" * (len(data) - 100))
    code, out, err = run(capsys, "--store", str(own), "corpus", "stats", "--json")
    assert code == 2 and out == "" and str(own) in err and "corrupt" in err and "locked" not in err
    assert own.read_bytes()[100:] == b"\xff" * (len(data) - 100)  # a user's own store is never rebuilt behind them
