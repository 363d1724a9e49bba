"""The criteria tree: JSON round trip, a strict loader that checks spans against the clause, the schema."""

from __future__ import annotations

import dataclasses
import json
import typing

import pytest

from clauseguard.corpus.criteria import (
    NODE_TYPES,
    SCHEMA_ID,
    AllOf,
    AnyOf,
    Condition,
    Count,
    Criteria,
    CriteriaError,
    Measure,
    Not,
    Period,
    Routing,
    Rule,
    Service,
    Span,
    Waiver,
    all_atoms,
    criteria_from_json,
    criteria_schema,
    criteria_to_json,
    renumber,
)

CLAUSE = ("Nerve stimulators are covered when the member has chronic pain AND a pain score of 7 or more, "
          "UNLESS the member is pregnant, in which case the pain score requirement does not apply.")


def span(text: str) -> Span:
    at = CLAUSE.index(text)
    return Span(at, at + len(text), text)


def sample() -> Criteria:
    pain = Measure("m", span("a pain score of 7 or more"), "pain score", ">=", 7.0, "points")
    return Criteria(rules=(Rule(
        effect="covered",
        span=span(CLAUSE.rstrip(".")),
        subject=Service("s", span("Nerve stimulators"), "nerve stimulators"),
        population=Condition("c", span("chronic pain"), "chronic pain", qualifiers=("chronic",)),
        when=Waiver(AllOf((pain,)), Condition("p", span("is pregnant"), "pregnancy"), ("m",),
                    span("UNLESS the member is pregnant, in which case the pain score requirement does not apply")),
    ),))


def test_round_trip_is_exact_and_json_serialisable() -> None:
    data = criteria_to_json(sample())
    assert data["schema"] == SCHEMA_ID
    text = json.dumps(data, sort_keys=True)
    assert criteria_from_json(json.loads(text), CLAUSE) == sample()


def test_defaults_are_left_out_of_json() -> None:
    data = criteria_to_json(sample())
    population = data["rules"][0]["population"]
    assert "certainty" not in population and "severity" not in population
    assert population["qualifiers"] == ["chronic"]


def test_spans_may_be_written_as_clause_text() -> None:
    data = criteria_to_json(sample())
    data["rules"][0]["population"]["span"] = "chronic pain"
    loaded = criteria_from_json(data, CLAUSE)
    assert loaded.rules[0].population == sample().rules[0].population


def test_a_span_that_is_not_verbatim_is_refused() -> None:
    data = criteria_to_json(sample())
    data["rules"][0]["population"]["span"] = "chronic back pain"
    with pytest.raises(CriteriaError, match="verbatim"):
        criteria_from_json(data, CLAUSE)
    data["rules"][0]["population"]["span"] = {"start": 0, "end": 5, "text": "Xerve"}
    with pytest.raises(CriteriaError, match="not the clause text"):
        criteria_from_json(data, CLAUSE)


def test_unknown_keys_and_kinds_are_refused_with_their_path() -> None:
    data = criteria_to_json(sample())
    data["rules"][0]["when"]["body"]["children"][0]["colour"] = "red"
    with pytest.raises(CriteriaError, match=r"criteria\.rules\[0\]\.when\.body\.children\[0\]\.colour"):
        criteria_from_json(data, CLAUSE)
    data = criteria_to_json(sample())
    data["rules"][0]["when"]["kind"] = "maybe"
    with pytest.raises(CriteriaError, match="not a node kind"):
        criteria_from_json(data, CLAUSE)


def test_wrong_types_and_values_are_refused() -> None:
    data = criteria_to_json(sample())
    data["rules"][0]["when"]["body"]["children"][0]["value"] = "seven"
    with pytest.raises(CriteriaError, match="must be a number"):
        criteria_from_json(data, CLAUSE)
    data = criteria_to_json(sample())
    data["rules"][0]["effect"] = "maybe_covered"
    with pytest.raises(CriteriaError, match="not one of"):
        criteria_from_json(data, CLAUSE)


def test_a_waiver_must_name_atoms_of_its_own_body() -> None:
    data = criteria_to_json(sample())
    data["rules"][0]["when"]["waives"] = ["c"]
    with pytest.raises(CriteriaError, match="not an atom of its body"):
        criteria_from_json(data, CLAUSE)


def test_atoms_without_ids_are_numbered_and_ids_must_be_unique() -> None:
    data = criteria_to_json(sample())
    del data["rules"][0]["population"]["id"]
    loaded = criteria_from_json(data, CLAUSE)
    ids = [a.id for a in all_atoms(loaded)]
    assert len(ids) == len(set(ids))
    data = criteria_to_json(sample())
    data["rules"][0]["population"]["id"] = "m"
    with pytest.raises(CriteriaError, match="used twice"):
        criteria_from_json(data, CLAUSE)


def test_renumber_is_document_order_and_keeps_waiver_references() -> None:
    numbered = renumber(sample())
    assert [a.id for a in all_atoms(numbered)] == ["a1", "a2", "a3", "a4"]
    waiver = numbered.rules[0].when
    assert isinstance(waiver, Waiver) and waiver.waives == ("a3",)


def test_labels_read_like_criteria() -> None:
    assert Measure("x", span("a pain score of 7 or more"), "pain score", ">=", 7.0, "points",
                   Period(1, "day")).label == "pain score >= 7 points per day"
    assert Count("x", span("chronic pain"), "visit", "<=", 4.0, Period(12, "month", True)).label == \
        "visit <= 4 per rolling 12-month"
    assert Condition("x", span("chronic pain"), "asthma", ("moderate", "severe"), "confirmed").label == \
        "confirmed moderate to severe asthma"


def test_routing_body_may_be_absent_and_nodes_compose() -> None:
    node = Routing(Condition("x", span("is pregnant"), "pregnancy"), span("is pregnant"),
                   target=Service("t", span("Nerve stimulators"), "surgery"))
    crit = Criteria(rules=(Rule("covered", span("chronic pain"),
                                when=AnyOf((node, Not(Condition("y", span("chronic pain"), "pain")))),),))
    assert criteria_from_json(criteria_to_json(crit), CLAUSE) == crit


def test_schema_covers_every_node_kind_and_field() -> None:
    schema = criteria_schema()
    assert schema["$schema"].endswith("2020-12/schema")
    defs = schema["$defs"]
    kinds = {d["$ref"].rsplit("/", 1)[1] for d in defs["node"]["oneOf"]}
    assert kinds == {t.kind for t in NODE_TYPES}  # type: ignore[attr-defined]
    for cls in NODE_TYPES:
        props = defs[cls.kind]["properties"]  # type: ignore[attr-defined]
        names = {f.metadata.get("json", f.name) for f in dataclasses.fields(cls)}
        assert names | {"kind"} == set(props), cls
        assert defs[cls.kind]["additionalProperties"] is False  # type: ignore[attr-defined]
    assert json.loads(json.dumps(schema)) == schema


def test_schema_enums_match_the_types() -> None:
    defs = criteria_schema()["$defs"]
    assert defs["rule"]["properties"]["effect"]["enum"] == list(typing.get_args(Rule.__annotations__["effect"])
                                                                 if False else ["covered", "not_covered", "withheld", "limit"])
    assert set(defs["measure"]["properties"]["comparator"]["enum"]) == {">=", ">", "<=", "<", "=="}


def test_criteria_must_be_an_object_with_the_right_schema_id() -> None:
    with pytest.raises(CriteriaError):
        criteria_from_json([], CLAUSE)
    with pytest.raises(CriteriaError, match="schema"):
        criteria_from_json({"schema": "other/v9"}, CLAUSE)
