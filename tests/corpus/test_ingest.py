"""Ingesting documents into the store: versions on one timeline, provenance, what ingest creates."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

import pytest
import yaml

from clauseguard.corpus.ingest import IngestRequest, build_request, code_system, ingest, sidecar_path
from clauseguard.corpus.model import FORMAT_V1, Contract, Corpus
from clauseguard.corpus.sources import open_persistent_store
from clauseguard.corpus.store import SqliteStore
from clauseguard.errors import AppendOnlyError, CorpusError, RequestError
from clauseguard.versions import (
    OUTSIDE_CONTRACT_PERIOD,
    eligibility_under_terms,
    governing_terms,
    policy_terms_version,
)
from tests.corpus.readers.documents import Edition, write_scanned_pdf, write_terms_docx, write_terms_pdf

DOC = "GRP-TERMS"
EDITIONS = {
    "CG-2019-01": Edition("CG-2019-01", implant_rate="40%", implant_cap="GBP 800", first_page=11),
    "CG-2021-09": Edition("CG-2021-09", implant_rate="50%", implant_cap="GBP 1,000", first_page=31),
    "CG-2024-01": Edition("CG-2024-01", implant_rate="70%", implant_cap="GBP 1,500", first_page=41),
}


@pytest.fixture
def store() -> Iterator[SqliteStore]:
    with open_persistent_store(None) as opened:
        yield opened


def request(files: list[Path], version: str, start: str, end: str | None = None, **more: Any) -> IngestRequest:
    flags: dict[str, Any] = {
        "document": DOC, "version": version, "effective_start": start, "effective_end": end,
        "kind": "policy_terms", "payer": "ALD", "plans": ("GRP-DENTAL",), "codes": ("D6010",),
    }
    flags.update(more)
    return build_request(files, flags)


def terms_pdf(tmp_path: Path, label: str) -> Path:
    return write_terms_pdf(tmp_path / f"terms-{label}.pdf", EDITIONS[label])


def test_three_pdf_versions_ingested_out_of_order_govern_a_contract_by_its_date(tmp_path: Path, store: SqliteStore) -> None:
    # the middle version first, open-ended; then the newest, which closes it; then the oldest, with its end
    middle = ingest(store, request([terms_pdf(tmp_path, "CG-2021-09")], "CG-2021-09", "2021-09-01"))
    newest = ingest(store, request([terms_pdf(tmp_path, "CG-2024-01")], "CG-2024-01", "2024-01-01"))
    oldest = ingest(store, request([terms_pdf(tmp_path, "CG-2019-01")], "CG-2019-01", "2019-01-01", "2021-08-31"))
    assert (middle.status, newest.status, oldest.status) == ("added", "added", "added")
    assert middle.payers == ("ALD",) and middle.plans == ("GRP-DENTAL",) and middle.codes == (("D6010", "HCPCS"),)
    closed = [e for e in newest.events if e.kind == "version_closed"]
    assert [(e.version, e.date) for e in closed] == [("CG-2021-09", date(2023, 12, 31))]

    store.add(Corpus(format=FORMAT_V1, contracts=(
        Contract(id="CT-48213", plan="GRP-DENTAL", holder="Acme Ltd", effective_date=date(2022, 6, 1),
                 terms_anchor="contract_date"),
    )))
    corpus = store.corpus()
    assert [(v.version, v.effective_start, v.effective_end) for v in corpus.documents[0].versions] == [
        ("CG-2019-01", date(2019, 1, 1), date(2021, 8, 31)),
        ("CG-2021-09", date(2021, 9, 1), date(2023, 12, 31)),
        ("CG-2024-01", date(2024, 1, 1), None),
    ]
    # a claim in 2024 under a contract signed in 2022 is read under the terms signed in 2022
    terms = governing_terms(corpus, "CT-48213", date(2024, 6, 1))
    assert policy_terms_version(terms) == "CG-2021-09"
    eligible = eligibility_under_terms(corpus, terms)
    implant = store.clause(f"{DOC}.CG-2021-09.A7.3")
    assert implant is not None and eligible.reason(implant.id) is None
    assert (implant.article, implant.page, implant.page_label) == ("7.3 Dental, implantology", 2, "32")
    assert implant.section == "Chapter 7. Dental care" and "50% of the agreed tariff" in implant.text
    assert implant.kind == "criteria" and implant.coverage_type == "conditional" and implant.benefit == "dental_implant"
    cap = store.clause(f"{DOC}.CG-2021-09.A12.4")
    assert cap is not None and "Benefit: Dental implants; Annual cap: GBP 1,000" in cap.text and cap.page_label == "33"
    for other in ("CG-2019-01", "CG-2024-01"):
        assert eligible.reason(f"{DOC}.{other}.A7.3") == OUTSIDE_CONTRACT_PERIOD
    assert all(cid.startswith(f"{DOC}.CG-2021-09.") for cid in eligible.eligible)
    newer = store.clause(f"{DOC}.CG-2024-01.A7.3")
    assert newer is not None and newer.page_label == "42" and "70%" in newer.text


def test_provenance_and_reingesting_the_same_file_is_a_no_op(tmp_path: Path, store: SqliteStore) -> None:
    path = terms_pdf(tmp_path, "CG-2021-09")
    first = ingest(store, request([path], "CG-2021-09", "2021-09-01"))
    source = first.version.source
    assert source is not None
    assert (source.file, source.reader) == ("terms-CG-2021-09.pdf", "pdf")
    assert source.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    fingerprint = store.fingerprint()
    again = ingest(store, request([path], "CG-2021-09", "2021-09-01"))
    assert again.status == "unchanged" and not again.read_files and store.fingerprint() == fingerprint


def test_changed_text_under_an_existing_label_is_refused(tmp_path: Path, store: SqliteStore) -> None:
    ingest(store, request([terms_pdf(tmp_path, "CG-2021-09")], "CG-2021-09", "2021-09-01"))
    fingerprint = store.fingerprint()
    other = write_terms_pdf(tmp_path / "edited.pdf", Edition("CG-2021-09", implant_rate="55%"))
    with pytest.raises(AppendOnlyError, match="changed text under existing version label CG-2021-09") as caught:
        ingest(store, request([other], "CG-2021-09", "2021-09-01"))
    assert "A7.3 differs" in str(caught.value) and "edited.pdf" in str(caught.value)
    assert store.fingerprint() == fingerprint


def test_a_different_file_with_the_same_text_is_a_no_op(tmp_path: Path, store: SqliteStore) -> None:
    path = terms_pdf(tmp_path, "CG-2021-09")
    ingest(store, request([path], "CG-2021-09", "2021-09-01"))
    copy = tmp_path / "copy.pdf"
    copy.write_bytes(path.read_bytes() + b"\n% a trailing comment changes the bytes, not the text\n")
    again = ingest(store, request([copy], "CG-2021-09", "2021-09-01"))
    assert again.status == "unchanged" and again.read_files and "text is the same" in again.notes[0]


def test_an_overlap_that_closes_nothing_is_refused_naming_both_versions(tmp_path: Path, store: SqliteStore) -> None:
    ingest(store, request([terms_pdf(tmp_path, "CG-2024-01")], "CG-2024-01", "2024-01-01"))
    with pytest.raises(AppendOnlyError) as caught:
        ingest(store, request([terms_pdf(tmp_path, "CG-2021-09")], "CG-2021-09", "2021-09-01"))
    assert "CG-2024-01 (2024-01-01 to open-ended)" in str(caught.value)
    assert "CG-2021-09 (2021-09-01 to open-ended)" in str(caught.value)


def test_dry_run_writes_nothing(tmp_path: Path, store: SqliteStore) -> None:
    outcome = ingest(store, request([terms_pdf(tmp_path, "CG-2021-09")], "CG-2021-09", "2021-09-01"), dry_run=True)
    assert outcome.status == "planned" and len(outcome.version.clauses) == 8 and store.is_empty()


def test_no_text_layer_writes_nothing(tmp_path: Path, store: SqliteStore) -> None:
    with pytest.raises(CorpusError, match="no text layer: OCR needed"):
        ingest(store, request([write_scanned_pdf(tmp_path / "scan.pdf")], "CG-2021-09", "2021-09-01"))
    assert store.is_empty()


def test_a_rider_is_attached_to_the_plans_it_names(tmp_path: Path, store: SqliteStore) -> None:
    ingest(store, request([terms_pdf(tmp_path, "CG-2021-09")], "CG-2021-09", "2021-09-01"))
    outcome = ingest(store, build_request([write_terms_docx(tmp_path / "rider.docx", "PR-1")], {
        "document": "GRP-RID-PHYSIO", "version": "PR-1", "effective_start": "2022-01-01", "kind": "rider",
        "payer": "ALD", "plans": ("GRP-DENTAL",), "overrides": (DOC,), "codes": ("97110",),
    }))
    assert outcome.codes == (("97110", "CPT"),) and outcome.plans == ()
    assert any("riders GRP-RID-PHYSIO added" in n for n in outcome.notes)
    corpus = store.corpus()
    assert corpus.plans[0].riders == ("GRP-RID-PHYSIO",)
    rider = next(d for d in corpus.documents if d.id == "GRP-RID-PHYSIO")
    assert (rider.title, rider.plans, rider.overrides) == ("Physiotherapy Rider", ("GRP-DENTAL",), (DOC,))
    assert [c.id for c in rider.versions[0].clauses][:2] == ["GRP-RID-PHYSIO.PR-1.C1", "GRP-RID-PHYSIO.PR-1.A1"]


def test_a_stored_document_keeps_its_payer_kind_and_title(tmp_path: Path, store: SqliteStore) -> None:
    ingest(store, request([terms_pdf(tmp_path, "CG-2021-09")], "CG-2021-09", "2021-09-01"))
    with pytest.raises(RequestError, match="--kind: document GRP-TERMS is stored with kind 'policy_terms'"):
        ingest(store, request([terms_pdf(tmp_path, "CG-2024-01")], "CG-2024-01", "2024-01-01", kind="faq"))
    later = ingest(store, build_request([terms_pdf(tmp_path, "CG-2024-01")], {
        "document": DOC, "version": "CG-2024-01", "effective_start": "2024-01-01"}))
    assert later.status == "added" and later.payers == () and later.plans == ()


@pytest.mark.parametrize(
    ("flags", "field", "message"),
    [
        ({"payer": None}, "--payer", "document GRP-TERMS is new"),
        ({"kind": None}, "--kind", "document GRP-TERMS is new"),
        ({"codes": ("E10",)}, None, None),
        ({"codes": ("12AB",)}, "--code", "'12AB' has no known code shape"),
        ({"overrides": ("X",)}, "--overrides", "only a rider overrides"),
    ],
)
def test_what_a_new_document_needs(
    tmp_path: Path, store: SqliteStore, flags: dict[str, Any], field: str | None, message: str | None
) -> None:
    req = request([terms_pdf(tmp_path, "CG-2021-09")], "CG-2021-09", "2021-09-01", **flags)
    if field is None:
        assert ingest(store, req).codes == (("E10", "ICD-10-CM"),)
        return
    with pytest.raises(RequestError) as caught:
        ingest(store, req)
    assert caught.value.field == field and message is not None and message in str(caught.value)
    assert store.is_empty()


@pytest.mark.parametrize(("code", "system"), [("99213", "CPT"), ("0501T", "CPT"), ("A9276", "HCPCS"), ("E10.9", "ICD-10-CM")])
def test_code_systems_are_told_by_shape(code: str, system: str) -> None:
    assert code_system(code) == system


def test_sidecar_gives_the_fields(tmp_path: Path, store: SqliteStore) -> None:
    path = terms_pdf(tmp_path, "CG-2021-09")
    sidecar_path(path).write_text(yaml.safe_dump({
        "document": DOC, "version": "CG-2021-09", "effective_start": "2021-09-01", "kind": "policy_terms",
        "payer": "ALD", "plans": ["GRP-DENTAL"], "codes": ["D6010"],
    }))
    req = build_request([path], {"codes": ("D6065",)})
    assert (req.document, req.version, req.effective_start) == (DOC, "CG-2021-09", date(2021, 9, 1))
    assert req.codes == ("D6065", "D6010")
    assert ingest(store, req).status == "added"


@pytest.mark.parametrize(
    ("sidecar", "flags", "field", "message"),
    [
        ({"version": "v2"}, {"version": "v1"}, "--version", "gives v2 but the command line gives v1"),
        ({"effective_start": "2021-13-01"}, {}, "--effective-start", "not a date"),
        ({"colour": "blue"}, {}, None, "unknown key 'colour'"),
        ({}, {"effective_start": "2021-09-01", "effective_end": "2021-01-01"}, "--effective-end", "is before"),
        ({}, {"effective_start": "2021-09-01", "kind": "brochure"}, "--kind", "not a document kind"),
        ({}, {"effective_start": None}, "--effective-start", "required"),
    ],
)
def test_bad_requests_name_the_flag(
    tmp_path: Path, sidecar: dict[str, str], flags: dict[str, Any], field: str | None, message: str
) -> None:
    path = tmp_path / "terms.pdf"
    path.write_bytes(b"%PDF-1.4")
    if sidecar:
        sidecar_path(path).write_text(yaml.safe_dump(sidecar))
    given = {"document": DOC, "version": "v1", "effective_start": "2021-09-01", **flags}
    with pytest.raises(RequestError) as caught:
        build_request([path], given)
    assert message in str(caught.value)
    if field is not None:
        assert caught.value.field == field


def test_several_files_make_one_version_whose_pages_continue(tmp_path: Path, store: SqliteStore) -> None:
    first = terms_pdf(tmp_path, "CG-2021-09")
    second = write_terms_docx(tmp_path / "annex.docx", "CG-2021-09")
    outcome = ingest(store, request([first, second], "CG-2021-09", "2021-09-01"))
    source = outcome.version.source
    assert source is not None and source.file == "terms-CG-2021-09.pdf, annex.docx" and source.reader == "pdf+docx"
    assert source.sha256 == hashlib.sha256(first.read_bytes() + second.read_bytes()).hexdigest()
    pages = {c.id.removeprefix(f"{DOC}.CG-2021-09."): c.page for c in outcome.version.clauses}
    assert pages["A12.4"] == 3 and pages["A1"] == 4 and pages["A3"] == 5  # the annex starts on page 4
    assert outcome.pages == 5


def test_html_and_markdown_policies(tmp_path: Path, store: SqliteStore) -> None:
    from tests.corpus.readers.documents import HTML_PAGE, MARKDOWN_PAGE

    page = tmp_path / "hearing.html"
    page.write_text(HTML_PAGE, encoding="utf-8")
    notes = tmp_path / "oxygen.md"
    notes.write_text(MARKDOWN_PAGE, encoding="utf-8")
    hearing = ingest(store, build_request([page], {
        "document": "KHP-MP-HEAR", "version": "2024", "effective_start": "2024-01-01", "kind": "medical_policy",
        "payer": "KHP", "codes": ("V5256",)}))
    oxygen = ingest(store, build_request([notes], {
        "document": "KHP-MP-O2", "version": "2024", "effective_start": "2024-01-01", "kind": "medical_policy",
        "payer": "KHP", "codes": ("E1390",)}))
    corpus = store.corpus()
    assert [d.title for d in corpus.documents] == ["Hearing Aids Policy", "Home Oxygen Policy"]
    kinds = {c.id: (c.kind, c.coverage_type) for c in (*hearing.version.clauses, *oxygen.version.clauses)}
    assert kinds["KHP-MP-HEAR.2024.S2"] == ("criteria", "conditional")
    assert kinds["KHP-MP-O2.2024.A4"] == ("exclusion", "not_covered")
    assert all(c.page is None and c.benefit in ("hearing_aid", "home_oxygen") for c in (*hearing.version.clauses, *oxygen.version.clauses))
