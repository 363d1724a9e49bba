"""Where each phrase, cue and atom word of the grammar's data is used: the blind phrasebooks and dev
corpora of the house styles, the real CMS text and the external suite's corpus, by style.

A grammar entry may stay only when two independent sources in different styles use it (never one
sentence, one case or one corpus). `python -m clauseguard.reading.grammar.sources` prints the table
and rewrites `data/grammar/SOURCES.yaml`; a test recomputes it and fails on an entry with fewer than
two styles. It reads suites' dev halves only, never a holdout.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Final

import yaml

from clauseguard.reading.grammar.phrases import _compile
from clauseguard.text import fold

STYLES: Final = ("cms_lcd", "medical_policy", "drug_policy", "group_terms")
DATA_FILES: Final = ("phrases.yaml", "roles.yaml", "atoms.yaml")


def _repo() -> Path:
    here = Path(__file__).resolve()
    for p in here.parents:
        if (p / "pyproject.toml").is_file() and (p / "evals").is_dir():
            return p
    raise FileNotFoundError("the repository's evals/ folder is not beside the package")


def texts() -> Iterator[tuple[str, str, str]]:
    """(style, source id, text) for every dev sentence and clause a grammar entry may cite."""
    root = _repo()
    for style in STYLES:
        book = root / "evals" / "styles" / style / "dev" / "phrasebook.yaml"
        for e in yaml.safe_load(book.read_text(encoding="utf-8"))["sentences"]:
            yield style, str(e["id"]), str(e["text"])
        corpus = yaml.safe_load((root / "evals" / "styles" / style / "dev" / "corpus.yaml").read_text(encoding="utf-8"))
        for d in corpus.get("documents", ()):
            for v in d["versions"]:
                for c in v["clauses"]:
                    yield style, str(c["id"]), str(c["text"])
                    yield from _headings(style, c)
    shapes = root / "evals" / "styles" / "shapes" / "dev" / "phrasebook.yaml"  # the second edition: one book, every style
    if shapes.is_file():
        for e in yaml.safe_load(shapes.read_text(encoding="utf-8"))["sentences"]:
            yield str(e["style"]), str(e["id"]), str(e["text"])
    real = root.parent / "shared" / "real" / "cms-l33822" / "corpus.yaml"
    if real.is_file():
        for d in yaml.safe_load(real.read_text(encoding="utf-8"))["documents"]:
            for v in d["versions"]:
                for c in v["clauses"]:
                    yield "cms_lcd", str(c["id"]), str(c["text"])
                    yield from _headings("cms_lcd", c)
    external = root.parent / "shared" / "external" / "mkrafa" / "corpus.json"
    if external.is_file():
        for c in json.loads(external.read_text(encoding="utf-8"))["clauses"]:
            yield "external_bulletin", str(c["clause_id"]), str(c["text"])


def _headings(style: str, clause: dict[str, Any]) -> Iterator[tuple[str, str, str]]:
    """A clause's section and article headings (what roles.yaml `sections` is matched on)."""
    for key in ("section", "article"):
        if clause.get(key):
            yield style, f"{clause['id']}#{key}", str(clause[key])


def patterns() -> Iterator[tuple[str, str, str]]:
    """(file, key path, pattern) for every pattern of the grammar's data files."""
    base = resources.files("clauseguard") / "data" / "grammar"
    for name in DATA_FILES:
        data = yaml.safe_load((base / name).read_text(encoding="utf-8"))
        yield from _walk(name, "", data)


def _walk(file: str, path: str, node: Any) -> Iterator[tuple[str, str, str]]:
    if isinstance(node, dict):
        if "pattern" in node:
            yield file, path, str(node["pattern"])
            return
        for k, v in node.items():
            if k != "version":
                yield from _walk(file, f"{path}.{k}" if path else str(k), v)
    elif isinstance(node, list):
        for item in node:
            yield from _walk(file, path, item)
    elif isinstance(node, str) and path:
        yield file, path, node


@lru_cache(maxsize=1)
def _folded() -> tuple[tuple[str, str, str], ...]:
    return tuple((style, sid, fold(text)) for style, sid, text in texts())


def sources_of(pattern: str, limit: int = 3) -> dict[str, list[str]]:
    """Per style, up to `limit` source ids whose text the pattern matches."""
    try:
        rx = re.compile(_compile(pattern))
    except (re.error, KeyError, ValueError):
        rx = re.compile(re.escape(fold(pattern)))
    found: dict[str, list[str]] = {}
    for style, sid, text in _folded():
        if len(found.get(style, ())) >= limit:
            continue
        if rx.search(text):
            found.setdefault(style, []).append(sid)
    return found


def report() -> list[dict[str, Any]]:
    return [{"file": f, "path": p, "pattern": pat, "sources": sources_of(pat)} for f, p, pat in patterns()]


def main(argv: list[str]) -> int:
    rows = report()
    short = [r for r in rows if len(r["sources"]) < 2]
    for r in rows:
        styles = ", ".join(sorted(r["sources"])) or "none"
        mark = "  " if len(r["sources"]) >= 2 else "!!"
        print(f"{mark} {r['file']}:{r['path']}: {r['pattern']!r} — {styles}")
    print(f"\n{len(rows)} entries, {len(short)} with fewer than two styles")
    if "--write" in argv:
        out = Path(str(resources.files("clauseguard") / "data" / "grammar" / "SOURCES.yaml"))
        out.write_text(
            "# Generated by `python -m clauseguard.reading.grammar.sources --write`: the dev sources (by style) of\n"
            "# every grammar entry. An entry needs two styles.\n"
            + yaml.safe_dump(rows, sort_keys=False, allow_unicode=True, width=110), encoding="utf-8")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))
