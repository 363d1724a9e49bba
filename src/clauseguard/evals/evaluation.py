"""One evaluation from end to end: load the suites, validate every label, run the valid cases, score,
compare with a baseline; and the exit status that follows.

Every way in (the CLI today) calls these functions and only renders what they return.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from clauseguard.corpus.model import Corpus
from clauseguard.errors import ClauseguardError
from clauseguard.evals.baseline import (
    BaselineError,
    Diff,
    baseline_document,
    diff_against,
    read_baseline,
    suite_name,
    write_baseline,
)
from clauseguard.evals.cases import Case, Suite, load_suite
from clauseguard.evals.corpus_facts import CorpusFacts
from clauseguard.evals.runner import EngineLike, Run, run_cases
from clauseguard.evals.scorecard import Scored, build_scorecard
from clauseguard.evals.validate import InvalidCase, validate_cases


class EngineMismatchError(ClauseguardError):
    """The engine answers over another corpus than the one the labels were checked against."""


@dataclass(frozen=True)
class Checked:
    """A suite with its labels checked against the corpus."""

    suite: Suite
    facts: CorpusFacts
    invalid: tuple[InvalidCase, ...]

    @property
    def valid_cases(self) -> tuple[Case, ...]:
        bad = {i.case_id for i in self.invalid}
        return tuple(c for c in self.suite.cases if c.case_id not in bad)

    def document(self) -> dict[str, Any]:
        """The scorecard's head alone (what `--validate-only` prints)."""
        return {
            "case_set": {"count": self.suite.count, "hash": self.suite.hash},
            "corpus": {"fingerprint": self.facts.fingerprint},
            "invalid_cases": [i.as_json() for i in self.invalid],
        }


def check_suite(paths: Sequence[Path | str], corpus: Corpus) -> Checked:
    """Load the case files and check every label; an invalid case is listed, never run."""
    suite = load_suite(paths)
    facts = CorpusFacts(corpus)
    return Checked(suite, facts, tuple(validate_cases(suite.cases, facts)))


def run_checked(checked: Checked, engine: EngineLike, on_done: Callable[[Run], None] | None = None) -> Scored:
    """Run the valid cases through the engine and score them."""
    # labels are checked against the corpus model; criteria revisions (in the engine's fingerprint) do not change it
    corpus = getattr(engine, "corpus", None)
    answering = corpus.fingerprint() if corpus is not None else engine.corpus_fingerprint
    if answering != checked.facts.fingerprint:
        raise EngineMismatchError(
            f"the engine answers over corpus {answering}, but the labels were checked against "
            f"{checked.facts.fingerprint}; build the engine from the same --corpus"
        )
    runs = run_cases(checked.valid_cases, engine, on_done=on_done)
    scored = build_scorecard(checked.suite, runs, checked.invalid, checked.facts)
    model = dict(engine.knobs).get("model")
    if model:  # a model run says which model, with which settings, and what it did in total
        per_case = scored.document.pop("per_case")
        rows = [r["model"] for r in per_case if isinstance(r.get("model"), dict)]
        scored.document["model"] = {
            **model,
            "accepted": sum(r["accepted"] for r in rows), "rejected": sum(r["rejected"] for r in rows),
            "cases_using_model_output": sum(r["used"] for r in rows),
            "usd": round(sum(float(r["usd"] or 0.0) for r in rows), 6),
        }
        scored.document["per_case"] = per_case
    return scored


def model_label(engine: EngineLike) -> str | None:
    """The configured model's label (a model run's baseline file carries it), or None without a model."""
    model = dict(engine.knobs).get("model")
    return str(model.get("label")) if isinstance(model, dict) and model.get("label") else None


def compare(scorecard: dict[str, Any], engine: EngineLike, baseline_path: Path) -> Diff:
    """The run against the baseline at `baseline_path` (BaselineError when there is none)."""
    return diff_against(
        read_baseline(baseline_path),
        scorecard,
        lexicon_fingerprint=engine.lexicon_fingerprint,
        knobs=engine.knobs,
        path=str(baseline_path),
    )


def save_baseline(scorecard: dict[str, Any], engine: EngineLike, baseline_path: Path, case_files: Sequence[Path | str]) -> None:
    """Write the run as the baseline; never over a baseline made with another model (or with none)."""
    try:
        before = ((read_baseline(baseline_path).get("knobs") or {}).get("model") or {}).get("label")
    except BaselineError:  # none yet, or one that cannot be read: --set-baseline writes it afresh
        before = model_label(engine)
    if before != model_label(engine):
        made = f"with model {before}" if before else "without a model"
        raise BaselineError(f"{baseline_path} was made {made}; a run with another model never overwrites it "
                            "(give another --baseline, or leave it out for the model's own file)")
    write_baseline(
        baseline_path,
        baseline_document(
            scorecard,
            name=suite_name(case_files),
            lexicon_fingerprint=engine.lexicon_fingerprint,
            knobs=engine.knobs,
        ),
    )


def fell_short(scorecard: dict[str, Any], diff: Diff | None) -> list[str]:
    """Why the evaluation exits 1: an invalid case, false_auto_determine or wrong_answer_released above
    zero, a blocking regression."""
    why: list[str] = []
    invalid = scorecard.get("invalid_cases") or []
    if invalid:
        why.append(f"{len(invalid)} invalid case{'s' if len(invalid) != 1 else ''}")
    fad = (scorecard.get("answer") or {}).get("false_auto_determine") or 0
    if fad:
        why.append(f"false_auto_determine {fad} (must be 0)")
    released = (scorecard.get("search") or {}).get("wrong_answer_released") or 0
    if released:
        why.append(f"wrong_answer_released {released} (must be 0)")
    if diff is not None and diff.regressions:
        why.append(f"{len(diff.regressions)} regression{'s' if len(diff.regressions) != 1 else ''} against {diff.path}")
    return why
