"""Where an approved revision and the compiler both read a clause, the reading report says whether their
trees ever answer differently, evaluated over generated case shapes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from clauseguard.authoring.check import check_sheet
from clauseguard.authoring.disagreement import disagreement
from clauseguard.authoring.report import authored_report
from clauseguard.authoring.revisions import revision_log
from clauseguard.authoring.sheet import parse_sheet, with_span_text
from clauseguard.authoring.submit import add_checked
from clauseguard.corpus.criteria import criteria_from_json
from clauseguard.corpus.model import Corpus
from clauseguard.corpus.sources import open_corpus
from clauseguard.reading.grammar import read_clause

from .conftest import READ, sheet, span


def monitor_tree(with_age: bool) -> dict[str, Any]:
    diabetes: dict[str, Any] = {"kind": "condition", "span": span(READ, "the member has diabetes mellitus"),
                                "concept": "diabetes mellitus"}
    age = {"kind": "age", "span": span(READ, "the member"), "comparator": ">=", "value": 65}
    return {"rules": [{
        "effect": "covered", "span": span(READ, READ),
        "subject": {"kind": "service", "span": span(READ, "Home blood glucose monitors (code E0607)"),
                    "concept": "home blood glucose monitors", "codes": ["E0607"]},
        "when": {"kind": "all", "children": [diabetes, age]} if with_age else diabetes,
    }]}


def test_two_trees_that_say_the_same_agree_on_every_shape(corpus: Corpus) -> None:
    compiled = read_clause(READ).result
    authored = criteria_from_json(with_span_text(monitor_tree(with_age=False), READ, "", []), READ)
    found = disagreement("GM.v1.1", compiled, authored)  # type: ignore[arg-type]
    assert found.shapes > 0 and found.agree


def test_an_extra_requirement_disagrees_on_the_shapes_it_fails(corpus: Corpus) -> None:
    compiled = read_clause(READ).result
    authored = criteria_from_json(with_span_text(monitor_tree(with_age=True), READ, "", []), READ)
    found = disagreement("GM.v1.1", compiled, authored)  # type: ignore[arg-type]
    assert not found.agree
    example = next(e for e in found.examples if e["criteria"].get("age >= 65 years") == "not_met")
    assert example["criteria"]["diabetes mellitus"] == "met"
    assert (example["compiler"], example["authored"]) == ("covered", "not_covered")


def test_the_reading_report_shows_the_disagreement_on_a_clause_both_read(corpus_file: Path) -> None:
    opened = open_corpus(str(corpus_file), None)
    entry = {"id": "GM.v1.1", "role": "criteria", "criteria": monitor_tree(with_age=True)}
    report = check_sheet(parse_sheet(sheet(entry)), opened.corpus)
    assert report.ok, report.problems
    with revision_log(opened.store) as log:
        [added] = add_checked(report, log, author="ana", note="members under 65 are not covered here")
        assert added.revision_id is not None
        log.approve(added.revision_id, "bo")
        revisions = log.active()
    shown = authored_report(opened.corpus, revisions)
    row = next(r for r in shown["clauses"] if r["id"] == "GM.v1.1")
    assert row["compiled"] is True and row["revision"] == added.revision_id
    assert row["read_by"] == f"revision {added.revision_id} of ana"
    assert row["disagreement"]["disagreeing"] > 0
    assert shown["summary"]["disagreeing"] == 1 and shown["summary"]["authored"] == 1
    untouched = next(r for r in shown["clauses"] if r["id"] == "GM.v1.2")
    assert untouched["disagreement"] is None and untouched["read_by"] == "compiler"


def test_an_entry_that_says_what_the_compiler_reads_writes_no_revision(corpus_file: Path) -> None:
    opened = open_corpus(str(corpus_file), None)
    compiled = read_clause(READ).result
    from clauseguard.corpus.criteria import criteria_to_json

    data = criteria_to_json(compiled)  # type: ignore[arg-type]
    report = check_sheet(parse_sheet(sheet({"id": "GM.v1.1", "role": "criteria", "criteria": data})), opened.corpus)
    with revision_log(opened.store) as log:
        assert [a.status for a in add_checked(report, log, author="ana", note="as read")] == ["read by the compiler"]
        assert log.count() == 0
