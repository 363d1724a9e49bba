"""The page, in Debian's chromium: a clause with its criteria spans highlighted, the unread stretches
marked, the tree in plain words, and each cited clause saying who read it (the compiler or revision R of NAME)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from clauseguard.authoring.check import check_sheet
from clauseguard.authoring.revisions import revision_log
from clauseguard.authoring.sheet import parse_sheet
from clauseguard.authoring.submit import add_checked
from clauseguard.corpus.sources import open_corpus
from tests.interfaces.conftest import free_port, running_cli

from .conftest import cgm_entry, sheet

pytestmark = pytest.mark.integration

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]
SHOTS = Path(__file__).resolve().parents[2] / "test-output" / "web"


@pytest.fixture
def browser() -> Any:
    if not CHROMIUM.exists():
        message = f"{CHROMIUM} is missing: `make test` installs Debian's chromium (apt-get install -y chromium)"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=ARGS)
        yield launched
        launched.close()


def test_the_clause_view_and_the_determination_say_who_reads_each_clause(
    browser: Any, corpus_file: Path, tmp_path: Path, isolated_home: Path,
) -> None:
    opened = open_corpus(str(corpus_file), None)
    report = check_sheet(parse_sheet(sheet(cgm_entry())), opened.corpus)
    with revision_log(opened.store) as log:
        [added] = add_checked(report, log, author="ana", note="from the text")
        assert added.revision_id is not None
        log.approve(added.revision_id, "bo")
    port = free_port()
    with running_cli(["--corpus", str(corpus_file), "serve", "--port", str(port)], home=isolated_home,
                     ready_url=f"http://127.0.0.1:{port}/readyz") as server:
        context = browser.new_context(viewport={"width": 1440, "height": 900})
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(server.url + "/")
        page.wait_for_selector("#s-payer option", state="attached")
        page.click("#tab-determination")
        for field, value in (("#d-payer", "GHP"), ("#d-plan", "GHP-BASIC"), ("#d-codes", "E2103"), ("#d-dx", "E11.9"),
                             ("#d-date", "2024-05-01"), ("#d-question", "Is the CGM covered?"),
                             ("#d-narrative", "72-year-old with type 2 diabetes. She does four fingerstick tests per day.")):
            page.fill(field, value)
        page.click('#panel-determination button[type="submit"]')
        page.wait_for_selector('[data-testid="citation"] [data-testid="read-by"]')
        assert page.inner_text('[data-testid="gate"]') == "DETERMINE"
        shown = page.inner_text('[data-testid="citation"][data-clause-id="GM.v1.2"] [data-testid="read-by"]')
        assert shown == f"read by revision {added.revision_id} of ana, approved by bo"

        page.evaluate("openClauseDialog('GM.v1.2')")
        page.wait_for_selector('#clause-dialog[open] [data-testid="plain-words"]')
        kinds = {m.get_attribute("data-kind") for m in page.query_selector_all("#clause-dialog mark")}
        assert {"criterion", "subject"} <= kinds
        words = page.inner_text('#clause-dialog [data-testid="plain-words"]')
        assert "covered when ALL of: age >= 65 years; diabetes mellitus; fingerstick tests >= 3 per day" in words
        assert f"revision {added.revision_id} of ana" in page.inner_text("#clause-dialog")
        page.keyboard.press("Escape")

        page.evaluate("openClauseDialog('GM.v1.4')")  # read by the compiler; nothing unread
        page.wait_for_selector('#clause-dialog[open] [data-testid="criteria-text"]')
        assert "read by the compiler" in page.inner_text("#clause-dialog")
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / "criteria-clause-view.png"), full_page=True)
        context.close()
        assert not errors, errors


def test_an_unread_stretch_is_marked(browser: Any, corpus_file: Path, isolated_home: Path) -> None:
    port = free_port()
    with running_cli(["--corpus", str(corpus_file), "serve", "--port", str(port)], home=isolated_home,
                     ready_url=f"http://127.0.0.1:{port}/readyz") as server:
        context = browser.new_context(viewport={"width": 1200, "height": 800})
        page = context.new_page()
        page.goto(server.url + "/")
        page.wait_for_selector("#s-payer option", state="attached")
        page.evaluate("openClauseDialog('GM.v1.2')")
        page.wait_for_selector('#clause-dialog[open] mark.unread')
        unread = page.inner_text("#clause-dialog mark.unread")
        assert "65 or older" in unread
        assert "no one reads" in page.inner_text('#clause-dialog [data-testid="unread-note"]')
        assert "read by the compiler" in page.inner_text("#clause-dialog")
        context.close()
