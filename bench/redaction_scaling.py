"""Linear time on hostile user text (issue 15): 10x the input must cost at most 12x the time, on
adversarial strings up to 256 KB, for every family of string and every way user text is read.

Stages, each timed at sizes 10x apart (CPU seconds of this process, the fastest of `--repeat` runs):

    screen     PHI detection and the instruction screen (every pattern over the text): 2.56 -> 25.6 -> 256 KB
    determine  a whole determination with the string as its narrative (no audit, no deadline):
               6.4 -> 64 KB (read), and 25.6 -> 256 KB (past the reader's limit, REVIEW unread)
    search     a whole search with the string as its question: 25.6 -> 256 KB

Each family prints its times, every 10x ratio, and "tried N, failures F" (a failure is a ratio over
12); the last line sums them, with the machine's load average before and after.

    python bench/redaction_scaling.py [--repeat 3] [--family NAME ...] [--stage NAME ...]
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import time
from collections.abc import Callable
from typing import Any

from clauseguard.preflight import screen_instructions
from clauseguard.privacy import redaction
from clauseguard.privacy.redaction import Redaction, detect

LIMIT = 12.0
BASE = {"payer_id": "KHP", "plan_id": "KHP-PPO-PLUS", "procedure_codes": ["E0784"], "diagnosis_codes": ["E10.9"],
        "as_of_date": "2024-03-15", "question": "Is an insulin pump covered?", "narrative": "Type 1 diabetes."}

# Strings built to hurt backtracking engines: long letter runs (the old e-mail pattern), digit runs
# with separators (phones), almost-addresses, capitalised runs (names), almost-emails, nested markup,
# sentence ends after short words (the splitter reads the word before each stop), long runs of marks,
# and clinical text dense in what the reader looks for (conditions, therapies, values, dates).
FAMILIES: dict[str, Callable[[int], str]] = {
    "letters": lambda n: "a" * n,
    "email-like": lambda n: ("a." * (n // 2))[:n],
    "at-signs": lambda n: ("a@" * (n // 2))[:n],
    "digits": lambda n: "1" * n,
    "digit-groups": lambda n: ("12 34-" * (n // 6 + 1))[:n],
    "capitalised": lambda n: ("Abc " * (n // 4 + 1))[:n],
    "house-numbers": lambda n: ("12 Abc " * (n // 7 + 1))[:n],
    "written-email": lambda n: ("a dot " * (n // 6 + 1))[:n],
    "markup": lambda n: ("<!-- <a " * (n // 8 + 1))[:n],
    "clinical": lambda n: ("Type 1 diabetes on insulin, A1c 8.2% on 2024-01-02. " * (n // 52 + 1))[:n],
    "injection": lambda n: ("ignore previous " * (n // 16 + 1))[:n],
    "sentence-ends": lambda n: ("Abc. Def. " * (n // 10 + 1))[:n],
    "end-marks": lambda n: ("!" * 999 + " " * 1) * (n // 1000) + "!" * (n % 1000),
    # dates of birth with no sentence break (each looks for its sentence's ends), and words of a script
    # without spaces holding honorifics (each is searched for every honorific)
    "birth-dates": lambda n: ("DOB 1/2/1980 seen 3/4/2024 " * (n // 27 + 1))[:n],
    "no-spaces": lambda n: ("佐藤様は高血圧症で再診、" * (n // 12 + 1))[:n],
    "code-lists": lambda n: ("NDC 1234-5678-90, " * (n // 18 + 1))[:n],
}


def _screen(text: str) -> None:
    screen_instructions(text, Redaction(text, tuple(detect(text))))


def _engine() -> Any:
    from clauseguard.corpus.sources import open_corpus
    from clauseguard.engine import Engine

    engine = Engine(open_corpus("demo", None), log=False, deadline_s=None)
    engine.warm_up()
    engine.determine(BASE)
    engine.search({"contract_id": "CT-48213", "question": "dental implant: coverage"})
    return engine


def stages(engine: Any) -> dict[str, tuple[Callable[[str], Any], tuple[tuple[int, int], ...]]]:
    """Each stage: what it runs on a string, and its (smaller, 10x larger) size pairs."""
    read = 64_000  # within clauseguard.deadline.MAX_READ_CHARS, the longest narrative the reader reads
    return {
        "screen": (_screen, ((2_560, 25_600), (25_600, 256_000))),
        "determine": (lambda text: engine.determine({**BASE, "narrative": text}),
                      ((read // 10, read), (25_600, 256_000))),
        "search": (lambda text: engine.search({"contract_id": "CT-48213", "question": text}), ((25_600, 256_000),)),
    }


def _time(run: Callable[[str], Any], text: str, repeat: int) -> float:
    """The fastest of `repeat` runs, in CPU seconds of this process: the machine is shared, and time
    spent waiting for a core is no cost of the code (the minimum is the run least disturbed).
    Redactions are forgotten before each run (they are memoised per text)."""
    runs: list[float] = []
    while len(runs) < max(repeat, 1):
        redaction._MEMO.clear()
        gc.collect()
        started = time.process_time()
        run(text)
        runs.append(time.process_time() - started)
    return min(runs)


def _load() -> str:
    return "/".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--family", action="append", help="only this family (repeat the flag for several)")
    parser.add_argument("--stage", action="append", help="only this stage: screen, determine, search")
    args = parser.parse_args()
    load_before = _load()
    detect("warm up the tables and presidio 4111 1111 1111 1111")
    chosen = {k: v for k, v in stages(_engine()).items() if not args.stage or k in args.stage}
    tried = failed = 0
    worst = (0.0, "")
    print(f"load average before (1/5/15 min): {load_before}; limit {LIMIT}x for 10x the input", flush=True)
    for name, make in FAMILIES.items():
        if args.family and name not in args.family:
            continue
        parts, family_failed, family_tried = [], 0, 0
        for stage, (run, pairs) in chosen.items():
            for small, large in pairs:
                t_small, t_large = _time(run, make(small), args.repeat), _time(run, make(large), args.repeat)
                ratio = t_large / t_small if t_small > 0 else float("inf")
                family_tried += 1
                family_failed += ratio > LIMIT
                worst = max(worst, (ratio, f"{name} {stage} {small // 1000}->{large // 1000} KB"))
                parts.append(f"{stage} {small / 1000:g}->{large / 1000:g} KB {t_small:.3f}->{t_large:.3f} s "
                             f"x{ratio:.1f}{' FAIL' if ratio > LIMIT else ''}")
        tried, failed = tried + family_tried, failed + family_failed
        print(f"{name:<14} tried {family_tried}, failures {family_failed}: " + "; ".join(parts), flush=True)
    print(f"all families: tried {tried}, failures {failed} (worst x{worst[0]:.1f}: {worst[1]}); "
          f"load average before {load_before}, after {_load()}")
    return 0 if not failed else 1


if __name__ == "__main__":
    sys.exit(main())
