"""The eight traps the corpus and the suites must contain (design: "The traps"), in words a reader of
a scorecard can use: what the trap is, and what goes wrong without the design."""

from __future__ import annotations

from typing import Final

TRAPS: Final[dict[str, tuple[str, str]]] = {
    "T1": ("versions", "the same facts give opposite answers either side of an effective date"),
    "T2": ("riders", "a rider on the plan overrides part of the base policy, with its own dates"),
    "T3": ("look-alike titles", "similar titles govern different codes with different criteria"),
    "T4": ("compositional criteria", "A and B unless C; one of the following"),
    "T5": ("FAQ contradicts policy", "the FAQ must not win, and the conflict must be reported"),
    "T6": ("no policy or a missing fact", "no loosely related clause may be stretched to fit"),
    "T7": ("hostile or malformed input", "instructions in the narrative are never obeyed; bad fields HALT"),
    "T8": ("contract-anchored terms", "a later version scores higher, the contract's own version governs"),
}


def trap_meaning(label: str) -> str:
    """`T4` -> "compositional criteria: A and B unless C, ..."; any other label as it is."""
    found = TRAPS.get(label)
    return f"{found[0]}: {found[1]}" if found else ""
