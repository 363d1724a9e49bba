"""The deployment's configuration that shapes answers without being engine code: the gate policy.

`CLAUSEGUARD_GATE_POLICY` names a policy (`default`, `covered-only`, `review-all`) or lists the
outcomes a DETERMINE may release on its own (`COVERED`, or `COVERED,NOT_COVERED`). A bad value is a
RequestError naming the variable; it never falls back silently to a looser policy.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Final, get_args

from clauseguard.errors import RequestError
from clauseguard.gate import DEFAULT_POLICY, NAMED_POLICIES, GatePolicy
from clauseguard.responses import GatePolicyReport, Outcome

POLICY_ENV: Final = "CLAUSEGUARD_GATE_POLICY"
RELEASABLE: Final = ("COVERED", "NOT_COVERED")  # INSUFFICIENT_EVIDENCE is never a DETERMINE
assert set(RELEASABLE) < set(get_args(Outcome))


def parse_policy(text: str, where: str = POLICY_ENV) -> GatePolicy:
    """A policy by name, or by the outcomes it releases on its own."""
    value = text.strip()
    if not value:
        return DEFAULT_POLICY
    if value.lower() in NAMED_POLICIES:
        return NAMED_POLICIES[value.lower()]
    outcomes = [o.strip().upper().replace(" ", "_") for o in value.split(",") if o.strip()]
    wrong = [o for o in outcomes if o not in RELEASABLE]
    if wrong:
        raise RequestError(where, f"{value!r} is not a gate policy; use one of {', '.join(NAMED_POLICIES)}, "
                                  f"or the outcomes released on their own from {', '.join(RELEASABLE)} (comma-separated)")
    chosen = tuple(o for o in RELEASABLE if o in outcomes)
    named = next((p for p in NAMED_POLICIES.values() if p.automatic_outcomes == chosen), None)
    return named or GatePolicy("auto:" + ",".join(chosen), chosen)  # type: ignore[arg-type]


def policy_from_environment(environ: Mapping[str, str] | None = None) -> GatePolicy:
    """The configured gate policy (default: every outcome the rules determine goes out on its own)."""
    return parse_policy((os.environ if environ is None else environ).get(POLICY_ENV, ""))


def policy_report(policy: GatePolicy, applied: bool = False) -> GatePolicyReport:
    return GatePolicyReport(name=policy.name, automatic_outcomes=list(policy.automatic_outcomes), applied=applied)
