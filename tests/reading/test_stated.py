"""Values with what they are for, and the conditions sentences state (clauseguard.reading.stated,
clauseguard.reading.extract): each rule on sentences written in several house styles."""

from __future__ import annotations

import pytest

from clauseguard.reading.extract import Asking, quantity_asked, read_passage
from clauseguard.reading.stated import age_in, condition_of, stated_values, what_it_states


def values(text: str) -> list[str]:
    return [v.value for v in stated_values(text)]


def test_each_amount_rate_duration_and_count_is_read_with_its_unit() -> None:
    text = ("Reimbursement is 70% of the agreed tariff, up to EUR 1,500 per contract year, after a waiting "
            "period of six (6) months, for at most twelve (12) sessions.")
    assert values(text) == ["70%", "EUR 1,500", "6 months", "12 sessions"]
    assert values("A trial may use no more than two (2) percutaneous electrode arrays.") == ["2 arrays"]
    assert values("A7035 - Headgear: 1 per 6 months") == ["6 months"]


def test_the_old_figure_a_rider_replaces_is_not_a_value() -> None:
    text = "The annual visit limit is raised from twenty (20) to thirty (30) physical therapy visits per calendar year."
    assert values(text) == ["30 visits"]
    assert values("The maximum number of physiotherapy sessions per contract year is raised to twenty-four (24).") == [
        "24 sessions"
    ]


def test_a_dose_is_not_a_count_and_thousands_stay_whole() -> None:
    assert "100 mg" not in values("maintenance, 100 mg once every 8 weeks")
    assert values("benefits may not exceed EUR 150,000 in a contract year") == ["EUR 150,000"]


def test_conditions_are_ages_occasions_or_conditions_of_payment() -> None:
    age = condition_of("For insured persons under 16 years of age, glasses may be claimed once every 12 months.")
    assert age is not None and age.kind == "age" and age.high is not None and age.high < 16
    occasion = condition_of("Dental care is covered only where it is needed because of an accident.")
    assert occasion is not None and occasion.kind == "occasion" and occasion.restrictive
    payment = condition_of("Hip and knee replacements are covered only with the insurer's written agreement.")
    assert payment is not None and payment.kind == "procedural"
    assert age_in("How often can glasses be reimbursed for a child aged 10?") == 10


def ask(label: str, question: str | None = None, asks_quantity: bool = True) -> Asking:
    return Asking(asked=quantity_asked(label, None), asks_quantity=asks_quantity, terms=(), words=label,
                  question=question or label)


def test_a_restricted_statement_says_no_for_every_other_case() -> None:
    text = "Dental care is covered only where it is needed because of an accident."
    general = read_passage(text, ask("Is routine dental care covered", asks_quantity=False))
    assert general.value == "no" and general.condition is not None
    named = read_passage(text, ask("Is dental care after an accident covered", asks_quantity=False))
    assert named.value != "no"


def test_a_value_for_an_unstated_case_is_conditional_and_the_general_value_wins() -> None:
    text = ("The insurer reimburses no more than fifteen (15) physiotherapy sessions in a contract year. Where the "
            "insured person has had a knee replacement, a further ten (10) sessions are reimbursed.")
    assert read_passage(text, ask("how many physiotherapy sessions per year")).value == "15 sessions"
    after = ask("how many extra sessions after a knee replacement")
    assert read_passage(text, after).value == "10 sessions"
    only_conditional = "Where the insured person has had a knee replacement, ten (10) sessions are reimbursed."
    assert read_passage(only_conditional, ask("how many physiotherapy sessions")).settles == "conditional"


def test_the_bound_asked_picks_the_value() -> None:
    text = "One trial is allowed in any 24-month period; each trial is limited to ten (10) days."
    assert read_passage(text, ask("What is the maximum length of a trial")).value == "10 days"
    lifetime = "Benefits are limited to EUR 200,000 per contract year and to EUR 1,000,000 over the insured person's lifetime."
    assert read_passage(lifetime, ask("What is the lifetime limit on benefits")).value == "EUR 1,000,000"
    assert read_passage(lifetime, ask("What is the annual limit on benefits")).value == "EUR 200,000"


def test_what_a_clause_states_tells_which_parts_it_can_answer() -> None:
    assert what_it_states("Implants are covered at 50% of the agreed tariff.") >= {"rate", "grants"}
    assert "denies" in what_it_states("Maintenance therapy is not covered.")
    assert "denies" in what_it_states("A second device will be denied as not reasonable and necessary.")


def _asking(question: str) -> Asking:
    from clauseguard.retrieval.tokens import content_terms

    return Asking(asked=quantity_asked(question, None), asks_quantity=False, terms=tuple(content_terms(question)),
                  words=question, question=question)


LCD_GRANT_AND_DENIAL = (
    "A stationary oxygen concentrator is covered for a beneficiary whose arterial saturation was measured at or "
    "below 88 percent. A stationary oxygen concentrator supplied as the first device, without a saturation "
    "measurement, will be denied as not reasonable and necessary."
)
TERMS_GRANT_AND_DENIAL = (
    "Hearing aids are reimbursed once every five years on a prescription from an ENT specialist. "
    "Hearing aids bought without a prescription from an ENT specialist are not reimbursed."
)


@pytest.mark.parametrize(
    ("text", "question", "value"),
    [
        (LCD_GRANT_AND_DENIAL, "Is a stationary oxygen concentrator covered as the first device, without a saturation "
                               "measurement?", "no"),
        (LCD_GRANT_AND_DENIAL, "Is a stationary oxygen concentrator covered for a beneficiary whose saturation was "
                               "measured at 85 percent?", "yes"),
        (TERMS_GRANT_AND_DENIAL, "Are hearing aids bought without a prescription covered?", "no"),
        (TERMS_GRANT_AND_DENIAL, "Are hearing aids on a prescription from an ENT specialist covered every five years?",
         "yes"),
    ],
)
def test_a_passage_that_grants_one_case_and_denies_another_answers_the_case_the_question_is_in(
    text: str, question: str, value: str
) -> None:
    reading = read_passage(text, _asking(question))
    assert reading.settled and reading.value == value


@pytest.mark.parametrize(
    ("text", "question"),
    [(LCD_GRANT_AND_DENIAL, "Is a stationary oxygen concentrator covered?"),
     (TERMS_GRANT_AND_DENIAL, "Are hearing aids covered?")],
)
def test_a_question_that_fits_the_grant_and_the_denial_equally_is_not_settled(text: str, question: str) -> None:
    """The words for paying are in both sentences, so they never break the tie: neither answer is released."""
    reading = read_passage(text, _asking(question))
    assert reading.settles == "ambiguous" and {reading.value, reading.rival} == {"yes", "no"}


@pytest.mark.parametrize(("label", "asked"), [
    ("tablets per 30 days", "count"),              # a counting window is no duration asked (drug policy)
    ("units of service per 90 days", "count"),     # cms style
    ("how many injections in the first 12 weeks", "count"),
    ("loading doses in the first four weeks", "unclear"),   # a count and a duration, nothing says which
    ("visits after the first 6 months", "unclear"),
    ("how long is the trial of each dose", "duration"),
    ("the minimum number of weeks at target dose for each trial", "duration"),  # "number of" a unit of time
    ("number of sessions per contract year", "count"),
])
def test_what_a_part_asks_when_it_names_things_counted_and_time(label: str, asked: str) -> None:
    assert quantity_asked(label, None) == asked


def test_a_part_whose_kind_is_unclear_takes_no_value() -> None:
    text = "Loading doses: two (2) injections over the first four (4) weeks, then one injection every eight (8) weeks."
    got = read_passage(text, ask("loading doses in the first four weeks"))
    assert got.value is None and not got.settled
