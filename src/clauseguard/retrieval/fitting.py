"""Fit a backend's calibration on the demo fit set and report it on the external suite's gold clauses.

    python -m clauseguard.retrieval.fitting --backend wordllama [--report ../shared/external/mkrafa] [--write]

Prints fit-set and report-set ECE and Brier score; `--write` stores the parameters in
`clauseguard/data/calibration/<backend>.json`. Fitting is deterministic (same data, same file).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any, NamedTuple

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


def fit_backend(backend: str) -> tuple[Calibrator, Pairs]:
    """Fit the monotone map of one backend on the demo fit set."""
    corpus = load_demo()
    embedder = None if backend == LEXICAL_ONLY else backend
    # Pairs are taken in fused order, so the placeholder calibration does not influence them.
    index = build_index(corpus, embedder=embedder, calibrator=uncalibrated(backend))
    pairs = labelled_pairs(index, corpus, load_questions())
    fitted = fit_calibration(
        pairs.features,
        pairs.labels,
        pairs.question_ids,
        backend=backend,
        fitted_on=f"demo fit set ({len(set(pairs.question_ids))} questions), corpus {corpus.fingerprint()}",
    )
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
    parser.add_argument("--report", type=Path, default=None, help="folder of the external suite (report set)")
    parser.add_argument("--write", action="store_true", help="store the fitted parameters in the package")
    args = parser.parse_args(argv)

    calibrator, pairs = fit_backend(args.backend)
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
