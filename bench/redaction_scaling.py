"""Linear time on hostile user text: every pattern that runs over a request (PHI redaction, the
instruction screen) on adversarial strings of 25.6 KB and 256 KB. Prints the fastest of `--repeat`
runs in CPU seconds and the ratio of the two sizes' times per family; the contract (issue 15) is
ratio <= 12 for 10x the input.

    python bench/redaction_scaling.py [--repeat 3] [--family NAME ...]
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from collections.abc import Callable

from clauseguard.preflight import screen_instructions
from clauseguard.privacy.redaction import Redaction, detect

SMALL, LARGE = 25_600, 256_000
LIMIT = 12.0

# Strings built to hurt backtracking engines: long letter runs (the old e-mail pattern), digit runs
# with separators (phones), almost-addresses, capitalised runs (names), almost-emails, nested markup,
# sentence ends after short words (the splitter reads the word before each stop) and long runs of marks.
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
}


def _time(text: str, repeat: int) -> float:
    """The fastest of `repeat` runs, in CPU seconds of this process: the machine is shared, and time
    spent waiting for a core is not a cost of the pattern (the minimum is the run least disturbed)."""
    runs = []
    for _ in range(repeat):
        gc.collect()
        started = time.process_time()
        regions = tuple(detect(text))
        screen_instructions(text, Redaction(text, regions))
        runs.append(time.process_time() - started)
    return min(runs)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--family", action="append", help="only this family (repeat the flag for several)")
    args = parser.parse_args()
    detect("warm up the tables and presidio 4111 1111 1111 1111")
    ratios: dict[str, float] = {}
    print(f"{'family':<15} {'25.6 KB s':>10} {'256 KB s':>10} {'ratio':>7}")
    for name, make in FAMILIES.items():
        if args.family and name not in args.family:
            continue
        small, large = _time(make(SMALL), args.repeat), _time(make(LARGE), args.repeat)
        ratios[name] = large / small if small > 0 else float("inf")
        print(f"{name:<15} {small:>10.4f} {large:>10.4f} {ratios[name]:>7.2f}", flush=True)
    failures = [name for name, ratio in ratios.items() if ratio > LIMIT]
    print(f"tried {len(ratios)}, failures {len(failures)} (worst ratio {max(ratios.values()):.2f}, limit {LIMIT})"
          + (f": {', '.join(failures)}" if failures else ""))
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main())
