"""A values.yaml entry of the wrong shape is refused when the rules load, naming the key and what is valid;
it is never met halfway through reading a note."""

from __future__ import annotations

import pytest

from clauseguard.reading.facts.pipeline import Pipeline
from clauseguard.reading.facts.rules import Rules, RulesError, default_rules
from clauseguard.reading.lexicon import default_lexicon


def _with_values(extra: str) -> dict[str, bytes]:
    """The shipped rules, values.yaml with `extra` appended (a later key replaces the earlier one)."""
    files = dict(default_rules().files)
    files["values.yaml"] = files["values.yaml"] + b"\n" + extra.encode()
    return files


@pytest.mark.parametrize(("extra", "message"), [
    ("list_joiners: and", "list_joiners must be a list of words"),
    ("list_joiners: [and, '']", "list_joiners must be a list of words"),
    ("not_drugs: [ferritin, 3]", "not_drugs must be a list of words"),
    ("regimens_by_count: [intensive insulin regimen]", "regimens_by_count must map a therapy"),
    ("regimens_by_count:\n  intensive insulin regimen: {quantity: insulin injections, at_least: 3}",
     r"regimens_by_count.intensive insulin regimen must give exactly quantity, at_least, per"),
    ("regimens_by_count:\n  intensive insulin regimen: {quantity: insulin injections, at_least: three, per: day}",
     r"at_least must be a positive number, not 'three'"),
    ("regimens_by_count:\n  intensive insulin regimen: {quantity: insulin injections, at_least: 0, per: day}",
     r"at_least must be a positive number"),
    ("regimens_by_count:\n  intensive insulin regimen: {quantity: insulin injections, at_least: 3, per: fortnight}",
     r"per must be one of day, month, week"),
])
def test_a_values_entry_of_the_wrong_shape_is_refused_by_name(extra: str, message: str) -> None:
    with pytest.raises(RulesError, match=message):
        Rules(_with_values(extra))


@pytest.mark.parametrize(("extra", "message"), [
    ("regimens_by_count:\n  no such regimen: {quantity: insulin injections, at_least: 3, per: day}",
     "regimens_by_count.no such regimen names a therapy no lexicon file defines"),
    ("regimens_by_count:\n  intensive insulin regimen: {quantity: no such count, at_least: 3, per: day}",
     "quantity 'no such count' is no lexicon quantity"),
])
def test_a_regimen_naming_what_no_lexicon_defines_is_refused_by_name(extra: str, message: str) -> None:
    with pytest.raises(RulesError, match=message):
        Pipeline(default_lexicon(), Rules(_with_values(extra)))


def test_the_shipped_values_load() -> None:
    rules = Rules(dict(default_rules().files))
    assert rules.values("regimens_by_count")["intensive insulin regimen"]["per"] == "day"
