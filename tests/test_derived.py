"""Derived-data caches (derived.py): read back what was written, rebuild what is unreadable, and
remove a kind's files that nothing has read for a week when a new one is written."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from clauseguard import derived


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("CLAUSEGUARD_HOME", str(tmp_path))
    return tmp_path


def test_a_written_table_reads_back_and_a_garbled_one_reads_as_absent(home: Path) -> None:
    path = derived.cache_path("kind", [("a", b"1")], b"fmt/1")
    derived.write_cache(path, ("x", 1))
    assert derived.read_cache(path, lambda v: isinstance(v, tuple)) == ("x", 1)
    assert derived.read_cache(path, lambda v: isinstance(v, dict)) is None  # wrong shape: rebuilt
    path.write_bytes(b"\x00garbage")
    assert derived.read_cache(path, lambda v: True) is None


def test_a_new_table_removes_the_stale_files_of_its_kind_only(home: Path) -> None:
    old = derived.cache_path("kind", [("a", b"1")], b"fmt/1")
    recent = derived.cache_path("kind", [("a", b"2")], b"fmt/1")
    other_kind = derived.cache_path("other", [("a", b"1")], b"fmt/1")
    for p in (old, recent, other_kind):
        derived.write_cache(p, (1,))
    week_ago = time.time() - derived.STALE_AFTER_S - 60
    for p in (old, other_kind):
        os.utime(p, (week_ago, week_ago))
    new = derived.cache_path("kind", [("a", b"3")], b"fmt/1")
    derived.write_cache(new, (3,))
    assert new.exists() and recent.exists() and other_kind.exists()
    assert not old.exists()


def test_reading_a_table_keeps_it_from_being_pruned(home: Path) -> None:
    used = derived.cache_path("kind", [("a", b"1")], b"fmt/1")
    derived.write_cache(used, (1,))
    week_ago = time.time() - derived.STALE_AFTER_S - 60
    os.utime(used, (week_ago, week_ago))
    assert derived.read_cache(used, lambda v: True) == (1,)
    derived.write_cache(derived.cache_path("kind", [("a", b"2")], b"fmt/1"), (2,))
    assert used.exists()


def test_a_package_folder_is_found_without_importing_it_and_a_missing_one_is_named() -> None:
    assert (derived.package_dir("clauseguard", "clauseguard") / "derived.py").exists()
    with pytest.raises(ModuleNotFoundError, match="no-such-dist is not installed"):
        derived.package_dir("no_such_module_here", "no-such-dist")
