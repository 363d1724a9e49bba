"""The handlers' page in a real browser: Debian's chromium, headless, driven by Playwright.

Requests from the bundled suites are submitted through the page's forms; what its panels show (gate,
outcome, status, cited ids, excluded ids, the highlighted span in each clause) must equal the API's
JSON for the same request. Screenshots go to test-output/web/ (git-ignored).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.interfaces.conftest import (
    DETERMINATION_SUITE,
    REPO,
    SEARCH_SUITE,
    Served,
    determination_request,
    search_request,
    suite_cases,
)

pytestmark = pytest.mark.integration

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]
SHOTS = REPO / "test-output" / "web"
LAPTOP = {"width": 1440, "height": 900}
SEARCH_CASES = ["s-implant-ct48213", "s-implant-ct51877", "s-plan-ind-hospital-cash", "s-nothing-relevant-pets"]
DETERMINATION_CASES = ["d-t5-faq-not-relied-on", "d-t2-pump-rider-waives-injections", "d-t6-acupuncture-no-policy",
                       "d-t7-empty-payer"]


def norm(text: str | None) -> str:
    return " ".join((text or "").split())


def case(path: Path, case_id: str) -> dict[str, Any]:
    return next(c for c in suite_cases(path) if c["case_id"] == case_id)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not CHROMIUM.exists():
        message = f"{CHROMIUM} is missing: `make test` installs Debian's chromium (apt-get install -y chromium)"
        if os.environ.get("CI") == "true":
            pytest.fail(message)  # under CI a missing browser is a failure, never a skip
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture
def page(browser: Any, served: Served) -> Iterator[Any]:
    context = browser.new_context(viewport=LAPTOP)
    opened = context.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda exc: errors.append(str(exc)))
    opened.goto(served.url + "/")
    opened.wait_for_selector("#s-contract option", state="attached")
    yield opened
    context.close()
    assert not errors, errors


def shoot(page: Any, name: str) -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(path), full_page=True)
    return path


def submit(page: Any, panel: str) -> None:
    page.click(f"#{panel} button[type=submit]")
    page.wait_for_selector("#results[data-state=done], #results[data-state=error]")


def ids(page: Any, testid: str) -> list[str]:
    return [str(el.get_attribute("data-clause-id")) for el in page.query_selector_all(f'[data-testid="{testid}"]')]


def card_marks(page: Any, testid: str) -> dict[str, str]:
    """Each clause card's highlighted span, by clause id."""
    out = {}
    for card in page.query_selector_all(f'[data-testid="{testid}"]'):
        mark = card.query_selector("mark.cited")
        out[str(card.get_attribute("data-clause-id"))] = norm(mark.inner_text() if mark else None)
    return out


@pytest.mark.parametrize("case_id", SEARCH_CASES)
def test_a_search_through_the_page_shows_the_apis_answer(page: Any, served: Served, case_id: str) -> None:
    request = search_request(case(SEARCH_SUITE, case_id))
    if "contract_id" in request:
        page.check('input[name="search-target"][value="contract"]')
        page.select_option("#s-contract", request["contract_id"])
    else:
        page.check('input[name="search-target"][value="plan"]')
        page.select_option("#s-payer", request["payer_id"])
        page.select_option("#s-plan", request["plan_id"])
    page.fill("#s-date", request.get("effective_date", ""))
    page.fill("#s-question", request["question"])
    page.click("#s-advanced summary")  # the suite's own threshold and k: the advanced toggle keeps them
    page.fill("#s-threshold", str(request["threshold"]))
    page.fill("#s-k", str(request["k"]))
    submit(page, "panel-search")
    api = httpx.post(served.url + "/v1/search", json=request, timeout=30).json()

    assert page.inner_text('[data-testid="status"]') == api["status"].upper()
    assert page.inner_text('[data-testid="action"]') == api["action"]
    assert page.inner_text('[data-testid="applicable-version"]') == (api["applicable_version"] or "none")
    assert ids(page, "source") == [s["clause_id"] for s in api["sources"]]
    assert ids(page, "excluded-row") == [e["clause_id"] for e in api["excluded"]]
    assert ids(page, "below-row") == [b["clause_id"] for b in api["below_threshold"]]
    assert card_marks(page, "source") == {s["clause_id"]: norm(s["excerpt"]) for s in api["sources"]}
    answer_links = {a.get_attribute("data-clause-link") for a in page.query_selector_all('[data-testid="answer"] a')}
    assert {s["clause_id"] for s in api["sources"]} <= answer_links
    timelines = [t.get_attribute("data-document-id") for t in page.query_selector_all('[data-testid="timeline"]')]
    assert {s["document_id"] for s in api["sources"]} <= set(timelines)
    shoot(page, case_id)


@pytest.mark.parametrize("case_id", DETERMINATION_CASES)
def test_a_determination_through_the_page_shows_the_apis_answer(page: Any, served: Served, case_id: str) -> None:
    request = determination_request(case(DETERMINATION_SUITE, case_id))
    page.click("#tab-determination")
    page.fill("#d-payer", request["payer_id"])
    page.fill("#d-plan", request["plan_id"])
    page.fill("#d-codes", ", ".join(request["procedure_codes"]))
    page.fill("#d-dx", ", ".join(request["diagnosis_codes"]))
    page.fill("#d-date", request["as_of_date"])
    page.fill("#d-narrative", request["narrative"])
    page.fill("#d-question", request["question"])
    submit(page, "panel-determination")
    api = httpx.post(served.url + "/v1/determinations", json=request, timeout=30).json()

    assert page.inner_text('[data-testid="gate"]') == api["gate"]
    assert page.inner_text('[data-testid="outcome"]') == api["outcome"]
    assert ids(page, "citation") == [c["clause_id"] for c in api["citations"]]
    assert ids(page, "excluded-row") == [e["clause_id"] for e in api["excluded"]]
    assert card_marks(page, "citation") == {c["clause_id"]: norm(c["quote"]) for c in api["citations"]}
    codes = [r.get_attribute("data-code") for r in page.query_selector_all('[data-testid="reason"]')]
    assert codes == [r["code"] for r in api["reasons"]]
    assert page.inner_text('[data-testid="assertion-id"]') == api["assertion_id"]
    shoot(page, case_id)


def test_compare_shows_the_differences_side_by_side(page: Any, served: Served) -> None:
    request = {"question": "dental implant: coverage, annual cap, waiting period",
               "a": "document:GRP-TERMS@CG-2021-09", "b": "document:GRP-TERMS@CG-2024-01"}
    page.click("#tab-compare")
    page.fill("#c-question", request["question"])
    page.fill("#c-a", request["a"])
    page.fill("#c-b", request["b"])
    submit(page, "panel-compare")
    api = httpx.post(served.url + "/v1/compare", json=request, timeout=30).json()

    rows = page.query_selector_all('[data-testid="difference"]')
    assert [r.get_attribute("data-aspect") for r in rows] == [d["aspect"] for d in api["differences"]]
    for row, difference in zip(rows, api["differences"], strict=True):
        links = [a.get_attribute("data-clause-link") for a in row.query_selector_all("a")]
        assert links == [difference[side]["clause_id"] for side in ("a", "b") if difference[side]]
    for side in ("a", "b"):
        shown = ids(page.query_selector(f'[data-testid="side-{side}"]'), "side-source")
        assert shown == [s["clause_id"] for s in api[side]["sources"]]
    shoot(page, "compare-grp-terms-versions")


def test_the_page_works_from_the_keyboard(page: Any) -> None:
    """Tabs move with the arrow keys; Ctrl+Enter submits; a citation link opens its clause."""
    page.focus("#tab-search")
    page.keyboard.press("ArrowRight")
    assert page.get_attribute("#tab-determination", "aria-selected") == "true"
    assert page.is_visible("#panel-determination") and not page.is_visible("#panel-search")
    page.keyboard.press("ArrowRight")
    assert page.get_attribute("#tab-compare", "aria-selected") == "true"
    page.keyboard.press("Home")
    assert page.get_attribute("#tab-search", "aria-selected") == "true"

    page.focus("#s-contract")
    page.keyboard.type("CT-482")  # a select's type-ahead
    assert page.input_value("#s-contract") == "CT-48213"
    page.focus("#s-question")
    page.keyboard.type("dental implant: coverage, annual cap, waiting period")
    page.keyboard.press("Control+Enter")
    page.wait_for_selector("#results[data-state=done]")

    source = "GRP-TERMS.CG-2021-09.A7.3"
    page.focus(f'[data-testid="answer"] a[data-clause-link="{source}"]')
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.id") == f"clause-{source}"

    deferred = "GRP-TERMS.CG-2021-09.A12.4"  # the cap part's passage: a source that settles nothing
    page.focus(f'[data-testid="answer"] a[data-clause-link="{deferred}"]')
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.id") == f"clause-{deferred}"
    assert page.query_selector(f'[data-testid="source"][data-clause-id="{deferred}"] [data-testid="settles-nothing"]')
    assert not page.query_selector(f'[data-testid="source"][data-clause-id="{source}"] [data-testid="settles-nothing"]')

    weak = page.get_attribute('[data-testid="below-row"] a[data-clause-link]', "data-clause-link")
    page.focus(f'[data-testid="below-row"] a[data-clause-link="{weak}"]')  # no card on the page: a dialog
    page.keyboard.press("Enter")
    page.wait_for_selector("#clause-dialog[open] .clause-text")
    assert page.inner_text("#clause-dialog-title") == weak
    assert page.query_selector('#clause-dialog [data-testid="timeline"][data-document-id="GRP-TERMS"]')
    shoot(page, "clause-dialog")
    page.keyboard.press("Escape")
    assert page.get_attribute("#clause-dialog", "open") is None


def test_an_error_is_shown_with_the_field_it_names(page: Any) -> None:
    page.fill("#s-date", "2022-13-45")
    page.fill("#s-question", "dental implant")
    submit(page, "panel-search")
    error = page.inner_text('[data-testid="error"]')
    assert "HTTP 422" in error and "as_of_date" in error and "YYYY-MM-DD" in error
    assert page.get_attribute("#s-date", "aria-invalid") == "true"


# ----------------------------------------------------------------------------- what a handler needs around it


def search_contract(page: Any, contract: str, question: str, day: str = "") -> None:
    page.check('input[name="search-target"][value="contract"]')
    page.select_option("#s-contract", contract)
    page.fill("#s-date", day)
    page.fill("#s-question", question)
    submit(page, "panel-search")


def determine(page: Any, request: dict[str, Any]) -> None:
    page.click("#tab-determination")
    page.fill("#d-payer", request["payer_id"])
    page.fill("#d-plan", request["plan_id"])
    page.fill("#d-codes", ", ".join(request["procedure_codes"]))
    page.fill("#d-dx", ", ".join(request["diagnosis_codes"]))
    page.fill("#d-date", request["as_of_date"])
    page.fill("#d-narrative", request["narrative"])
    page.fill("#d-question", request["question"])
    submit(page, "panel-determination")


def test_handler_mode_hides_threshold_and_k(page: Any, served: Served) -> None:
    """A claim handler sees no retrieval knobs; the advanced toggle shows them, and the server's defaults apply."""
    assert not page.is_visible("#s-threshold") and not page.is_visible("#s-k")
    search_contract(page, "CT-48213", "dental implant: coverage, annual cap, waiting period")
    assert page.query_selector('[data-testid="verdict"]') is not None
    assert "threshold" not in page.inner_text('[data-testid="verdict"]')
    step = page.query_selector('[data-testid="next-step"]')  # the annual cap is not settled: a handler settles it
    assert step is not None
    assert [norm(li.inner_text()) for li in step.query_selector_all('[data-testid="ask-item"]')] == ["annual cap"]
    read = [a.get_attribute("data-clause-link") for a in step.query_selector_all('[data-testid="read-clauses"] a')]
    assert read[0] == "GRP-TERMS.CG-2021-09.A12.4"  # the cap clause the answer names, before the weak matches
    shoot(page, "flow-search-handler-mode")
    page.click("#s-advanced summary")
    assert page.is_visible("#s-threshold") and page.input_value("#s-threshold") == "0.62"
    assert page.input_value("#s-k") == "3"


def test_the_timeline_says_why_a_version_governs(page: Any) -> None:
    """Contract-anchored terms: the 2021 version governs a 2024 request, and the page says why."""
    search_contract(page, "CT-48213", "dental implant: coverage, annual cap, waiting period", "2024-03-01")
    why = page.inner_text('[data-testid="timeline"][data-document-id="GRP-TERMS"] [data-testid="why-governs"]')
    assert why.startswith("CG-2021-09 governs") and "anchored to its own date" in why and "2022-06-01" in why
    assert "2024-03-01 does not move it" in why
    shoot(page, "flow-timeline-contract-anchor")


def test_the_timeline_names_a_riders_dates(page: Any, served: Served) -> None:
    page.check('input[name="search-target"][value="plan"]')
    page.select_option("#s-payer", "KHP")
    page.select_option("#s-plan", "KHP-PPO-PLUS")
    page.fill("#s-date", "2024-06-01")
    page.fill("#s-question", "insulin pump: coverage criteria and replacement limit")
    submit(page, "panel-search")
    sentences = [el.inner_text() for el in page.query_selector_all('[data-testid="why-governs"]')]
    assert any("is the version in effect on 2024-06-01" in s for s in sentences), sentences
    riders = [s for s in sentences if "rider" in s]
    assert all("attached to plan KHP-PPO-PLUS" in s and " to " in s for s in riders), riders


def test_an_excluded_clause_opens_as_not_eligible_with_its_reason(page: Any, served: Served) -> None:
    search_contract(page, "CT-48213", "dental implant: coverage, annual cap, waiting period")
    row = page.query_selector('[data-testid="excluded-row"]')
    assert row is not None
    clause_id = str(row.get_attribute("data-clause-id"))
    reason = row.query_selector_all("td")[-1].inner_text()
    assert reason == "outside the contract period"
    row.query_selector("a").click()
    page.wait_for_selector("#clause-dialog[open] .clause-text")
    banner = page.inner_text('#clause-dialog [data-testid="not-eligible"]')
    assert banner.startswith("Not eligible for this request") and reason in banner
    dialog = page.inner_text("#clause-dialog")
    assert "this clause" not in dialog and "governs" not in dialog.split("Version timeline")[-1].split("does not govern")[0]
    version = clause_id.split(".")[1]
    segment = page.query_selector(f'#clause-dialog .seg[title="{version}"]')
    assert segment is not None and "other" in str(segment.get_attribute("class"))
    assert "governing" not in str(segment.get_attribute("class"))
    shoot(page, "flow-clause-not-eligible")


def test_a_refusal_gives_the_next_step_as_a_printable_request_for_information(page: Any, served: Served) -> None:
    request = determination_request(case(DETERMINATION_SUITE, "d-t4-hearing-physician-exam-not-stated"))
    determine(page, request)
    api = httpx.post(served.url + "/v1/determinations", json=request, timeout=30).json()
    assert api["gate"] == "REFUSE" and api["missing_facts"]
    step = page.query_selector('[data-testid="next-step"]')
    assert step is not None
    asked = [norm(li.inner_text()) for li in step.query_selector_all('[data-testid="ask-item"]')]
    assert [a.split(" — ")[0] for a in asked] == api["missing_facts"]
    read = [a.get_attribute("data-clause-link") for a in step.query_selector_all('[data-testid="read-clauses"] a')]
    assert "KHP-MP-0611.v1.C2" in read
    rfi = page.inner_text('[data-testid="rfi"]')
    assert api["assertion_id"] in rfi and all(m in rfi for m in api["missing_facts"])
    assert page.is_visible('[data-testid="print-rfi"]')
    shoot(page, "flow-refusal-next-step")
    page.evaluate("document.body.classList.add('printing-rfi')")
    page.emulate_media(media="print")
    assert page.is_visible('[data-testid="rfi"]')
    assert not page.is_visible('[data-testid="citations"]') and not page.is_visible("#panel-determination")
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.pdf(path=str(SHOTS / "flow-refusal-request-for-information.pdf"))


def test_a_determination_shows_its_gate_policy(page: Any) -> None:
    determine(page, determination_request(case(DETERMINATION_SUITE, "d-t5-faq-not-relied-on")))
    assert page.inner_text('[data-testid="gate-policy"]') == "default"
    assert page.query_selector('[data-testid="next-step"]') is None or page.inner_text('[data-testid="gate"]') != "DETERMINE"
    shoot(page, "flow-determination")


def test_compare_says_which_version_each_side_reads(page: Any) -> None:
    page.click("#tab-compare")
    page.fill("#c-question", "dental implant: coverage, annual cap, waiting period")
    page.fill("#c-a", "document:GRP-TERMS@CG-2021-09")
    page.fill("#c-b", "document:GRP-TERMS@CG-2024-01")
    submit(page, "panel-compare")
    why = page.inner_text('[data-testid="timeline"][data-document-id="GRP-TERMS"] [data-testid="why-governs"]')
    assert "CG-2021-09 is what A read" in why and "CG-2024-01 is what B read" in why
    shoot(page, "flow-compare")


PAGED_CORPUS = {
    "format": "clauseguard.corpus/v1",
    "payers": [{"id": "PX", "name": "Paged Health"}],
    "plans": [{"id": "PX-GOLD", "payer": "PX", "name": "Paged Gold"}],
    "codes": [{"code": "E0784", "system": "HCPCS", "descriptor": "insulin pump"}],
    "documents": [{
        "id": "PX-MP-1", "payer": "PX", "kind": "medical_policy", "title": "Insulin pumps", "codes": ["E0784"],
        "versions": [{"version": "v1", "effective_start": "2024-01-01", "clauses": [
            {"id": "PX-MP-1.v1.C1", "section": "Coverage", "kind": "criteria", "article": "3.1", "page": 4,
             "page_label": "iv", "text": "An insulin pump is covered for members with type 1 diabetes on multiple "
                                        "daily injections for at least six months."},
        ]}],
    }],
}


def test_printed_page_labels_are_shown(browser: Any, tmp_path: Path) -> None:
    import yaml

    from tests.interfaces.conftest import free_port, running_cli

    corpus = tmp_path / "paged.yaml"
    corpus.write_text(yaml.safe_dump(PAGED_CORPUS, sort_keys=False))
    port = free_port()
    with running_cli(["--corpus", str(corpus), "serve", "--port", str(port)], home=tmp_path,
                     ready_url=f"http://127.0.0.1:{port}/readyz") as server:
        context = browser.new_context(viewport=LAPTOP)
        opened = context.new_page()
        opened.goto(server.url + "/")
        opened.wait_for_selector("#s-payer option", state="attached")
        opened.check('input[name="search-target"][value="plan"]')
        opened.select_option("#s-payer", "PX")
        opened.select_option("#s-plan", "PX-GOLD")
        opened.fill("#s-date", "2024-06-01")
        opened.fill("#s-question", "insulin pump coverage for type 1 diabetes")
        submit(opened, "panel-search")
        opened.evaluate("showClause('PX-MP-1.v1.C1')")
        opened.wait_for_selector('[id="clause-PX-MP-1.v1.C1"] .meta:has-text("page iv"), #clause-dialog[open] .meta')
        shown = opened.inner_text("body")
        assert "page iv (PDF page 4)" in shown
        shoot(opened, "flow-page-labels")
        context.close()


def test_the_api_docs_load_with_the_network_cut(browser: Any, served: Served) -> None:
    """/docs (Swagger UI) and /redoc (ReDoc) load from the server alone and list the operations."""
    context = browser.new_context(viewport=LAPTOP)
    outside: list[str] = []

    def only_the_server(route: Any) -> None:
        url = route.request.url
        if url.startswith(served.url):
            route.continue_()
        else:  # the network is cut: anything else is refused and remembered
            outside.append(url)
            route.abort()

    context.route("**/*", only_the_server)
    docs = context.new_page()
    docs.goto(served.url + "/docs")
    docs.wait_for_selector(".opblock-summary-path", timeout=60_000)
    listed = {el.inner_text().strip() for el in docs.query_selector_all(".opblock-summary-path")}
    assert {"/v1/search", "/v1/determinations", "/v1/compare", "/v1/clauses/{clause_id}", "/healthz"} <= listed
    assert docs.query_selector(".auth-wrapper .authorize") is not None  # the security schemes are offered
    shoot(docs, "docs-swagger-offline")

    docs.goto(served.url + "/redoc")
    docs.locator("h2", has_text="Search a contract's or a plan's terms").first.wait_for(timeout=60_000)
    operations = docs.locator("h2", has_text="Determine coverage for a case")
    assert operations.count() >= 1
    images = docs.eval_on_selector_all("img", "els => els.map((e) => e.src)")
    assert all(src.startswith((served.url, "data:")) for src in images), images
    shoot(docs, "docs-redoc-offline")
    context.close()
    assert outside == []
