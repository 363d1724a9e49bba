"""The deployment's gate policy: it can hold a DETERMINE back for a person's signature, never release
anything; it is configuration (CLAUSEGUARD_GATE_POLICY), shown in every answer and in the audit row."""

from __future__ import annotations

import pytest

from clauseguard.corpus.sources import open_corpus
from clauseguard.deployment import parse_policy, policy_from_environment
from clauseguard.engine import Engine
from clauseguard.errors import RequestError
from clauseguard.gate import (
    CHECKS,
    DEFAULT_POLICY,
    NAMED_POLICIES,
    CheckedCitation,
    GateInput,
    apply_policy,
    decide,
)
from clauseguard.responses import Checks, Reason

ALL_PASS = Checks(**dict.fromkeys(CHECKS, True))
GOOD = CheckedCitation("P.v1.C2", ALL_PASS)
COVERED_ONLY = NAMED_POLICIES["covered-only"]
MENISCECTOMY = {
    "payer_id": "KHP", "plan_id": "KHP-HMO-CORE", "procedure_codes": ["29881"], "diagnosis_codes": ["S83.511D"],
    "as_of_date": "2024-01-01",
    "narrative": "Medial meniscal tear confirmed on MRI, with locking and catching. Six weeks of supervised "
                 "physical therapy without adequate relief.",
    "question": "Is arthroscopic meniscectomy covered?",
}


def test_covered_only_sends_a_determined_denial_to_review_naming_the_policy() -> None:
    decision = decide(GateInput(citations=(GOOD,), outcome="NOT_COVERED"), COVERED_ONLY)
    assert (decision.gate, decision.outcome) == ("REVIEW", "NOT_COVERED")
    assert [r.code for r in decision.reasons] == ["policy_requires_review"]
    assert "covered-only" in decision.reasons[0].text and "signature" in decision.reasons[0].text


def test_covered_only_releases_coverage_as_the_rules_decide_it() -> None:
    assert decide(GateInput(citations=(GOOD,), outcome="COVERED"), COVERED_ONLY).gate == "DETERMINE"


@pytest.mark.parametrize("policy", list(NAMED_POLICIES.values()), ids=list(NAMED_POLICIES))
@pytest.mark.parametrize(
    "inp",
    [
        GateInput(halts=(Reason("halt_payer_id", "payer_id is empty"),)),
        GateInput(refusals=(Reason("missing_fact", "x"),), citations=(GOOD,), outcome="COVERED"),
        GateInput(citations=(CheckedCitation("X", ALL_PASS.model_copy(update={"verbatim": False})),), outcome="COVERED"),
    ],
    ids=["halt", "refuse", "review"],
)
def test_a_policy_never_changes_anything_but_a_determine(policy: object, inp: GateInput) -> None:
    assert decide(inp, policy) == decide(inp)  # type: ignore[arg-type]


def test_the_default_policy_is_the_rules_alone() -> None:
    for outcome in ("COVERED", "NOT_COVERED"):
        inp = GateInput(citations=(GOOD,), outcome=outcome)  # type: ignore[arg-type]
        assert decide(inp) == decide(inp, DEFAULT_POLICY) and decide(inp).gate == "DETERMINE"
    held = apply_policy(decide(GateInput(citations=(GOOD,), outcome="COVERED")), NAMED_POLICIES["review-all"])
    assert held.gate == "REVIEW"


@pytest.mark.parametrize(("text", "name", "released"), [
    ("", "default", ("COVERED", "NOT_COVERED")), ("covered-only", "covered-only", ("COVERED",)),
    ("COVERED", "covered-only", ("COVERED",)), ("covered, not covered", "default", ("COVERED", "NOT_COVERED")),
    ("NOT_COVERED", "auto:NOT_COVERED", ("NOT_COVERED",)), ("Review-All", "review-all", ()),
])
def test_the_policy_is_read_from_configuration(text: str, name: str, released: tuple[str, ...]) -> None:
    policy = parse_policy(text)
    assert (policy.name, policy.automatic_outcomes) == (name, released)
    assert policy_from_environment({"CLAUSEGUARD_GATE_POLICY": text}) == policy


def test_a_bad_policy_is_an_error_naming_the_variable() -> None:
    with pytest.raises(RequestError) as caught:
        parse_policy("deny-everything")
    assert caught.value.field == "CLAUSEGUARD_GATE_POLICY" and "covered-only" in str(caught.value)
    with pytest.raises(RequestError):
        parse_policy("COVERED,INSUFFICIENT_EVIDENCE")


def test_every_answer_shows_the_policy_and_the_audit_row_records_it() -> None:
    rules = Engine(open_corpus("demo", None))
    held = Engine(open_corpus("demo", None), policy=COVERED_ONLY)
    plain, signed = rules.determine(MENISCECTOMY), held.determine(MENISCECTOMY)
    assert (plain.gate, plain.outcome) == ("DETERMINE", "NOT_COVERED")
    assert plain.as_json()["policy"] == {"name": "default", "automatic_outcomes": ["COVERED", "NOT_COVERED"],
                                         "applied": False}
    assert (signed.gate, signed.outcome) == ("REVIEW", "NOT_COVERED")
    assert signed.as_json()["policy"] == {"name": "covered-only", "automatic_outcomes": ["COVERED"], "applied": True}
    assert signed.answer.startswith("Provisionally: ") and "signature" in signed.answer
    assert signed.citations == plain.citations and signed.criteria == plain.criteria
    assert signed.assertion_id != plain.assertion_id  # the policy is part of the settings behind the id
    record = held.audit.get(signed.assertion_id)
    assert record.settings["gate_policy"] == {"name": "covered-only", "automatic_outcomes": ["COVERED"]}
    assert record.response["policy"]["applied"] is True and record.response["gate"] == "REVIEW"
    assert "gate_policy" not in rules.audit.get(plain.assertion_id).settings  # the default leaves ids as they were


def test_replay_recomputes_under_the_policy_the_answer_was_made_under() -> None:
    from clauseguard.replay import replay

    held = Engine(open_corpus("demo", None), policy=COVERED_ONLY)
    signed = held.determine(MENISCECTOMY)
    result = replay(signed.assertion_id)
    assert result["match"] is True, result["differences"]


def test_an_answer_whose_budget_ran_out_replays_as_recorded() -> None:
    """The budget running out is timing, an input of the answer: a replay (which never applies the
    clock) recomputes it running out after the same stage, so a loaded machine's REVIEW still matches."""
    from clauseguard.replay import replay

    hurried = Engine(open_corpus("demo", None), deadline_s=1e-9)
    cut = hurried.determine(MENISCECTOMY)
    assert cut.gate == "REVIEW" and [r.code for r in cut.reasons] == ["deadline"]
    result = replay(cut.assertion_id)
    assert result["match"] is True, result["differences"]
    assert result["deadline_cut"] is not None and result["deadline_cut"]["budget_s"] == 1e-9
    in_time = Engine(open_corpus("demo", None), deadline_s=None).determine(
        {**MENISCECTOMY, "question": "Is a meniscectomy covered for this member?"})
    assert replay(in_time.assertion_id)["deadline_cut"] is None
