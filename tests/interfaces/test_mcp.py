"""The MCP server: every tool called through the SDK's own client, in process and over stdio, each
result compared with the engine's output for the same request; only the tools that append an audit
row (search, determine) lack readOnlyHint, and errors say what to change in the call."""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable
from datetime import date
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters

from clauseguard.engine import Engine
from clauseguard.interfaces.cli import main
from clauseguard.interfaces.mcp_server import create_server
from tests.interfaces.conftest import (
    DETERMINATION_SUITE,
    determination_request,
    free_port,
    running_cli,
    suite_cases,
    without_timings,
)

TOOLS = {"search_policy_terms", "determine", "compare", "list_catalog", "get_clause", "get_versions", "get_code",
         "get_plan_riders"}
WRITES_AUDIT = {"search_policy_terms", "determine"}
API_NAMES = {"question", "contract_id", "payer_id", "plan_id", "as_of_date", "effective_date", "procedure_codes",
             "diagnosis_codes", "narrative", "threshold", "k", "a", "b", "clause_id", "document_id", "code"}
DENTAL: dict[str, Any] = {"contract_id": "CT-48213", "question": "dental implant: coverage, annual cap, waiting period",
          "threshold": 0.62, "k": 3}
PUMP_QUERY = {"question": "insulin pump: coverage criteria and replacement limit", "payer_id": "KHP",
              "plan_id": "KHP-PPO-PLUS", "as_of_date": "2024-06-01"}
COMPARE = {"question": "hospital cash: waiting period, nightly amount, exclusions",
           "a": "rider:GRP-RID-HOSPCASH", "b": "rider:IND-RID-HOSPCASH"}


async def structured(client: Client, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, result.content
    assert isinstance(result.structured_content, dict)
    return result.structured_content


async def every_tool_agrees_with_the_engine(client: Client, engine: Engine) -> None:
    """List the tools, call each one, and hold its result against the engine's own answer."""
    listed = (await client.list_tools()).tools
    assert {t.name for t in listed} == TOOLS
    for tool in listed:
        assert tool.description and len(tool.description) > 80, tool.name
        assert tool.annotations is not None and tool.annotations.destructive_hint is False, tool.name
        assert tool.annotations.read_only_hint is (tool.name not in WRITES_AUDIT), tool.name
        assert set(tool.input_schema.get("properties", {})) <= API_NAMES, tool.name  # the API's argument names
        assert tool.output_schema and tool.output_schema.get("properties"), tool.name  # the answer model's schema

    found = await structured(client, "search_policy_terms", PUMP_QUERY)
    expected = engine.search({"question": PUMP_QUERY["question"], "payer_id": "KHP", "plan_id": "KHP-PPO-PLUS",
                              "as_of_date": "2024-06-01", "k": 3}).as_json()
    assert without_timings(found) == without_timings(expected)

    terms = await structured(client, "search_policy_terms", {**DENTAL})  # the broker's published call shape
    assert without_timings(terms) == without_timings(engine.search(DENTAL).as_json())
    dated = await structured(client, "search_policy_terms", {**DENTAL, "effective_date": "2022-06-01"})
    assert dated["effective_date"] == "2022-06-01"

    compared = await structured(client, "compare", COMPARE)
    assert without_timings(compared) == without_timings(engine.compare(COMPARE).as_json())
    catalog = await structured(client, "list_catalog", {})
    assert catalog == engine.catalog()
    assert {"payers", "plans", "riders", "contracts", "documents", "codes"} <= set(catalog)
    assert all(d["versions"] for d in catalog["documents"]) and catalog["riders"]

    clause_id = "KHP-MP-0412.v1.C2"
    assert await structured(client, "get_clause", {"clause_id": clause_id}) == engine.clause(clause_id)
    assert await structured(client, "get_versions", {"document_id": "GRP-TERMS"}) == engine.versions("GRP-TERMS")
    assert await structured(client, "get_code", {"code": "E0784"}) == engine.code("E0784")
    riders = await structured(client, "get_plan_riders", {"plan_id": "KHP-PPO-PLUS", "as_of_date": "2024-06-01"})
    assert riders == engine.plan_riders("KHP-PPO-PLUS", date(2024, 6, 1))
    assert await structured(client, "get_plan_riders", {"plan_id": "KHP-PPO-PLUS"}) == engine.plan_riders("KHP-PPO-PLUS")

    for case in suite_cases(DETERMINATION_SUITE)[::9]:  # a spread of the suite, HALT cases included
        request = determination_request(case)
        answer = await structured(client, "determine", request)
        assert without_timings(answer) == without_timings(engine.determine(request).as_json()), case["case_id"]


def run(server_or_params: Any, check: Callable[[Client], Awaitable[None]]) -> None:
    async def main() -> None:
        async with Client(server_or_params, read_timeout_seconds=60) as client:
            await check(client)

    anyio.run(main)


@pytest.fixture(scope="module")
def server(demo_engine: Engine) -> Any:
    opened = demo_engine.opened
    return create_server(lambda: Engine(opened))  # its own engine, on its own thread


def test_in_process_every_tool_agrees_with_the_engine(server: Any, demo_engine: Engine) -> None:
    run(server, lambda client: every_tool_agrees_with_the_engine(client, demo_engine))


def test_a_rider_is_omitted_before_its_start(server: Any) -> None:
    async def check(client: Client) -> None:
        before = await structured(client, "get_plan_riders", {"plan_id": "KHP-PPO-PLUS", "as_of_date": "2024-03-31"})
        on_start = await structured(client, "get_plan_riders", {"plan_id": "KHP-PPO-PLUS", "as_of_date": "2024-04-01"})
        assert "KHP-RID-DIABTECH" not in [r["rider_id"] for r in before["riders"]]
        assert "KHP-RID-DIABTECH" in [r["rider_id"] for r in on_start["riders"]]

    run(server, check)


def test_search_with_procedure_codes_ranks_only_their_documents(server: Any, demo_engine: Engine) -> None:
    """Eligibility before top-k: with codes, every passage offered comes from a document governing them."""
    governing = {d["document_id"] for d in demo_engine.code("E0784")["documents"]}

    async def check(client: Client) -> None:
        query = {**PUMP_QUERY, "question": "is the service covered and how often is it replaced"}
        unrestricted = await structured(client, "search_policy_terms", query)
        narrowed = await structured(client, "search_policy_terms", {**query, "procedure_codes": ["E0784"]})
        assert narrowed["codes"] == ["E0784"] and set(narrowed["governing_documents"]) == governing
        offered = narrowed["sources"] + narrowed["below_threshold"]
        assert offered and {p["document_id"] for p in offered} <= governing
        assert all(e["reason"] for e in narrowed["excluded"])
        assert {p["document_id"] for p in unrestricted["sources"] + unrestricted["below_threshold"]} - governing
        for key in ("payer_id", "plan_id", "effective_date", "applicable_versions"):
            assert narrowed[key] == unrestricted[key]

    run(server, check)


def test_errors_say_what_to_change_in_the_call(server: Any) -> None:
    async def error_text(client: Client, tool: str, arguments: dict[str, Any]) -> str:
        result = await client.call_tool(tool, arguments)
        assert result.is_error, (tool, arguments)
        text = result.content[0].text  # type: ignore[union-attr]
        assert "clauseguard " not in text and "--" not in text, text  # never "run a CLI command"
        return str(text)

    async def check(client: Client) -> None:
        unknown = await error_text(client, "get_clause", {"clause_id": "KHP-MP-0412.v9.C1"})
        assert "unknown clause 'KHP-MP-0412.v9.C1'" in unknown and "clause id exactly as an answer cites it" in unknown
        contract = await error_text(client, "search_policy_terms", {**DENTAL, "contract_id": "CT-4821"})
        assert "unknown contract 'CT-4821'" in contract and "list_catalog" in contract
        document = await error_text(client, "get_versions", {"document_id": "NOPE"})
        assert "unknown document 'NOPE'" in document and "list_catalog" in document
        bad_date = await error_text(client, "search_policy_terms", {**DENTAL, "effective_date": "2022-13-45"})
        assert "effective_date: '2022-13-45' is not a date" in bad_date and "correct `effective_date`" in bad_date
        as_of = await error_text(client, "search_policy_terms", {**PUMP_QUERY, "as_of_date": "2024-13-45"})
        assert as_of.startswith("Error executing tool search_policy_terms: as_of_date: ")  # the argument sent
        assert "correct `as_of_date`" in as_of
        both = await error_text(client, "search_policy_terms", {**DENTAL, "effective_date": "2022-06-01",
                                                                 "as_of_date": "2022-06-01"})
        assert "effective_date" in both and "not both" in both
        bad_riders = await error_text(client, "get_plan_riders", {"plan_id": "KHP-PPO-PLUS", "as_of_date": "soon"})
        assert "correct `as_of_date`" in bad_riders
        plan_target = await error_text(client, "compare", {"question": "implant", "a": "plan:KHP-PPO-PLUS",
                                                           "b": "plan:KHP-HMO-CORE"})
        assert "as_of_date" in plan_target
        halt = await structured(client, "determine", {
            "payer_id": "", "plan_id": "KHP-PPO-PLUS", "procedure_codes": ["97140"], "as_of_date": "2024-04-01",
            "question": "Is this covered?"})
        assert halt["gate"] == "HALT"  # a bad value is an answer, not an error

    run(server, check)


@pytest.mark.integration
def test_over_stdio_every_tool_agrees_with_the_engine(tmp_path: Path, demo_engine: Engine) -> None:
    params = StdioServerParameters(command=sys.executable, args=["-m", "clauseguard", "--corpus", "demo", "mcp"],
                                   env={"CLAUSEGUARD_HOME": str(tmp_path)})
    run(params, lambda client: every_tool_agrees_with_the_engine(client, demo_engine))


@pytest.mark.integration
def test_over_streamable_http(tmp_path: Path, demo_engine: Engine) -> None:
    port = free_port()
    with running_cli(["--corpus", "demo", "mcp", "--transport", "http", "--port", str(port)], home=tmp_path,
                     ready_url=f"http://127.0.0.1:{port}/mcp", any_answer=True) as served:
        async def check(client: Client) -> None:
            assert {t.name for t in (await client.list_tools()).tools} == TOOLS
            clause = await structured(client, "get_clause", {"clause_id": "GRP-TERMS.CG-2021-09.A7.3"})
            assert clause == demo_engine.clause("GRP-TERMS.CG-2021-09.A7.3")

        run(f"{served.url}/mcp", check)


@pytest.mark.parametrize("command", ["mcp", "serve"])
def test_a_bad_corpus_is_exit_2_before_anything_serves(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    code = main(["--corpus", str(tmp_path / "missing.yaml"), command])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("error: ") and err.count("\n") == 1


def test_only_search_and_determine_append_to_the_audit_log(demo_engine: Engine, isolated_home: Path) -> None:
    """readOnlyHint is true exactly on the tools that leave the audit log as it was."""
    from clauseguard.audit import AuditLog

    opened = demo_engine.opened
    server = create_server(lambda: Engine(opened))
    calls = {
        "list_catalog": {}, "get_clause": {"clause_id": "KHP-MP-0412.v1.C2"}, "get_versions": {"document_id": "GRP-TERMS"},
        "get_code": {"code": "E0784"}, "get_plan_riders": {"plan_id": "KHP-PPO-PLUS"}, "compare": COMPARE,
        "search_policy_terms": DENTAL,
        "determine": determination_request(suite_cases(DETERMINATION_SUITE)[0]),
    }
    wrote: dict[str, bool] = {}

    def rows() -> int:
        path = isolated_home / "audit.sqlite"
        if not path.exists():
            return 0
        log = AuditLog(path)
        try:
            return log.count()
        finally:
            log.close()

    async def check(client: Client) -> None:
        hints = {t.name: t.annotations.read_only_hint for t in (await client.list_tools()).tools if t.annotations}
        for tool, arguments in calls.items():
            before = rows()
            await structured(client, tool, arguments)
            wrote[tool] = rows() > before
        assert {t: not w for t, w in wrote.items()} == {t: hints[t] for t in calls}

    run(server, check)
    assert wrote["search_policy_terms"] and wrote["determine"]
