"""Blind suites by manifest, and the only way the developers look at a holdout half: scores and
failure categories, never a case's text.

A suite folder (`evals/notes`, `evals/styles/drug_policy`, ...) holds a `suite.yaml` naming, per half,
the corpora and the case files over each (packed `*.gz.b64` for a holdout half). This module runs a
half through the engine with a throwaway CLAUSEGUARD_HOME (so no decoded holdout corpus stays on
disk) and prints counts: metrics, expected -> got gate/outcome pairs, failing reason codes, traps.

    python -m clauseguard.evals.holdout evals/notes evals/styles/drug_policy [--half holdout] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import yaml

HALVES: Final = ("dev", "holdout")
# Metrics printed per half: the design's scorecard keys that say nothing about any case's text.
ANSWER_KEYS: Final = ("cases", "determination_accuracy", "gate_correctness", "false_auto_determine", "missed_review",
                      "citation_faithfulness", "hallucinated_clause_count", "stale_citation_count",
                      "appropriate_refusal_rate")
SEARCH_KEYS: Final = ("cases", "pass_rate", "status_accuracy", "version_accuracy", "must_exclude_violations",
                      "wrong_answer_released")


@dataclass(frozen=True)
class Part:
    """One corpus of a half and the case files labelled against it."""

    corpus: str  # "demo", or a path relative to the repository root
    cases: tuple[str, ...]
    roles: str | None = None  # blind role labels of this corpus's clauses (compile rate)
    phrasebook: str | None = None


@dataclass(frozen=True)
class Manifest:
    name: str
    folder: Path
    halves: dict[str, tuple[Part, ...]] = field(default_factory=dict)


def repo_root(start: Path) -> Path:
    for p in [start.resolve(), *start.resolve().parents]:
        if (p / "pyproject.toml").is_file():
            return p
    raise FileNotFoundError(f"no repository root above {start}")


def load_manifest(folder: Path) -> Manifest:
    data = yaml.safe_load((folder / "suite.yaml").read_text(encoding="utf-8"))
    halves = {
        half: tuple(Part(str(p["corpus"]), tuple(p.get("cases", ())), p.get("roles"), p.get("phrasebook"))
                    for p in data["halves"][half])
        for half in HALVES if half in data.get("halves", {})
    }
    return Manifest(str(data["name"]), folder, halves)


def resolve(root: Path, path: str) -> Path | str:
    return path if path == "demo" else root / path


@contextmanager
def throwaway_home() -> Iterator[Path]:
    """A CLAUSEGUARD_HOME that is deleted afterwards, with the previous value restored."""
    before = os.environ.get("CLAUSEGUARD_HOME")
    home = Path(tempfile.mkdtemp(prefix="clauseguard-holdout-"))
    os.environ["CLAUSEGUARD_HOME"] = str(home)
    try:
        yield home
    finally:
        if before is None:
            os.environ.pop("CLAUSEGUARD_HOME", None)
        else:
            os.environ["CLAUSEGUARD_HOME"] = before
        shutil.rmtree(home, ignore_errors=True)


def failure_categories(per_case: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """What went wrong, counted: expected -> got pairs, reason codes of the misses, traps of the misses."""
    pairs: Counter[str] = Counter()
    codes: Counter[str] = Counter()
    traps: Counter[str] = Counter()
    search: Counter[str] = Counter()
    from clauseguard.evals.scorecard import TRAP_TOKEN, trap_labels

    for row in per_case:
        if row.get("passed"):
            continue
        for label in trap_labels(str(row.get("trap") or "")):
            # only the design's trap codes: an author's free-text trap describes the case's facts
            traps[label if TRAP_TOKEN.fullmatch(label) else "other"] += 1
        expected, actual = row.get("expected") or {}, row.get("actual") or {}
        if row.get("kind") == "determination":
            pairs[f"{expected.get('gate')}/{expected.get('outcome')} -> {actual.get('gate')}/{actual.get('outcome')}"] += 1
            for code in row.get("reason_codes") or ():
                codes[str(code)] += 1
        else:
            for failure in row.get("failures") or ():
                search[_search_problem(str(failure))] += 1
    out: dict[str, Any] = {"expected_to_got": dict(pairs.most_common()), "traps": dict(sorted(traps.items()))}
    if codes:
        out["reason_codes"] = dict(codes.most_common())
    if search:
        out["search_problems"] = dict(search.most_common())
    return out


_SEARCH_PROBLEMS: Final = ("status", "applicable_version", "action", "missing from sources", "must-exclude in sources",
                            "answer does not give the reason", "wrong value")


def _search_problem(failure: str) -> str:
    """A search failure's category, without the ids or words that follow it."""
    return next((p for p in _SEARCH_PROBLEMS if failure.startswith(p)), "other")


# Extra scorers by kind (a phrasebook, a roles file): registered by the readers that can judge them,
# each returning only counts. A scorer gets (root, part) and returns a dict, or None when it has nothing.
PartScorer = Callable[[Path, Part], dict[str, Any] | None]
EXTRA_SCORERS: list[tuple[str, PartScorer]] = []


def _extra_scorers() -> list[tuple[str, PartScorer]]:
    import clauseguard.evals.reading_scores  # noqa: F401 - registers the readers' judges

    return EXTRA_SCORERS


def run_part(root: Path, part: Part) -> dict[str, Any]:
    """One corpus and its cases through the engine: the metric sections and the failure categories."""
    from clauseguard.corpus.loader import load_demo, load_path
    from clauseguard.corpus.sources import open_corpus
    from clauseguard.engine import Engine
    from clauseguard.evals.evaluation import check_suite, run_checked

    out: dict[str, Any] = {"corpus": part.corpus if part.corpus == "demo" or not part.corpus.startswith("evals")
                           else Path(part.corpus).parent.name}
    target = resolve(root, part.corpus)
    if part.cases:
        corpus = load_demo() if target == "demo" else load_path(target)
        checked = check_suite([root / c for c in part.cases], corpus)
        engine = Engine(open_corpus(str(target), None)).warm_up()
        scored = run_checked(checked, engine)
        doc = scored.document
        out["invalid_cases"] = len(doc.get("invalid_cases", ()))
        if "answer" in doc:
            out["answer"] = {k: doc["answer"].get(k) for k in ANSWER_KEYS}
        if "search" in doc:
            out["search"] = {k: doc["search"].get(k) for k in SEARCH_KEYS if k in doc["search"]}
        out["failures"] = failure_categories(doc.get("per_case", ()))
    for name, scorer in _extra_scorers():
        found = scorer(root, part)
        if found is not None:
            out[name] = found
    return out


def run_half(manifest: Manifest, half: str, root: Path) -> dict[str, Any]:
    with throwaway_home():
        parts = [run_part(root, p) for p in manifest.halves.get(half, ())]
    return {"suite": manifest.name, "half": half, "parts": parts}


def _print(result: Mapping[str, Any]) -> None:
    print(f"== {result['suite']} / {result['half']}")
    for part in result["parts"]:
        print(f"  corpus {part['corpus']}")
        for key, value in part.items():
            if key == "corpus":
                continue
            print(f"    {key}: {json.dumps(value, sort_keys=False)}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m clauseguard.evals.holdout", description=__doc__.split("\n\n")[0])
    parser.add_argument("suites", nargs="+", help="suite folders holding a suite.yaml")
    parser.add_argument("--half", choices=HALVES, default="holdout")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    root = repo_root(Path.cwd())
    results = []
    for folder in args.suites:
        manifest = load_manifest(Path(folder))
        results.append(run_half(manifest, args.half, root))
    if args.json:
        sys.stdout.write(json.dumps(results, indent=1) + "\n")
    else:
        for r in results:
            _print(r)
    return 0


if __name__ == "__main__":  # pragma: no cover
    # run the imported module's main, so scorers registered against it are the ones used
    from clauseguard.evals import holdout

    sys.exit(holdout.main())
