"""The rule-based clause classifier: kind, coverage type and benefit, on tricky wording."""

from __future__ import annotations

import pytest

from clauseguard.corpus.classify import BenefitTerms, benefit_terms, classify, clause_kind, coverage_type
from clauseguard.corpus.loader import load_demo


@pytest.mark.parametrize(
    ("text", "coverage"),
    [
        ("Dental implants are not excluded under this contract.", "covered"),
        ("Orthodontic treatment is not excluded unless it is purely cosmetic.", "conditional"),
        ("Cosmetic surgery is excluded, except as provided in 6.4.", "conditional"),
        ("Except as provided in 6.4, cosmetic surgery is excluded.", "conditional"),
        ("No benefit is payable unless the insurer approved the quote before treatment began.", "conditional"),
        ("No benefit is payable for cosmetic treatment.", "not_covered"),
        ("Endoscopic sleeve gastroplasty is considered investigational and is not covered.", "not_covered"),
        ("The contract does not cover injuries arising from professional sport.", "not_covered"),
        ("Spectacle lenses are reimbursed up to GBP 200 per insured person in any period of 24 months.", "covered"),
        ("Bariatric surgery is considered medically necessary when all of the following are documented:", "conditional"),
        ("Crowns are reimbursed at 60% of the tariff, provided that the tooth cannot be restored.", "conditional"),
        ("Continuing therapy beyond the session limits requires individual consideration by the medical director.",
         "not_covered"),
        ("Testing requires prior authorization obtained before the specimen is collected.", "conditional"),
        ("Inpatient stays are covered. These conditions do not provide a daily cash allowance.", "covered"),
        ("'Contract year' means each period of twelve months.", "unknown"),
    ],
)
def test_coverage_type_reads_negation_and_exceptions(text: str, coverage: str) -> None:
    assert coverage_type(text) == coverage


@pytest.mark.parametrize(
    ("text", "headings", "kind"),
    [
        ("Dental implants are not excluded under this contract.", (), "scope"),
        ("Cosmetic surgery is excluded, except as provided in 6.4.", (), "exclusion"),
        ("No benefit is payable unless the insurer approved the quote before treatment began.", (), "criteria"),
        ("No benefit is payable for cosmetic treatment.", (), "exclusion"),
        ("In these conditions, 'insured person' means an employee registered for cover.", (), "definition"),
        ("Benefits for implants become payable only after a waiting period of twelve (12) months.", (), "waiting_period"),
        ("Glasses are reimbursed up to GBP 250 per insured person every two years.", (), "limit"),
        ("The insured person must send the insurer the itemised invoice and the dentist's quote.", (), "documents"),
        ("Check-ups and fillings are reimbursed at 80% of the agreed tariff.", (), "scope"),
        ("The terms of the policy are governed by English law.", (), "other"),
        ("Treatment abroad is paid in full.", ("Chapter 11. Exclusions", "11.2 Treatment abroad"), "exclusion"),
        ("Any text at all.", ("Chapter 12. Limits of benefits", "12.4 Annual caps on dental benefits"), "limit"),
        ("Any text at all.", ("Chapter 1. Definitions", "1.2 Definitions"), "definition"),
    ],
)
def test_clause_kind(text: str, headings: tuple[str, ...], kind: str) -> None:
    assert clause_kind(text, headings) == kind


def test_definitions_state_no_coverage_or_benefit() -> None:
    meta = classify("In these conditions, 'dental implant' means an artificial tooth root.", ("1.2 Definitions",))
    assert (meta.kind, meta.coverage_type, meta.benefit) == ("definition", "unknown", None)


def test_chunks_are_other_and_unknown() -> None:
    meta = classify("Dental implants are covered at 50%. Cosmetic surgery is excluded.", chunk=True)
    assert (meta.kind, meta.coverage_type, meta.benefit) == ("other", "unknown", "dental_implant")


def test_benefit_from_the_term_list() -> None:
    assert classify("Dental implants are covered at 50% of the agreed tariff.", ("7.3 Dental, implantology",)).benefit == "dental_implant"
    assert classify("Spectacle lenses and frames are reimbursed.").benefit == "optical"
    assert classify("The claim must reach us within six months.").benefit is None


def test_benefit_falls_back_to_the_document_title() -> None:
    meta = classify("Members must be eighteen or older.", ("Scope",), title="Insulin Pumps for Diabetes")
    assert meta.benefit == "insulin_pump"


def test_own_heading_outweighs_the_body() -> None:
    terms = BenefitTerms.from_mapping({"a": ["alpha"], "b": ["beta"]})
    assert terms.benefit("alpha alpha beta", ("Beta benefit",)) == "b"
    assert terms.benefit("alpha beta") == "a"  # a tie goes to the benefit named first


def test_term_list_is_data() -> None:
    assert dict(benefit_terms().patterns)["dental_implant"]


def test_agrees_with_the_hand_labelled_demo_corpus() -> None:
    """A regression guard: the rules agree with most hand labels of the bundled demo corpus."""
    kinds = coverages = labelled_coverage = total = 0
    for doc in load_demo().documents:
        for version in doc.versions:
            for clause in version.clauses:
                headings = tuple(h for h in (clause.section, clause.article) if h)
                meta = classify(clause.text, headings, title=doc.title)
                if clause.kind is not None:
                    total += 1
                    kinds += meta.kind == clause.kind
                if clause.coverage_type is not None:
                    labelled_coverage += 1
                    coverages += meta.coverage_type == clause.coverage_type
    assert total and kinds / total >= 0.85
    assert labelled_coverage and coverages / labelled_coverage >= 0.85
