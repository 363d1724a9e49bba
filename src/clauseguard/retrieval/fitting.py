"""Fit a backend's calibration on two labelled sets (the demo questions and the house-style suites'
dev search questions) and report it on the external suite's gold clauses.

    python -m clauseguard.retrieval.fitting --backend wordllama [--styles evals/styles] \
        [--report ../shared/external/mkrafa] [--write]

Prints fit-set and report-set ECE and Brier score; `--write` stores the parameters in
`clauseguard/data/calibration/<backend>.json`. Fitting is deterministic (same data, same file). The
third set, which nobody fits on, is the styles' holdout halves: `python -m clauseguard.evals.holdout`
prints its calibration.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Final, NamedTuple

import numpy as np

from clauseguard.corpus.loader import load_demo, load_path
from clauseguard.corpus.model import Corpus
from clauseguard.retrieval.calibration import (
    Calibrator,
    brier_score,
    expected_calibration_error,
    fit_calibration,
    reliability_table,
    save_calibration,
    uncalibrated,
)
from clauseguard.retrieval.index import LEXICAL_ONLY, RetrievalIndex, build_index
from clauseguard.retrieval.labelled import (
    LabelledQuestion,
    Pairs,
    external_report_questions,
    labelled_pairs,
    load_questions,
    search_case_questions,
)


class CalibrationReport(NamedTuple):
    """ECE and Brier score of a calibrator on one labelled set, with its size."""

    pairs: int
    positives: int
    ece: float
    brier: float


def report(calibrator: Calibrator, pairs: Pairs) -> CalibrationReport:
    probs = calibrator.apply(pairs.features)
    return CalibrationReport(
        pairs=len(pairs.labels),
        positives=int(pairs.labels.sum()),
        ece=expected_calibration_error(probs, pairs.labels),
        brier=brier_score(probs, pairs.labels),
    )


def evaluate_calibration(
    index: RetrievalIndex, corpus: Corpus, questions: Iterable[LabelledQuestion]
) -> CalibrationReport:
    """ECE and Brier score of the index's own calibration on labelled questions over its corpus
    (what `eval` reports: pass the external suite's determination cases as questions)."""
    return report(index.calibrator, labelled_pairs(index, corpus, questions))


STYLES: Final = ("cms_lcd", "drug_policy", "group_terms", "medical_policy")


def _concat(sets: list[Pairs]) -> Pairs:
    return Pairs(
        [q for p in sets for q in p.question_ids],
        [c for p in sets for c in p.clause_ids],
        np.vstack([p.features for p in sets if len(p.labels)]),
        np.concatenate([p.labels for p in sets]),
        np.concatenate([p.ranks for p in sets]),
    )


def style_pairs(styles: Path, backend: str) -> list[Pairs]:
    """The dev search questions of each house style, over that style's own dev corpus: every dev half
    (`dev/search.json`, `dev2/search.json`, ...) beside the suite's `dev/corpus.yaml`."""
    embedder = None if backend == LEXICAL_ONLY else backend
    found = []
    for style in STYLES:
        folder = styles / style / "dev"
        if not (folder / "corpus.yaml").exists():
            continue
        corpus = load_path(folder / "corpus.yaml")
        index = build_index(corpus, embedder=embedder, calibrator=uncalibrated(backend))
        for half in sorted(styles.glob(f"{style}/dev*/search.json")):
            found.append(labelled_pairs(index, corpus, search_case_questions(half, corpus, f"{style}:{half.parent.name}:")))
    return found


def fit_backend(backend: str, styles: Path | None = None, values: Path | None = None) -> tuple[Calibrator, Pairs]:
    """Fit the monotone map of one backend on the demo questions and, when given, the dev questions of
    the house-style suites and of the search-values suites (one second set, weighed as one)."""
    corpus = load_demo()
    embedder = None if backend == LEXICAL_ONLY else backend
    # Pairs are taken in fused order, so the placeholder calibration does not influence them.
    index = build_index(corpus, embedder=embedder, calibrator=uncalibrated(backend))
    sets = [labelled_pairs(index, corpus, load_questions())]
    described = f"demo fit set ({len(set(sets[0].question_ids))} questions), corpus {corpus.fingerprint()}"
    extra = [p for folder in (styles, values) if folder is not None for p in style_pairs(folder, backend)]
    if extra:
        sets += extra
        named = " and ".join(f.name for f in (styles, values) if f is not None)
        described += f"; {named} dev search questions ({sum(len(set(p.question_ids)) for p in extra)} parts, {len(extra)} dev halves)"
    pairs = _concat(sets)
    # The two labelled sets weigh the same, however many pairs each has, so neither house style decides alone.
    weights = np.concatenate([np.full(len(sets[0].labels), 1.0 / max(1, len(sets[0].labels)))]
                             + ([np.full(sum(len(p.labels) for p in sets[1:]), 1.0 / max(1, sum(len(p.labels) for p in sets[1:])))]
                                if len(sets) > 1 else []))
    fitted = fit_calibration(pairs.features, pairs.labels, pairs.question_ids, backend=backend, fitted_on=described,
                             sample_weights=weights)
    return fitted, pairs


def report_on_external(
    calibrator: Calibrator, folder: Path, backend: str, *, with_codes: bool = False
) -> CalibrationReport:
    """The report figures on the external suite's determination cases (question + gold clauses)."""
    corpus = load_path(folder / "corpus.json")
    embedder = None if backend == LEXICAL_ONLY else backend
    index = build_index(corpus, embedder=embedder, calibrator=calibrator)
    questions = external_report_questions(folder, with_codes=with_codes)
    return report(calibrator, labelled_pairs(index, corpus, questions))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--backend", default="wordllama", help="wordllama | minilm | lexical")
    parser.add_argument("--styles", type=Path, default=None, help="folder of the house-style suites (second fit set)")
    parser.add_argument("--values", type=Path, default=None, help="folder of the search-values suites (second fit set too)")
    parser.add_argument("--report", type=Path, default=None, help="folder of the external suite (report set)")
    parser.add_argument("--write", action="store_true", help="store the fitted parameters in the package")
    args = parser.parse_args(argv)

    calibrator, pairs = fit_backend(args.backend, args.styles, args.values)
    fit = report(calibrator, pairs)
    out: dict[str, Any] = {
        "backend": args.backend,
        "weights": dict(zip(calibrator.features, [round(w, 4) for w in calibrator.weights], strict=True)),
        "bias": round(calibrator.bias, 4),
        "fit": fit._asdict(),
        "fit_reliability": reliability_table(calibrator.apply(pairs.features), pairs.labels),
    }
    if args.report is not None:
        out["report"] = report_on_external(calibrator, args.report, args.backend)._asdict()
        out["report_with_codes"] = report_on_external(
            calibrator, args.report, args.backend, with_codes=True
        )._asdict()
    if args.write:
        out["written"] = str(save_calibration(calibrator))
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
