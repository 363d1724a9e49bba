"""`criteria check`: every problem names the clause, the key path and what would be valid."""

from __future__ import annotations

import copy
from typing import Any

from clauseguard.authoring.check import check_sheet
from clauseguard.authoring.sheet import parse_sheet
from clauseguard.corpus.model import Corpus

from .conftest import ADMIN, STRIPS, UNREAD, cgm_entry, cgm_rule, sheet, span


def problems(corpus: Corpus, *entries: dict[str, Any]) -> list[str]:
    return [str(p) for p in check_sheet(parse_sheet(sheet(*entries)), corpus).problems]


def test_a_sheet_that_encodes_its_clause_checks_and_reads_back_in_plain_words(corpus: Corpus) -> None:
    report = check_sheet(parse_sheet(sheet(cgm_entry())), corpus)
    assert report.ok, report.problems
    [entry] = report.entries
    assert entry.words == ["continuous glucose monitors (E2103): covered when ALL of: age >= 65 years; "
                           "diabetes mellitus; fingerstick tests >= 3 per day"]
    assert not entry.same_as_compiler()


def test_an_authored_span_that_is_not_verbatim_names_the_clause_the_path_and_the_closest_stretch(corpus: Corpus) -> None:
    tree = cgm_rule()
    tree["rules"][0]["when"]["children"][1]["span"] = "diabetes melitus"  # misspelt: not the clause's words
    found = problems(corpus, cgm_entry(criteria=tree))
    assert len(found) == 1
    assert found[0].startswith("GM.v1.2: clauses[0].criteria.rules[0].when.children[1].span: 'diabetes melitus' is "
                               "not a verbatim part of the clause text")
    assert "'diabetes mellitus'" in found[0] or "diabetes me" in found[0]


def test_offsets_whose_text_is_not_the_clause_text_there_say_where_the_text_sits(corpus: Corpus) -> None:
    tree = cgm_rule()
    tree["rules"][0]["when"]["children"][1]["span"] = {"start": 0, "end": 17, "text": "diabetes mellitus"}
    [found] = problems(corpus, cgm_entry(criteria=tree))
    at = UNREAD.index("diabetes mellitus")
    assert found.endswith(f"it sits at {at}..{at + 17}: write {{start: {at}, end: {at + 17}}}")


def test_an_atom_of_an_unknown_type_lists_the_valid_kinds(corpus: Corpus) -> None:
    tree = cgm_rule()
    tree["rules"][0]["when"]["children"][0]["kind"] = "birthday"
    [found] = problems(corpus, cgm_entry(criteria=tree))
    assert found.startswith("GM.v1.2: clauses[0].criteria.rules[0].when.children[0].kind: 'birthday' is not a node kind")
    assert "age" in found and "condition" in found and "measure" in found


def test_a_comparator_that_is_not_one_says_which_are(corpus: Corpus) -> None:
    tree = cgm_rule()
    tree["rules"][0]["when"]["children"][0]["comparator"] = "=>"
    [found] = problems(corpus, cgm_entry(criteria=tree))
    assert "rules[0].when.children[0].comparator: '=>' is not one of >=, >, <=, <, ==" in found


def test_every_rule_s_problem_is_reported_not_only_the_first(corpus: Corpus) -> None:
    tree = cgm_rule()
    second = copy.deepcopy(tree["rules"][0])
    tree["rules"][0]["when"]["children"][0]["kind"] = "birthday"
    second["effect"] = "maybe"
    tree["rules"].append(second)
    found = problems(corpus, cgm_entry(criteria=tree))
    assert [f.split(": ")[1] for f in found] == ["clauses[0].criteria.rules[0].when.children[0].kind",
                                                "clauses[0].criteria.rules[1].effect"]


def test_a_dangling_reference_is_named_with_the_criteria_that_do_exist(corpus: Corpus) -> None:
    tree = cgm_rule()
    tree["rules"][0]["when"]["children"][0]["mark"] = "1"
    tree["rules"][0]["when"]["children"].append(
        {"kind": "ref", "span": span(UNREAD, "members"), "labels": ["7"]})
    [found] = problems(corpus, cgm_entry(criteria=tree))
    assert found.startswith("GM.v1.2: clauses[0].criteria.rules[0].when.children[3]: the reference does not resolve")
    assert found.endswith("marked in GM.v1.2: 1")


def test_a_reference_to_a_clause_of_another_version_or_none_lists_the_clauses_it_may_name(corpus: Corpus) -> None:
    tree = cgm_rule()
    tree["rules"][0]["when"]["children"].append(
        {"kind": "ref", "span": span(UNREAD, "members"), "labels": ["1"], "clause": "GM.v9.1"})
    [found] = problems(corpus, cgm_entry(criteria=tree))
    assert "children[3].clause: 'GM.v9.1' is not a clause of version v1; use one of GM.v1.1, GM.v1.2, GM.v1.3, GM.v1.4" in found


def test_a_sentence_no_criterion_covers_must_be_encoded_or_noted_with_a_reason(corpus: Corpus) -> None:
    first = "Test strips (code A4253) are covered when the member has diabetes mellitus."
    tree: dict[str, Any] = {"rules": [{
        "effect": "covered", "span": span(STRIPS, first),
        "subject": {"kind": "service", "span": span(STRIPS, "Test strips (code A4253)"), "concept": "test strips",
                    "codes": ["A4253"]},
        "when": {"kind": "condition", "span": span(STRIPS, "diabetes mellitus"), "concept": "diabetes mellitus"}}]}
    second = span(STRIPS, "Strips are dispensed in boxes of fifty.")
    [found] = problems(corpus, {"id": "GM.v1.4", "role": "criteria", "criteria": tree})
    assert found == (f"GM.v1.4: clauses[0].criteria: the sentence at {second['start']}..{second['end']} ('Strips are "
                     "dispensed in boxes of fifty.') is covered by no criterion; add what it requires, or a note "
                     f"{{kind: <why it decides nothing>, span: {{start: {second['start']}, end: {second['end']}}}}}")
    tree["notes"] = [{"kind": "how the supplies are packed", "span": second}]
    assert problems(corpus, {"id": "GM.v1.4", "role": "criteria", "criteria": tree}) == []


def test_an_unfilled_hole_and_a_missing_tree_are_problems(corpus: Corpus) -> None:
    hole = {"span": {"start": 70, "end": 164}, "reason": "no criterion reader accounts for it"}
    found = problems(corpus, {"id": "GM.v1.2", "role": "criteria", "holes": [hole], "criteria": None})
    assert found[0].startswith("GM.v1.2: clauses[0].holes[0]: the stretch at 70..164 is still unread")
    assert found[1].startswith("GM.v1.2: clauses[0].criteria: a criteria clause needs its criteria")


def test_a_role_corrected_to_one_that_decides_nothing_needs_a_reason(corpus: Corpus) -> None:
    [found] = problems(corpus, {"id": "GM.v1.1", "role": "administrative"})
    assert found.startswith("GM.v1.1: clauses[0].reason: the compiler reads this clause as criteria")
    assert problems(corpus, {"id": "GM.v1.1", "role": "administrative", "reason": "duplicated elsewhere"}) == []
    deciding = {"rules": [{"effect": "not_covered", "span": span(ADMIN, ADMIN)}]}
    [rules] = problems(corpus, {"id": "GM.v1.3", "role": "administrative", "criteria": deciding})
    assert rules.startswith("GM.v1.3: clauses[0].criteria: an administrative clause decides nothing: remove its rules")


def test_an_entry_written_against_other_text_is_refused(corpus: Corpus) -> None:
    [found] = problems(corpus, cgm_entry(text_sha256="0" * 64))
    assert "clauses[0].text_sha256: the clause text is not the one this entry was written against" in found


def test_an_unknown_clause_and_an_unknown_key_are_named(corpus: Corpus) -> None:
    [found] = problems(corpus, {"id": "GM.v1.9", "role": "criteria", "criteria": cgm_rule()})
    assert found.startswith("GM.v1.9: clauses[0].id: is not a clause of GM; its clauses are GM.v1.1, GM.v1.2, GM.v1.3")
    import pytest

    from clauseguard.errors import CorpusError

    with pytest.raises(CorpusError, match=r"clauses\[0\]\.critera: unknown key; a clause entry takes id, role"):
        parse_sheet(sheet({"id": "GM.v1.2", "role": "criteria", "critera": {}}))
