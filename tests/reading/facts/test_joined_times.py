"""A frequency that is one of several times of day joined in a list counts only with the others: "qid and hs"
is five checks a day, "bid and at bedtime" three ("tid, ac" spells three out), and "before meals and at
bedtime" or "bid + prn" gives no count at all (never the bedtime check alone, which read as one test a day
and denied a CGM as a DETERMINE)."""

from __future__ import annotations

import pytest

from clauseguard.reading.facts import MeasureFact, read_facts


def _daily(narrative: str) -> list[float | None]:
    return [f.value for f in read_facts(narrative).facts
            if isinstance(f, MeasureFact) and f.quantity == "fingerstick tests" and f.status == "present"]


@pytest.mark.parametrize(("narrative", "count"), [
    ("Type 1 diabetic. Fingersticks qid and hs.", 5.0),  # SOAP shorthand, a pharmacy-sig pair
    ("T1DM. Fingerstick glucose bid and at bedtime.", 3.0),  # handler summary
    ("Checks fingerstick glucose four times a day.", 4.0),  # one frequency alone is still read
    ("T1DM. Checks fingersticks tid, ac.", 3.0),  # after a comma the times spell the count out
])
def test_joined_times_of_day_are_added(narrative: str, count: float) -> None:
    assert _daily(narrative) == [count]


@pytest.mark.parametrize("narrative", [
    "Type 1 DM. Glucose monitoring: fingerstick before meals and at bedtime.",  # referral letter
    "T1D; monitors fingerstick glucose ac+hs.",  # nursing note
    "T1DM. Fingerstick glucose checks bid + prn.",  # as needed: no upper count
    "T1DM. Fingerstick glucose checks bid, prn.",
])
def test_a_time_that_gives_no_count_leaves_the_frequency_unknown(narrative: str) -> None:
    assert _daily(narrative) in ([], [None])
