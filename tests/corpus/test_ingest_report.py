"""The ingest report, names given by hand, pages that run over, and messages that say what happened."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from clauseguard.corpus.ingest import build_request, ingest, ingest_files
from clauseguard.corpus.ingest_report import outcome_data
from clauseguard.corpus.sources import open_persistent_store
from clauseguard.corpus.store import SqliteStore
from clauseguard.errors import RequestError
from clauseguard.interfaces import cli
from clauseguard.interfaces.cli import main
from clauseguard.interfaces.ingest_commands import register
from clauseguard.retrieval.clauses import ClauseTable
from tests.fixtures.pdfs import make_fpdf


@pytest.fixture(scope="module")
def pdfs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return {p.stem: p for p in make_fpdf.build(tmp_path_factory.mktemp("fpdf"))}


@pytest.fixture
def store() -> Iterator[SqliteStore]:
    with open_persistent_store(None) as opened:
        yield opened


@pytest.fixture(autouse=True)
def _commands() -> None:
    register(cli.app, cli.corpus_app)


def fields(**more: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"document": "L99401", "version": "R9", "effective_start": "2024-01-01",
                            "kind": "medical_policy", "payer": "CMS-JE", "plans": ("MED-B",), "codes": ("E0650",)}
    base.update(more)
    return base


def test_the_report_says_what_was_read_and_left_out(pdfs: dict[str, Path], store: SqliteStore) -> None:
    outcome = ingest_files(store, [pdfs["cms-lcd-pneumatic-compression"]], fields(), dry_run=True)
    report = outcome.report
    assert report is not None and outcome.status == "planned" and store.is_empty()
    assert (report.pages, report.clauses, report.table_clauses) == (4, 13, 2)
    assert [h.text for h in report.headings][:3] == ["CMS National Coverage Policy",
                                                     "Coverage Indications, Limitations, and/or Medical Necessity", "LYMPHEDEMA"]
    assert report.list_items == 10 and report.joiners == 0
    kv, history = report.tables
    assert (kv.page, kv.header, kv.rows, kv.keys[0], kv.revision_history) == (1, [], 9, "LCD ID", False)
    assert (history.page, history.page_end, history.rows, history.revision_history) == (3, 4, 19, True)
    assert history.header == ["Revision Effective Date", "Revision Number", "Revision Explanation"]
    left_out = {(d.what, d.text) for d in report.dropped}
    assert ("running header", "LCD - Pneumatic Compression Devices for Lymphedema (L99401)") in left_out
    assert ("footer", "Cascade Medicare Services, LLC") in left_out
    dates = [c.date for c in report.candidate_effective_dates]
    assert dates[0] == date(2024, 1, 1) and dates[-1] == date(2019, 10, 1) and len(dates) == 19
    assert report.candidate_effective_dates[0].where == "revision history, page 3"
    assert not any("revision history" in w for w in outcome.warnings)  # 2024-01-01 is the newest revision


def test_an_effective_start_the_revision_history_does_not_name_is_a_warning(pdfs: dict[str, Path], store: SqliteStore) -> None:
    outcome = ingest_files(store, [pdfs["cms-lcd-pneumatic-compression"]], fields(effective_start="2024-02-01"), dry_run=True)
    assert any("--effective-start 2024-02-01 is not among the dates of the revision history (the newest is 2024-01-01)" in w
               for w in outcome.warnings)


def test_a_clause_over_a_page_break_keeps_both_pages_in_store_and_passages(pdfs: dict[str, Path], store: SqliteStore) -> None:
    outcome = ingest_files(store, [pdfs["drugpol-dupilumab"]], fields(document="RX-PA-118", version="2024-07",
                                                                      effective_start="2024-07-01", codes=()))
    assert outcome.status == "added"
    over = [c for c in outcome.version.clauses if c.page_end is not None]
    assert [(c.article, c.page, c.page_label, c.page_end, c.page_end_label) for c in over] == [
        ("B. Atopic Dermatitis - Reauthorization", 3, "1", 4, "2")
    ]
    stored = store.clause(over[0].id)
    assert stored is not None and (stored.page, stored.page_label, stored.page_end, stored.page_end_label) == (3, "1", 4, "2")
    row = next(r for r in ClauseTable.from_corpus(store.corpus()).rows if r.clause_id == over[0].id)
    assert (row.page, row.page_label, row.page_end, row.page_end_label) == (3, "1", 4, "2")
    data = outcome_data(outcome, "store")
    assert next(c for c in data["clauses"] if c["id"] == over[0].id)["page_end_label"] == "2"


def test_names_by_hand_and_a_plan_attached_to_an_existing_version(pdfs: dict[str, Path], store: SqliteStore) -> None:
    path = pdfs["medpol-bariatric-surgery"]
    first = ingest_files(store, [path], fields(document="MP-2.114", version="2024-03", effective_start="2024-03-01",
                                               payer_name="Northvale Health Plan", plans=("NV-HMO",),
                                               plan_names=("NV-HMO=Northvale HMO",), codes=()))
    assert first.status == "added" and dict(first.names) == {"CMS-JE": "Northvale Health Plan", "NV-HMO": "Northvale HMO"}
    corpus = store.corpus()
    assert corpus.payers[0].name == "Northvale Health Plan" and corpus.plans[0].name == "Northvale HMO"
    assert corpus.documents[0].title == "Bariatric Surgery"  # the title the PDF prints (its /Title when it prints none)

    again = ingest_files(store, [path], fields(document="MP-2.114", version="2024-03", effective_start="2024-03-01",
                                               plans=("NV-PPO",), plan_names=("NV-PPO=Northvale PPO",), codes=()))
    assert again.status == "attached" and not again.new_version and not again.read_files
    assert again.attached == ("plan NV-PPO attached to existing version 2024-03 of MP-2.114",)
    assert store.corpus().documents[0].plans == ("NV-HMO", "NV-PPO")

    with pytest.raises(RequestError, match="--payer-name: payer CMS-JE is stored with name 'Northvale Health Plan'"):
        ingest_files(store, [path], fields(document="MP-2.114", version="2024-03", effective_start="2024-03-01",
                                           payer_name="Someone Else", codes=()))


def test_naming_a_plan_never_narrows_a_document_of_every_plan(pdfs: dict[str, Path], store: SqliteStore) -> None:
    path = pdfs["medpol-bariatric-surgery"]
    ingest_files(store, [path], fields(document="MP-2.114", version="2024-03", effective_start="2024-03-01", plans=(), codes=()))
    again = ingest_files(store, [path], fields(document="MP-2.114", version="2024-03", effective_start="2024-03-01",
                                               plans=("NV-PPO",), codes=()))
    assert store.corpus().documents[0].plans == ()  # still every plan of the payer
    assert any("applies to every plan of payer CMS-JE, so to NV-PPO already" in n for n in again.notes)


def test_progress_is_told_per_stage(pdfs: dict[str, Path], store: SqliteStore) -> None:
    seen: list[tuple[str, int, int]] = []
    request = build_request([pdfs["groupterms-harbourline"]], fields(document="GT-2023", kind="policy_terms", codes=()))
    ingest(store, request, dry_run=True, progress=lambda stage, done, total: seen.append((stage, done, total)))
    assert seen[0] == ("reading groupterms-harbourline.pdf", 0, 1)
    assert [s for s in seen if s[0] == "pages"] == [("pages", n, 6) for n in range(1, 7)]
    assert seen[-1][0] == "clauses" and seen[-1][1] == seen[-1][2] > 0


def test_cli_dry_run_prints_the_report(capsys: pytest.CaptureFixture[str], pdfs: dict[str, Path]) -> None:
    code = main(["ingest", str(pdfs["drugpol-dupilumab"]), "--document", "RX-PA-118", "--version", "2024-07",
                 "--effective-start", "2024-07-01", "--kind", "medical_policy", "--payer", "PCH",
                 "--payer-name", "Pinecrest Health", "--dry-run"])
    out = capsys.readouterr().out
    assert code == 0
    for said in ("Would add version 2024-07 of RX-PA-118", "new payer PCH (named 'Pinecrest Health')",
                 "left out: cover page (page 1)", "left out: contents page (page 2)",
                 "table p. 5: 3 rows, header Date | Description, revision history",
                 "candidate effective dates from the revision history, page 5: 2024-07-01",
                 "p. 3 (1)-4 (2)", "Dry run: nothing was written."):
        assert said in out, said
    code = main(["ingest", str(pdfs["drugpol-dupilumab"]), "--document", "RX-PA-118", "--version", "2024-07",
                 "--effective-start", "2024-07-01", "--kind", "medical_policy", "--payer", "PCH", "--dry-run", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["status"] == "planned" and data["new_version"] is True
    assert data["report"]["dropped"][-1] == {"what": "contents page", "text": "", "pages": [2]}
    assert data["report"]["candidate_effective_dates"][0] == {"date": "2024-07-01", "where": "revision history, page 5"}
