"""A course that must include a therapy cannot be met when the request says that therapy was not given:
denied outright or only planned (the design: a planned treatment has not been received)."""

from __future__ import annotations

import pytest

from tests.reading.test_evaluate import atom, judge

CLAUSE = ("Lumbar decompression is covered when the member has completed at least six (6) weeks of conservative "
          "therapy including supervised physical therapy.")


@pytest.mark.parametrize("narrative", [
    "Naproxen for eight weeks. PT referral placed; first session next month.",  # SOAP plan
    "NSAIDs x 8 wks; PT planned, not started.",  # handler shorthand
    "He has had eight weeks of anti-inflammatories and has never had physical therapy.",  # referral
])
def test_a_course_without_the_therapy_it_must_include_is_not_met(narrative: str) -> None:
    assert atom(judge(CLAUSE, narrative), "conservative therapy").status == "not_met"


@pytest.mark.parametrize("narrative", [
    "Completed 8 weeks of supervised physical therapy. A further PT block is planned.",  # given, and more planned
    "Eight weeks of naproxen.",  # nothing said of physical therapy
])
def test_a_given_or_unmentioned_therapy_does_not_deny_the_course(narrative: str) -> None:
    assert atom(judge(CLAUSE, narrative), "conservative therapy").status != "not_met"
