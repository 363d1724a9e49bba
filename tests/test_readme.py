"""Every command the README shows runs as written: its shell blocks are run by bash, in order, in a fresh
CLAUSEGUARD_HOME, from a working tree laid out like the repository (with ../shared beside it).

Benchmarks (`python bench/...`) and the two make targets are left out: they time things or run this
very suite."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO, SHARED

pytestmark = pytest.mark.slow
BLOCK = re.compile(r"```sh\n(.*?)```", re.DOTALL)
LEFT_OUT = ("python bench/", "make ")


def readme_blocks() -> list[str]:
    blocks = BLOCK.findall((REPO / "README.md").read_text(encoding="utf-8"))
    return [b for b in blocks if "clauseguard" in b]


def script_of(block: str) -> str:
    lines = [line for line in block.splitlines() if not line.lstrip().startswith(LEFT_OUT)]
    return "\n".join(lines) + "\n"


def test_the_readme_shows_commands() -> None:
    blocks = readme_blocks()
    assert len(blocks) >= 2
    commands = " ".join(blocks)
    for command in ("search", "ask", "compare", "trace", "audit list", "decide", "report", "replay", "eval", "ingest"):
        assert f" {command}" in commands, command


def test_every_readme_command_runs_as_written(tmp_path: Path) -> None:
    if not (SHARED / "external" / "mkrafa" / "corpus.json").exists():
        pytest.skip(f"the README's external-suite commands need {SHARED} beside the repository")
    tree = tmp_path / "repo"
    tree.mkdir()
    for name in ("evals", "docs", "src", "bench"):
        (tree / name).symlink_to(REPO / name)
    (tmp_path / "shared").symlink_to(SHARED)
    home = tmp_path / "home"
    env = {**os.environ, "CLAUSEGUARD_HOME": str(home), "COLUMNS": "120",
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    env.pop("CLAUSEGUARD_GATE_POLICY", None)
    for i, block in enumerate(readme_blocks()):
        done = subprocess.run(["bash", "-euo", "pipefail", "-xc", script_of(block)],  # noqa: S603, S607 - the README
                              cwd=tree, env=env, capture_output=True, text=True, timeout=900, check=False)
        assert done.returncode == 0, f"README block {i} failed:\n{done.stderr[-3000:]}\n{done.stdout[-2000:]}"
    assert (tree / "corpus.yaml").exists() and (tree / "corpus.schema.json").exists()
    assert (home / "audit.sqlite").exists()
