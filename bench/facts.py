"""Fact reading time per narrative, beside the floor the field's libraries set: a bare spaCy tokenizer
plus a medspaCy ConText pass (its own default rules, over the lexicon matcher's targets) over the same
narratives, in the same run. Medians of p50 and p95 over several rounds, after a warm-up.

    python bench/facts.py [--rounds 5] [CASES_FILE ...]

Narratives: the bundled demo suites and the dev half of the notes suite (and the external suite's when
../shared is beside the repository); never a holdout half. Targets (issue 11): p95 <= 15 ms and p95 no more
than 2x the floor's p95. Loading the libraries is reported apart (it happens once per process).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
DEFAULT_FILES = [
    REPO / "evals" / "demo" / "determinations.json",
    REPO / "evals" / "notes" / "dev" / "determinations-external.json",
    REPO / "evals" / "notes" / "dev" / "determinations-demo.json",
    REPO / "evals" / "notes" / "dev" / "determinations-cms.json",
    SHARED / "external" / "mkrafa" / "seed.json",
]
TARGET_P95_MS = 15.0
TARGET_RATIO = 2.0


def narratives(files: Sequence[Path]) -> list[str]:
    out: list[str] = []
    for path in files:
        if path.exists():
            out.extend(str(c.get("narrative") or "") for c in json.loads(path.read_text(encoding="utf-8"))["cases"])
    return [n for n in out if n.strip()]


def timed(run: Callable[[str], object], texts: Sequence[str], rounds: int) -> tuple[float, float]:
    """(p50, p95) in ms per narrative: each a median over `rounds` passes over all the texts."""
    p50s: list[float] = []
    p95s: list[float] = []
    for _ in range(rounds):
        times = []
        for text in texts:
            start = time.perf_counter()
            run(text)
            times.append((time.perf_counter() - start) * 1000)
        times.sort()
        p50s.append(statistics.median(times))
        p95s.append(times[min(len(times) - 1, int(round(0.95 * (len(times) - 1))))])
    return statistics.median(p50s), statistics.median(p95s)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path, default=DEFAULT_FILES)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    texts = narratives(args.files)
    if not texts:
        print("no narratives found")
        return 2

    start = time.perf_counter()
    from clauseguard.reading.facts import default_rules, pipeline_for, read_facts
    from clauseguard.reading.facts.pipeline import medspacy_modules
    from clauseguard.reading.lexicon import default_lexicon

    lexicon, rules = default_lexicon(), default_rules()
    pipeline = pipeline_for(lexicon, rules)
    read_facts(texts[0], ["E10.9"])  # the drug dictionary and the ICD-10-CM list load on first use
    load_s = time.perf_counter() - start

    ms = medspacy_modules()
    floor_nlp = ms.spacy.blank("en")
    floor_context = ms.ConText(floor_nlp, rules="default", span_attrs="default")
    floor_targets = pipeline.lexicon_matcher

    from spacy.util import filter_spans

    def floor(text: str) -> object:
        doc = floor_nlp.make_doc(text)
        for token in doc:
            token.is_sent_start = token.i == 0 or doc[token.i - 1].text in (".", "\n")
        doc.ents = filter_spans(floor_targets(doc))  # ConText's default input: the targets as doc.ents
        return floor_context(doc)

    def reader(text: str) -> object:
        return read_facts(text, ["E10.9"], ["A9276"])

    for text in texts:  # warm-up: every memo and matcher built once
        reader(text)
        floor(text)
    floor_p50, floor_p95 = timed(floor, texts, args.rounds)
    read_p50, read_p95 = timed(reader, texts, args.rounds)
    chars = statistics.median(len(t) for t in texts)
    ratio = read_p95 / floor_p95 if floor_p95 else float("inf")
    print(f"fact reading, {len(texts)} narratives (median {chars:.0f} characters), {args.rounds} rounds; "
          f"libraries loaded in {load_s:.1f} s (once per process)")
    print(f"{'pass':<44}{'p50':>10}{'p95':>10}")
    print(f"{'spaCy tokenizer + ConText (floor)':<44}{floor_p50:>8.2f}ms{floor_p95:>8.2f}ms")
    print(f"{'read_facts (clauseguard)':<44}{read_p50:>8.2f}ms{read_p95:>8.2f}ms")
    print(f"p95 {read_p95:.2f} ms (target <= {TARGET_P95_MS:.0f} ms: {'met' if read_p95 <= TARGET_P95_MS else 'NOT met'}); "
          f"ratio to the floor {ratio:.2f}x (target <= {TARGET_RATIO:.0f}x: "
          f"{'met' if ratio <= TARGET_RATIO else 'NOT met'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
