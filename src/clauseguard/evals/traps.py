"""The eight traps the corpus and the suites must contain (design: "The traps"), in words a reader of
a scorecard can use: what the trap is, and what goes wrong without the design."""

from __future__ import annotations

from typing import Final

TRAPS: Final[dict[str, tuple[str, str]]] = {
    "T1": ("versions", "the same facts give opposite answers either side of an effective date; the superseded "
                       "version must not win because it scores highest"),
    "T2": ("riders", "a rider on the plan overrides part of the base policy, with its own dates; reading only the "
                     "policy inverts the answer"),
    "T3": ("look-alike titles", "similar titles govern different codes with different criteria; the wrong policy "
                                "must not be cited"),
    "T4": ("compositional criteria", "A and B unless C, one of the following; partial satisfaction must not read "
                                     "as coverage"),
    "T5": ("FAQ contradicts policy", "a FAQ disagrees with the policy; the FAQ must not win and the conflict must "
                                     "not be hidden"),
    "T6": ("no policy or a missing fact", "no governing document, or a fact is unstated; a loosely related clause "
                                          "must not be stretched"),
    "T7": ("hostile or malformed input", "instructions inside the narrative, missing or malformed fields; the "
                                         "narrative must never be obeyed"),
    "T8": ("contract-anchored terms", "a later version scores higher (the dental implant case); the contract's own "
                                      "version must be cited"),
}


def trap_meaning(label: str) -> str:
    """`T4` -> "compositional criteria: A and B unless C, ..."; any other label as it is."""
    found = TRAPS.get(label)
    return f"{found[0]}: {found[1]}" if found else ""
