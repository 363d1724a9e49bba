"""Blind suites by manifest, and the only way the developers look at a holdout half: scores and
failure categories, never a case's text.

A suite folder (`evals/notes`, `evals/styles/drug_policy`, ...) holds a `suite.yaml` naming, per half,
the corpora and the case files over each (packed `*.gz.b64` for a holdout half). This module runs a
half through the engine with a throwaway CLAUSEGUARD_HOME (so no decoded holdout corpus stays on
disk) and prints counts: metrics, expected -> got gate/outcome pairs, failing reason codes, traps.

    python -m clauseguard.evals.holdout evals/notes evals/styles/drug_policy [--half holdout] [--json]
        [--check BASELINE] [--set-baseline BASELINE]

`--check` exits 1 when a part lets out a false auto-determination, a judged phrasebook reads a fact
wrong, or a metric falls below the baseline's (which holds the same counts, never text).
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

from clauseguard.evals.reliability import diagram, reliability, summary

HALVES: Final = ("dev", "holdout")
# Metrics printed per half: the design's scorecard keys that say nothing about any case's text.
ANSWER_KEYS: Final = ("cases", "determination_accuracy", "gate_correctness", "false_auto_determine", "missed_review",
                      "citation_faithfulness", "hallucinated_clause_count", "stale_citation_count",
                      "appropriate_refusal_rate")
SEARCH_KEYS: Final = ("cases", "pass_rate", "status_accuracy", "version_accuracy", "must_exclude_violations",
                      "wrong_answer_released", "missed_escalation")


@dataclass(frozen=True)
class Part:
    """One corpus of a half and the case files labelled against it."""

    corpus: str  # "demo", or a path relative to the repository root
    cases: tuple[str, ...]
    roles: str | None = None  # blind role labels of this corpus's clauses (compile rate)
    phrasebook: str | None = None
    criteria: dict[str, str] | None = None  # a reviewed criteria sheet to evaluate with: {sheet, author, approved_by, note}


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
        half: tuple(Part(str(p["corpus"]), tuple(p.get("cases", ())), p.get("roles"), p.get("phrasebook"),
                         p.get("criteria"))
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
    released: Counter[str] = Counter()
    fad_clauses: Counter[str] = Counter()  # the corpus clauses that let out a false auto-determination
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
            if row.get("false_auto_determine"):
                for clause_id in row.get("cited") or ():
                    fad_clauses[str(clause_id)] += 1
            for code in row.get("reason_codes") or ():
                codes[str(code)] += 1
        else:
            for failure in row.get("failures") or ():
                search[_search_problem(str(failure))] += 1
            for kind in row.get("released_kinds") or ():
                released[str(kind)] += 1
    out: dict[str, Any] = {"expected_to_got": dict(pairs.most_common()), "traps": dict(sorted(traps.items()))}
    if codes:
        out["reason_codes"] = dict(codes.most_common())
    if search:
        out["search_problems"] = dict(search.most_common())
    if released:
        out["wrong_answer_released_kinds"] = dict(released.most_common())
    if fad_clauses:
        out["false_auto_determine_clauses"] = dict(sorted(fad_clauses.items()))
    return out


def _criteria_counts(answers: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """How the deciding clauses' criteria were judged in the false auto-determinations, counted as
    "clause: criterion = result (where the fact came from)": the corpus's words, never a case's."""
    found: Counter[str] = Counter()
    for answer in answers:
        for c in answer.get("criteria") or ():
            source = str(c.get("source") or "unstated").split(":", 1)[0]
            found[f"{c.get('clause_id')}: {c.get('criterion')} = {c.get('result')} ({source})"] += 1
    return dict(sorted(found.items()))


def _missing_counts(answers: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """The facts the missed determinations named as missing, counted by the criterion's label (the
    criteria's words, never a case's): where the fact reader falls short."""
    found: Counter[str] = Counter()
    for answer in answers:
        for label in dict.fromkeys(str(c.get("criterion")) for c in answer.get("criteria") or ()
                                   if c.get("result") == "unknown" and c.get("role") != "exception"):
            found[label] += 1
    return dict(found.most_common())


_SEARCH_PROBLEMS: Final = ("status", "applicable_version", "action", "missing from sources", "must-exclude in sources",
                            "answer does not give the reason", "wrong value", "value missing")


def _search_problem(failure: str) -> str:
    """A search failure's category, without the ids or words that follow it."""
    return next((p for p in _SEARCH_PROBLEMS if failure.startswith(p)), "other")


# Extra scorers by kind (a phrasebook, a roles file): registered by the readers that can judge them,
# each returning only counts. A scorer gets (root, part) and returns a dict, or None when it has nothing.
PartScorer = Callable[[Path, Part], dict[str, Any] | None]
EXTRA_SCORERS: list[tuple[str, PartScorer]] = []


def _extra_scorers() -> list[tuple[str, PartScorer]]:
    import clauseguard.evals.reading_scores  # noqa: F401 - registers the readers' judges
    from clauseguard.evals import holdout  # the registry they add to (this file may be running as __main__)

    return holdout.EXTRA_SCORERS


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
        opened = open_corpus(str(target), None)
        if part.criteria:  # the suite's reviewed criteria revisions (clauseguard.authoring), in this throwaway store
            from clauseguard.authoring.submit import apply_reviewed_sheet

            sheet = part.criteria
            apply_reviewed_sheet(opened, root / sheet["sheet"], author=sheet["author"],
                                 approved_by=sheet["approved_by"], note=sheet["note"])
        engine = Engine(opened, deadline_s=None).warm_up()  # scores measure the rules, never the machine's load
        answers: dict[str, Mapping[str, Any]] = {}
        scored = run_checked(checked, engine, on_done=lambda run: answers.__setitem__(
            run.case.case_id, getattr(run, "answer", None) or {}))
        doc = scored.document
        out["invalid_cases"] = len(doc.get("invalid_cases", ()))
        if "answer" in doc:
            out["answer"] = {k: doc["answer"].get(k) for k in ANSWER_KEYS}
        if "search" in doc:
            out["search"] = {k: doc["search"].get(k) for k in SEARCH_KEYS if k in doc["search"]}
            # the search scores' calibration on this half: counts only (pairs, ECE, Brier)
            pairs = [p for score in scored.searches for p in score.pairs]
            out["search_calibration"] = summary(pairs)
            out[PAIRS] = pairs
        out["failures"] = failure_categories(doc.get("per_case", ()))
        fad = [answers.get(str(r.get("case_id")), {}) for r in doc.get("per_case", ()) if r.get("false_auto_determine")]
        criteria = _criteria_counts(fad)
        if criteria:
            out["failures"]["false_auto_determine_criteria"] = criteria
        missed = _missing_counts([answers.get(str(r.get("case_id")), {}) for r in doc.get("per_case", ())
                                  if r.get("kind") == "determination" and not r.get("passed")])
        if missed:
            out["failures"]["missing_facts"] = missed
    for name, scorer in _extra_scorers():
        found = scorer(root, part)
        if found is not None:
            out[name] = found
    return out


def run_half(manifest: Manifest, half: str, root: Path) -> dict[str, Any]:
    specs = manifest.halves.get(half, ())
    with throwaway_home():
        parts = [run_part(root, p) for p in specs]
    labels = Counter(p["corpus"] for p in parts)
    for spec, part in zip(specs, parts, strict=True):
        if labels[part["corpus"]] > 1 and spec.cases:
            # one corpus under two case files: each part keeps its own baseline (named by its file, never a case)
            part["corpus"] = f"{part['corpus']} + {spec.cases[0]}"
    return {"suite": manifest.name, "half": half, "parts": parts}


PAIRS: Final = "_pairs"  # kept in-process for the pooled calibration; never printed


def _print(result: Mapping[str, Any]) -> None:
    print(f"== {result['suite']} / {result['half']}")
    for part in result["parts"]:
        print(f"  corpus {part['corpus']}")
        for key, value in part.items():
            if key in ("corpus", PAIRS):
                continue
            print(f"    {key}: {json.dumps(value, sort_keys=False)}")


# Metrics that may not fall below the baseline's, and counts that may not rise above it. The safety
# counts (false auto-determinations, facts read wrong) must be 0 where the baseline has none and may
# never rise above the baseline's where it has some: the target is 0 everywhere, and a count that is not
# yet 0 is recorded in the baseline and in the closing notes, never hidden.
NOT_BELOW: Final = (("answer", "determination_accuracy"), ("answer", "gate_correctness"),
                    ("answer", "citation_faithfulness"), ("note_phrasebook", "exact"), ("search", "pass_rate"),
                    ("policy_phrasebook", "exact"), ("compile_rate", "compile_rate"))
NOT_ABOVE: Final = (("answer", "hallucinated_clause_count"), ("answer", "stale_citation_count"),
                    ("answer", "false_auto_determine"), ("note_phrasebook", "wrong"),
                    ("search", "wrong_answer_released"), ("policy_phrasebook", "wrong"))
SAFETY: Final = (("answer", "false_auto_determine"), ("note_phrasebook", "wrong"), ("search", "wrong_answer_released"),
                 ("policy_phrasebook", "wrong"))


def problems(results: Sequence[Mapping[str, Any]], baseline: Sequence[Mapping[str, Any]] | None) -> list[str]:
    """Why a run falls short: a safety count above the baseline's (above 0 with no baseline), or a
    metric below the baseline's for the same suite, half and corpus."""
    out: list[str] = []
    before = {(b["suite"], b["half"], p["corpus"]): p for b in (baseline or ()) for p in b["parts"]}
    for result in results:
        for part in result["parts"]:
            where = f"{result['suite']}/{result['half']} {part['corpus']}"
            old = before.get((result["suite"], result["half"], part["corpus"]))
            if old is None:
                for section, key in SAFETY:
                    value = (part.get(section) or {}).get(key)
                    if value:
                        out.append(f"{where}: {section}.{key} is {value} (must be 0)")
                continue
            for section, key in NOT_BELOW:
                new_v, old_v = (part.get(section) or {}).get(key), (old.get(section) or {}).get(key)
                if isinstance(new_v, int | float) and isinstance(old_v, int | float) and new_v < old_v - 1e-9:
                    out.append(f"{where}: {section}.{key} {old_v} -> {new_v}")
            for section, key in NOT_ABOVE:
                new_v, old_v = (part.get(section) or {}).get(key), (old.get(section) or {}).get(key)
                if isinstance(new_v, int | float) and isinstance(old_v, int | float) and new_v > old_v:
                    out.append(f"{where}: {section}.{key} {old_v} -> {new_v}")
    return out


def baseline_of(results: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """What a baseline keeps of a run: the counts `problems` compares, never the failure categories,
    whose keys are criterion labels in the corpus's own words (a holdout's wording stays out of the repo)."""
    return [{**r, "parts": [{k: v for k, v in p.items() if k != "failures"} for p in r["parts"]]} for r in results]


def pooled_calibration(results: Sequence[Mapping[str, Any]], png: Path | None) -> dict[str, Any]:
    """The search scores' calibration over every part of every suite run (counts only), and the
    reliability diagram written to `png` when given."""
    pairs = [p for r in results for part in r["parts"] for p in part.get(PAIRS, ())]
    out: dict[str, Any] = {"suites": [r["suite"] for r in results], **summary(pairs)}
    out["reliability"] = [[round(b.low, 1), round(b.mean_score, 3), round(b.relevant_share, 3), b.pairs]
                          for b in reliability(pairs)]
    if png is not None and pairs:
        out["diagram"] = str(diagram(pairs, png))
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m clauseguard.evals.holdout", description=__doc__.split("\n\n")[0])
    parser.add_argument("suites", nargs="+", help="suite folders holding a suite.yaml")
    parser.add_argument("--half", choices=HALVES, default="holdout")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--reliability", type=Path, default=None,
                        help="write the pooled search calibration's reliability diagram to this PNG")
    parser.add_argument("--check", type=Path, help="a baseline to hold the run to (exit 1 when it falls short)")
    parser.add_argument("--set-baseline", type=Path, help="write this run's counts as the baseline")
    args = parser.parse_args(argv)
    root = repo_root(Path.cwd())
    results = []
    for folder in args.suites:
        manifest = load_manifest(Path(folder))
        results.append(run_half(manifest, args.half, root))
    pooled = pooled_calibration(results, args.reliability)
    shown = [{**r, "parts": [{k: v for k, v in p.items() if k != PAIRS} for p in r["parts"]]} for r in results]
    if args.json:
        sys.stdout.write(json.dumps({"halves": shown, "search_calibration": pooled}, indent=1) + "\n")
    else:
        for r in shown:
            _print(r)
        print(f"== search calibration, pooled: {json.dumps(pooled)}")
    if args.set_baseline is not None:
        args.set_baseline.write_text(json.dumps(baseline_of(shown), indent=1, sort_keys=True) + "\n", encoding="utf-8")
    if args.check is not None:
        baseline = json.loads(args.check.read_text(encoding="utf-8")) if args.check.exists() else None
        found = problems(shown, baseline)
        for line in found:
            sys.stderr.write(f"holdout check: {line}\n")
        if baseline is None:
            sys.stderr.write(f"holdout check: no baseline at {args.check}; only the zero rules were checked\n")
        return 1 if found else 0
    return 0


if __name__ == "__main__":  # pragma: no cover
    # run the imported module's main, so scorers registered against it are the ones used
    from clauseguard.evals import holdout

    sys.exit(holdout.main())
