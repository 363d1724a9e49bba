"""Baselines: a scorecard's metrics saved with what they were measured on, and the diff against one.

A baseline is compared only with a run on the same case-set hash and corpus fingerprint; any other
pair is reported as not comparable and never fails. A change of lexicon or knobs is noted, and the
run is still compared, since that is what a baseline is for. Latency never enters a baseline: speed
lives in `bench/`, and a committed baseline must not change from one run to the next.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Literal

from clauseguard.errors import ClauseguardError

FORMAT: Final = "clauseguard.eval-baseline/v1"
SECTIONS: Final = ("retrieval", "answer", "search", "calibration")
NOT_KEPT: Final = frozenset({"p50_latency_s", "p95_latency_s"})
TOLERANCE: Final = 1e-9

Better = Literal["higher", "lower"]

# The metrics whose worsening blocks a release (exit 1), and which direction is better.
BLOCKING: Final[tuple[tuple[str, str, Better], ...]] = (
    ("answer", "false_auto_determine", "lower"),
    ("answer", "citation_faithfulness", "higher"),
    ("answer", "hallucinated_clause_count", "lower"),
    ("answer", "stale_citation_count", "lower"),
    ("answer", "determination_accuracy", "higher"),
    ("answer", "gate_correctness", "higher"),
    ("search", "pass_rate", "higher"),
    ("search", "must_exclude_violations", "lower"),
    ("search", "wrong_answer_released", "lower"),
)
# Reported when they move, never blocking.
WATCHED: Final[tuple[tuple[str, str, Better], ...]] = (
    ("retrieval", "gold_clause_recall", "higher"),
    ("retrieval", "stale_retrieval_rate", "lower"),
    ("answer", "appropriate_refusal_rate", "higher"),
    ("answer", "missed_review", "lower"),
    ("search", "status_accuracy", "higher"),
    ("search", "version_accuracy", "higher"),
    ("search", "missed_escalation", "lower"),
    ("calibration", "ece", "lower"),
    ("calibration", "brier", "lower"),
)


class BaselineError(ClauseguardError):
    """A baseline file that is missing or cannot be read; says how to make one (exit 2)."""


def _jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value, sort_keys=True, default=str))


def metrics_of(scorecard: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The scorecard's metric sections, latency left out."""
    return {
        name: {k: v for k, v in scorecard[name].items() if k not in NOT_KEPT}
        for name in SECTIONS
        if isinstance(scorecard.get(name), Mapping)
    }


def baseline_document(
    scorecard: Mapping[str, Any], *, name: str, lexicon_fingerprint: str, knobs: Mapping[str, Any]
) -> dict[str, Any]:
    """What `--set-baseline` writes: case-set hash, corpus and lexicon fingerprints, knobs, metrics."""
    return {
        "format": FORMAT,
        "name": name,
        "case_set": dict(scorecard["case_set"]),
        "corpus": dict(scorecard["corpus"]),
        "lexicon": {"fingerprint": lexicon_fingerprint},
        "knobs": _jsonable(dict(knobs)),
        "invalid_cases": len(scorecard.get("invalid_cases") or []),
        "metrics": metrics_of(scorecard),
    }


def write_baseline(path: Path, document: Mapping[str, Any]) -> None:
    """Write the baseline whole (a temporary file renamed over the old one)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(path)


def read_baseline(path: Path) -> dict[str, Any]:
    if not path.is_file():
        raise BaselineError(f"no baseline at {path}; write one with `clauseguard eval ... --set-baseline`")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BaselineError(f"baseline {path} cannot be read: {exc}") from exc
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise BaselineError(f"baseline {path} is not a {FORMAT} file; rewrite it with --set-baseline")
    return data


def suite_name(case_files: Sequence[Path | str]) -> str:
    """A baseline's default name from its case files: `demo-determinations+search` for
    evals/demo/{determinations,search}.json; files in several folders name each folder."""
    paths = [Path(p) for p in case_files]
    parents = {p.resolve().parent.name for p in paths}
    if len(parents) == 1:
        return f"{parents.pop()}-" + "+".join(sorted(p.stem for p in paths))
    return "+".join(sorted(f"{p.resolve().parent.name}-{p.stem}" for p in paths))


def default_baseline_path(case_files: Sequence[Path | str], cwd: Path | None = None, model: str | None = None) -> Path:
    """`evals/baselines/<name>.json` under the `evals/` folder that holds the first case file, else under the working directory;
    a run with a model gets `<name>@<model label>.json`, so it never overwrites the deterministic baseline."""
    name = suite_name(case_files) + (f"@{model}" if model else "")
    first = Path(case_files[0]).resolve()
    for parent in first.parents:
        if parent.name == "evals":
            return parent / "baselines" / f"{name}.json"
    return (cwd or Path.cwd()) / "evals" / "baselines" / f"{name}.json"


@dataclass(frozen=True)
class Movement:
    """One metric that changed between the baseline and this run."""

    section: str
    metric: str
    before: Any
    after: Any
    blocking: bool

    def sentence(self) -> str:
        kind = "regression" if self.blocking else "change"
        return f"{kind}: {self.section}.{self.metric} {self.before} -> {self.after}"


@dataclass(frozen=True)
class Diff:
    """The comparison with one baseline; `regressions` non-empty means exit 1."""

    path: str
    comparable: bool
    notes: tuple[str, ...]
    regressions: tuple[Movement, ...]
    changes: tuple[Movement, ...]

    def as_json(self) -> dict[str, Any]:
        return {
            "baseline": self.path,
            "comparable": self.comparable,
            "notes": list(self.notes),
            "regressions": [m.sentence() for m in self.regressions],
            "changes": [m.sentence() for m in self.changes],
        }


def _worse(before: Any, after: Any, better: Better) -> bool:
    if not isinstance(before, (int, float)) or not isinstance(after, (int, float)):
        return False
    return after < before - TOLERANCE if better == "higher" else after > before + TOLERANCE


def _moved(before: Any, after: Any) -> bool:
    if isinstance(before, (int, float)) and isinstance(after, (int, float)):
        return abs(after - before) > TOLERANCE
    return before != after


def diff_against(
    baseline: Mapping[str, Any],
    scorecard: Mapping[str, Any],
    *,
    lexicon_fingerprint: str,
    knobs: Mapping[str, Any],
    path: str = "",
) -> Diff:
    """Like with like only: same case-set hash and corpus fingerprint, else not comparable (never a failure).
    A blocking metric that got worse is a regression; a section that disappeared counts as worse."""
    notes: list[str] = []
    base_hash = (baseline.get("case_set") or {}).get("hash")
    base_corpus = (baseline.get("corpus") or {}).get("fingerprint")
    now_hash = scorecard["case_set"]["hash"]
    now_corpus = scorecard["corpus"]["fingerprint"]
    if base_hash != now_hash:
        notes.append(f"case-set hash differs (baseline {base_hash}, this run {now_hash}): not compared")
    if base_corpus != now_corpus:
        notes.append(f"corpus fingerprint differs (baseline {base_corpus}, this run {now_corpus}): not compared")
    if notes:
        return Diff(path, False, tuple(notes), (), ())

    base_lexicon = (baseline.get("lexicon") or {}).get("fingerprint")
    if base_lexicon != lexicon_fingerprint:
        notes.append(f"lexicon fingerprint changed ({base_lexicon} -> {lexicon_fingerprint})")
    base_knobs = baseline.get("knobs") or {}
    now_knobs = _jsonable(dict(knobs))
    for key in sorted(set(base_knobs) | set(now_knobs)):
        if base_knobs.get(key) != now_knobs.get(key):
            notes.append(f"knob {key} changed ({base_knobs.get(key)!r} -> {now_knobs.get(key)!r})")

    before_metrics = baseline.get("metrics") or {}
    after_metrics = metrics_of(scorecard)
    regressions: list[Movement] = []
    changes: list[Movement] = []
    for blocking, table in ((True, BLOCKING), (False, WATCHED)):
        for section, metric, better in table:
            if section not in before_metrics:
                continue
            before = before_metrics[section].get(metric)
            after = (after_metrics.get(section) or {}).get(metric)
            if not _moved(before, after):
                continue
            worse = _worse(before, after, better) or (before is not None and after is None)
            movement = Movement(section, metric, before, after, blocking and worse)
            (regressions if movement.blocking else changes).append(movement)
    return Diff(path, True, tuple(notes), tuple(regressions), tuple(changes))
