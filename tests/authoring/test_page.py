"""The page, in Debian's chromium: a clause with its criteria spans highlighted, the unread stretches
marked, the tree in plain words, and each cited clause of a determination saying who read it (the
compiler or revision R of NAME), as the API's JSON says. Screenshots go to test-output/web/."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from clauseguard.authoring.check import check_sheet
from clauseguard.authoring.revisions import revision_log
from clauseguard.authoring.sheet import parse_sheet
from clauseguard.authoring.submit import add_checked
from clauseguard.corpus.sources import open_corpus
from tests.interfaces.conftest import Served, free_port, running_cli

from .conftest import cgm_entry, cgm_rule, sheet

pytestmark = pytest.mark.integration

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]
SHOTS = Path(__file__).resolve().parents[2] / "test-output" / "web"
CGM_NARRATIVE = "72-year-old with type 2 diabetes. She does four fingerstick tests per day."
STRIPS_NARRATIVE = "Adult with type 2 diabetes mellitus who needs test strips."


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not CHROMIUM.exists():
        message = f"{CHROMIUM} is missing: `make test` installs Debian's chromium (apt-get install -y chromium)"
        if os.environ.get("CI") == "true":
            pytest.fail(message)  # under CI a missing browser is a failure, never a skip
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=ARGS)
        yield launched
        launched.close()


def add_cgm_revision(corpus_file: Path, *, approve_by: str | None, minimum_age: int = 65) -> str:
    """The analyst's tree for GM.v1.2, added by ana and (when `approve_by`) approved by someone else."""
    opened = open_corpus(str(corpus_file), None)
    report = check_sheet(parse_sheet(sheet(cgm_entry(criteria=cgm_rule(minimum_age)))), opened.corpus)
    with revision_log(opened.store) as log:
        [added] = add_checked(report, log, author="ana", note="from the text")
        assert added.revision_id is not None
        if approve_by:
            log.approve(added.revision_id, approve_by)
    return added.revision_id


def expected_read_by(read_by: dict[str, Any]) -> str:
    """What the page must print for a citation's read_by in the API's JSON."""
    if read_by["source"] == "revision":
        return f"read by revision {read_by['revision_id']} of {read_by['author']}, approved by {read_by['approved_by']}"
    return "read from the corpus's own criteria" if read_by["source"] == "corpus" else "read by the compiler"


def determine(page: Any, server: Served, code: str, narrative: str) -> dict[str, Any]:
    """Submit the determination form; return the API's JSON for the same request."""
    request = {"payer_id": "GHP", "plan_id": "GHP-BASIC", "procedure_codes": [code], "diagnosis_codes": ["E11.9"],
               "as_of_date": "2024-05-01", "narrative": narrative, "question": "Is it covered?"}
    page.click("#tab-determination")
    for field, value in (("#d-payer", "GHP"), ("#d-plan", "GHP-BASIC"), ("#d-codes", code), ("#d-dx", "E11.9"),
                         ("#d-date", "2024-05-01"), ("#d-question", "Is it covered?"), ("#d-narrative", narrative)):
        page.fill(field, value)
    page.click('#panel-determination button[type="submit"]')
    page.wait_for_selector('[data-testid="citation"][data-clause-id^="GM.v1."] [data-testid="read-by"]')
    answer = httpx.post(server.url + "/v1/determinations", json=request, timeout=60.0)
    assert answer.status_code == 200, answer.text
    return dict(answer.json())


def shown_read_by(page: Any) -> dict[str, str]:
    return {card.get_attribute("data-clause-id"): card.query_selector('[data-testid="read-by"]').inner_text()
            for card in page.query_selector_all('[data-testid="citation"]')}


@contextmanager
def serve(corpus_file: Path, home: Path) -> Iterator[Served]:
    """`clauseguard serve` over the corpus file (and the store beside it), started after the revisions are written."""
    port = free_port()
    with running_cli(["--corpus", str(corpus_file), "serve", "--port", str(port)], home=home,
                     ready_url=f"http://127.0.0.1:{port}/readyz") as server:
        yield server


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    opened = context.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda exc: errors.append(str(exc)))
    yield opened
    context.close()
    assert not errors, errors


def open_page(page: Any, server: Served) -> None:
    page.goto(server.url + "/")
    page.wait_for_selector("#s-payer option", state="attached")


def test_the_determination_says_which_revision_or_the_compiler_decided_each_clause(
    corpus_file: Path, isolated_home: Path, page: Any,
) -> None:
    revision = add_cgm_revision(corpus_file, approve_by="bo")
    with serve(corpus_file, isolated_home) as server:
        open_page(page, server)
        answer = determine(page, server, "E2103", CGM_NARRATIVE)
        assert page.inner_text('[data-testid="gate"]') == answer["gate"] == "DETERMINE"
        api = {c["clause_id"]: expected_read_by(c["read_by"]) for c in answer["citations"]}
        assert shown_read_by(page) == api
        assert api["GM.v1.2"] == f"read by revision {revision} of ana, approved by bo"

        answer = determine(page, server, "A4253", STRIPS_NARRATIVE)  # the compiler reads the strips clause
        page.wait_for_selector('[data-testid="citation"][data-clause-id="GM.v1.4"]')
        api = {c["clause_id"]: expected_read_by(c["read_by"]) for c in answer["citations"]}
        assert shown_read_by(page) == api
        assert api["GM.v1.4"] == "read by the compiler"
        assert page.inner_text('[data-testid="gate"]') == answer["gate"]


def test_the_clause_view_shows_the_revision_spans_and_plain_words(
    corpus_file: Path, isolated_home: Path, page: Any,
) -> None:
    revision = add_cgm_revision(corpus_file, approve_by="bo")
    with serve(corpus_file, isolated_home) as server:
        open_page(page, server)
        view = httpx.get(server.url + "/v1/criteria/clauses/GM.v1.2", timeout=30.0).json()
        page.evaluate("openClauseDialog('GM.v1.2')")
        page.wait_for_selector('#clause-dialog[open] [data-testid="plain-words"]')
        marks = page.query_selector_all("#clause-dialog mark")
        assert {"criterion", "subject"} <= {m.get_attribute("data-kind") for m in marks}
        assert not page.query_selector("#clause-dialog mark.unread")  # the revision reads every stretch
        marked = {" ".join(m.inner_text().split()) for m in marks}
        assert {"aged 65 or older", "diabetes mellitus", "test their blood glucose at least three times a day"} <= marked
        text = page.inner_text('#clause-dialog [data-testid="criteria-text"]')
        assert " ".join(text.split()) == " ".join(view["text"].split())  # the clause text, every word, unchanged
        words = page.inner_text('#clause-dialog [data-testid="plain-words"]')
        assert "covered when ALL of: age >= 65 years; diabetes mellitus; fingerstick tests >= 3 per day" in words
        assert [" ".join(line.split()) for line in words.splitlines() if line.strip()] == view["plain"]
        assert f"read by revision {revision} of ana, approved by bo" in page.inner_text("#clause-dialog")
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / "criteria-clause-view.png"), full_page=True)
        page.keyboard.press("Escape")

        page.evaluate("openClauseDialog('GM.v1.4')")  # read by the compiler
        page.wait_for_selector('#clause-dialog[open] [data-testid="criteria-text"] mark')
        assert "read by the compiler" in page.inner_text("#clause-dialog")


def test_an_unread_stretch_is_marked_and_an_unapproved_revision_reads_nothing(
    corpus_file: Path, isolated_home: Path, page: Any,
) -> None:
    add_cgm_revision(corpus_file, approve_by=None)  # written, never approved: four eyes, it decides nothing
    with serve(corpus_file, isolated_home) as server:
        open_page(page, server)
        page.evaluate("openClauseDialog('GM.v1.2')")
        page.wait_for_selector('#clause-dialog[open] mark.unread')
        unread = page.inner_text("#clause-dialog mark.unread")
        assert "65 or older" in unread
        assert "no one reads" in page.inner_text('#clause-dialog [data-testid="unread-note"]')
        assert "read by the compiler" in page.inner_text("#clause-dialog")
        assert "revision" not in page.inner_text("#clause-dialog")
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / "criteria-clause-unread.png"), full_page=True)
