"""The MCP server: every tool called through the SDK's own client, in process and over stdio, each
result compared with the engine's output for the same request; no tool writes."""

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

TOOLS = {"search_policies", "get_clause_by_id", "list_policy_versions", "lookup_code", "get_plan_riders",
         "search_policy_terms", "determine_coverage"}
DENTAL: dict[str, Any] = {"contract_id": "CT-48213", "question": "dental implant: coverage, annual cap, waiting period",
          "threshold": 0.62, "k": 3}
PUMP_QUERY = {"query": "insulin pump: coverage criteria and replacement limit", "payer_id": "KHP",
              "plan_id": "KHP-PPO-PLUS", "as_of_date": "2024-06-01"}


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
        assert tool.annotations is not None and tool.annotations.read_only_hint is True, tool.name
        assert tool.annotations.destructive_hint is False, tool.name

    found = await structured(client, "search_policies", PUMP_QUERY)
    expected = engine.search({"question": PUMP_QUERY["query"], "payer_id": "KHP", "plan_id": "KHP-PPO-PLUS",
                              "effective_date": "2024-06-01", "k": 3}).as_json()
    assert without_timings(found) == without_timings(expected)

    terms = await structured(client, "search_policy_terms", {**DENTAL})
    assert without_timings(terms) == without_timings(engine.search(DENTAL).as_json())

    clause_id = "KHP-MP-0412.v1.C2"
    assert await structured(client, "get_clause_by_id", {"clause_id": clause_id}) == engine.clause(clause_id)
    assert await structured(client, "list_policy_versions", {"document_id": "GRP-TERMS"}) == engine.versions("GRP-TERMS")
    assert await structured(client, "lookup_code", {"code": "E0784"}) == engine.code("E0784")
    riders = await structured(client, "get_plan_riders", {"plan_id": "KHP-PPO-PLUS", "as_of_date": "2024-06-01"})
    assert riders == engine.plan_riders("KHP-PPO-PLUS", date(2024, 6, 1))
    assert await structured(client, "get_plan_riders", {"plan_id": "KHP-PPO-PLUS"}) == engine.plan_riders("KHP-PPO-PLUS")

    for case in suite_cases(DETERMINATION_SUITE)[::9]:  # a spread of the suite, HALT cases included
        request = determination_request(case)
        answer = await structured(client, "determine_coverage", request)
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


def test_search_policies_with_codes_ranks_only_their_documents(server: Any, demo_engine: Engine) -> None:
    """Eligibility before top-k: with codes, every passage offered comes from a document governing them."""
    governing = {d["document_id"] for d in demo_engine.code("E0784")["documents"]}

    async def check(client: Client) -> None:
        query = {**PUMP_QUERY, "query": "is the service covered and how often is it replaced"}
        unrestricted = await structured(client, "search_policies", query)
        narrowed = await structured(client, "search_policies", {**query, "codes": ["E0784"]})
        assert narrowed["codes"] == ["E0784"] and set(narrowed["governing_documents"]) == governing
        offered = narrowed["sources"] + narrowed["below_threshold"]
        assert offered and {p["document_id"] for p in offered} <= governing
        assert all(e["reason"] for e in narrowed["excluded"])
        assert {p["document_id"] for p in unrestricted["sources"] + unrestricted["below_threshold"]} - governing
        for key in ("payer_id", "plan_id", "effective_date", "applicable_versions"):
            assert narrowed[key] == unrestricted[key]

    run(server, check)


def test_errors_come_back_as_tool_errors_naming_the_problem(server: Any) -> None:
    async def check(client: Client) -> None:
        unknown = await client.call_tool("get_clause_by_id", {"clause_id": "KHP-MP-0412.v9.C1"})
        assert unknown.is_error and "unknown clause 'KHP-MP-0412.v9.C1'" in unknown.content[0].text  # type: ignore[union-attr]
        bad_date = await client.call_tool("search_policy_terms", {**DENTAL, "effective_date": "2022-13-45"})
        assert bad_date.is_error and "effective_date: '2022-13-45' is not a date" in bad_date.content[0].text  # type: ignore[union-attr]
        bad_riders = await client.call_tool("get_plan_riders", {"plan_id": "KHP-PPO-PLUS", "as_of_date": "soon"})
        assert bad_riders.is_error and "as_of_date" in bad_riders.content[0].text  # type: ignore[union-attr]
        halt = await structured(client, "determine_coverage", {
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
            clause = await structured(client, "get_clause_by_id", {"clause_id": "GRP-TERMS.CG-2021-09.A7.3"})
            assert clause == demo_engine.clause("GRP-TERMS.CG-2021-09.A7.3")

        run(f"{served.url}/mcp", check)


@pytest.mark.parametrize("command", ["mcp", "serve"])
def test_a_bad_corpus_is_exit_2_before_anything_serves(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    code = main(["--corpus", str(tmp_path / "missing.yaml"), command])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("error: ") and err.count("\n") == 1
