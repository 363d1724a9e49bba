"""The HTTP API, served for real (`clauseguard serve` on a loopback port) and spoken to with httpx.

It must agree with the CLI and the engine on every answer (timings aside), keep the design's error
statuses (422 naming the field, 404 with a sentence, HALT as a normal 200), and log what it answers.
"""

from __future__ import annotations

import json
import re
from datetime import date
from pathlib import Path
from typing import Any

import httpx
import pytest

from clauseguard.engine import Engine
from clauseguard.errors import NotFoundError
from clauseguard.interfaces.cli import main
from tests.interfaces.conftest import (
    DETERMINATION_SUITE,
    SEARCH_SUITE,
    Served,
    determination_request,
    free_port,
    running_cli,
    search_request,
    suite_cases,
    without_timings,
)

pytestmark = pytest.mark.integration

DENTAL: dict[str, Any] = {"contract_id": "CT-48213", "question": "dental implant: coverage, annual cap, waiting period",
          "threshold": 0.62, "k": 3}
EMPTY_PAYER = {"payer_id": "", "plan_id": "KHP-PPO-PLUS", "procedure_codes": ["97140"], "diagnosis_codes": [],
               "as_of_date": "2024-04-01", "narrative": "Routine physical therapy request.",
               "question": "Is this covered?"}


def post(served: Served, path: str, body: Any) -> httpx.Response:
    return httpx.post(served.url + path, json=body, timeout=30)


def get(served: Served, path: str, **params: str) -> httpx.Response:
    return httpx.get(served.url + path, params=params, timeout=30)


# ----------------------------------------------------------------------------- the "must show" three


def test_healthz_answers_and_readyz_names_the_corpus(served: Served, demo_engine: Engine) -> None:
    health = get(served, "/healthz").json()
    assert health["status"] == "ok"
    ready = get(served, "/readyz")
    assert ready.status_code == 200 and ready.json()["status"] == "ready"
    assert ready.json()["corpus_fingerprint"] == demo_engine.corpus_fingerprint
    assert all(ready.json()["components"].values())


def test_search_returns_what_the_cli_prints(served: Served, capsys: pytest.CaptureFixture[str]) -> None:
    response = post(served, "/v1/search", DENTAL)
    assert response.status_code == 200
    code = main(["--corpus", "demo", "search", "--contract", "CT-48213", "--question", DENTAL["question"],
                 "--threshold", "0.62", "--k", "3", "--json"])
    assert code == 0
    cli = json.loads(capsys.readouterr().out)
    assert without_timings(response.json()) == without_timings(cli)
    assert response.json()["applicable_version"] == "CG-2021-09"


def the_error(response: httpx.Response) -> dict[str, Any]:
    """The one entry of a 422 in FastAPI's validation shape."""
    assert response.status_code == 422, response.text
    detail = response.json()["detail"]
    assert isinstance(detail, list) and len(detail) == 1, detail
    entry: dict[str, Any] = detail[0]
    assert {"type", "loc", "msg"} <= set(entry)
    return entry


@pytest.mark.parametrize("name", ["effective_date", "as_of_date"])
def test_a_malformed_search_date_is_422_naming_the_field_sent(served: Served, name: str) -> None:
    entry = the_error(post(served, "/v1/search", {**DENTAL, name: "2022-13-45"}))
    assert entry["loc"] == ["body", name]
    assert entry["msg"].startswith(f"{name}: ") and "YYYY-MM-DD" in entry["msg"]


def test_an_empty_payer_is_a_200_halt_naming_payer_id(served: Served) -> None:
    response = post(served, "/v1/determinations", EMPTY_PAYER)
    assert response.status_code == 200
    body = response.json()
    assert body["gate"] == "HALT" and body["outcome"] == "INSUFFICIENT_EVIDENCE"
    assert any("payer_id" in r["text"] for r in body["reasons"])


# ----------------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    ("body", "field"),
    [
        (b'{"contract_id": ', "request"),
        (b"", "request"),
        (b"[1, 2]", "request"),
        (b'{"contract_id": "CT-48213", "question": "implant", "colour": "red"}', "colour"),
        (b'{"contract_id": "CT-48213", "question": "implant", "k": "3"}', "k"),
        (b'{"contract_id": "CT-48213"}', "question"),
    ],
)
def test_a_body_that_is_not_well_formed_is_422_naming_the_field(served: Served, body: bytes, field: str) -> None:
    response = httpx.post(served.url + "/v1/search", content=body, headers={"content-type": "application/json"})
    entry = the_error(response)
    assert entry["loc"] == (["body"] if field == "request" else ["body", field])
    assert entry["msg"].startswith(f"{field}: ")


def test_a_determination_field_of_the_wrong_type_is_422(served: Served) -> None:
    entry = the_error(post(served, "/v1/determinations", {**EMPTY_PAYER, "procedure_codes": "97140"}))
    assert entry["loc"] == ["body", "procedure_codes"]


@pytest.mark.parametrize(
    ("method", "path", "body", "named"),
    [
        ("POST", "/v1/search", {**DENTAL, "contract_id": "CT-4821"}, "contract 'CT-4821'"),
        ("GET", "/v1/clauses/GRP-TERMS.CG-2021-09.A99", None, "clause 'GRP-TERMS.CG-2021-09.A99'"),
        ("GET", "/v1/documents/NO-SUCH-DOC/versions", None, "document 'NO-SUCH-DOC'"),
        ("GET", "/v1/codes/Z9999", None, "code 'Z9999'"),
        ("GET", "/v1/plans/NO-PLAN/riders", None, "plan 'NO-PLAN'"),
        ("GET", "/v1/audit/as-000000", None, "assertion 'as-000000'"),
        ("POST", "/v1/compare", {"question": "implant", "a": "document:NOPE", "b": "document:GRP-TERMS"},
         "document 'NOPE'"),
    ],
)
def test_an_unknown_id_is_404_with_a_sentence_naming_it(
    served: Served, method: str, path: str, body: Any, named: str
) -> None:
    response = httpx.request(method, served.url + path, json=body, timeout=30)
    assert response.status_code == 404
    assert f"unknown {named}" in response.json()["detail"]


def test_a_body_over_the_limit_is_413(served: Served) -> None:
    big = json.dumps({**DENTAL, "question": "implant " * 40_000}).encode()  # ~320 KiB
    assert post_raw(served, big).status_code == 413

    def chunks() -> Any:  # no content-length: the limit still holds
        for start in range(0, len(big), 16_384):
            yield big[start:start + 16_384]

    assert httpx.post(served.url + "/v1/search", content=chunks(), timeout=30).status_code == 413


def post_raw(served: Served, body: bytes) -> httpx.Response:
    return httpx.post(served.url + "/v1/search", content=body, headers={"content-type": "application/json"},
                      timeout=30)


# ----------------------------------------------------------------------------- agreement with the engine


def test_every_suite_request_gets_the_engines_answer(served: Served, demo_engine: Engine) -> None:
    """Each bundled search and determination case: the API's JSON is the engine's, timings aside."""
    for case in suite_cases(SEARCH_SUITE):
        request = search_request(case)
        response = post(served, "/v1/search", request)
        try:
            expected = demo_engine.search(request).as_json()
        except NotFoundError as exc:
            assert response.status_code == 404, case["case_id"]
            assert response.json()["detail"] == str(exc)
            continue
        assert response.status_code == 200, case["case_id"]
        assert without_timings(response.json()) == without_timings(expected), case["case_id"]
    for case in suite_cases(DETERMINATION_SUITE):
        request = determination_request(case)
        response = post(served, "/v1/determinations", request)
        assert response.status_code == 200, case["case_id"]
        assert without_timings(response.json()) == without_timings(demo_engine.determine(request).as_json()), case["case_id"]


def test_compare_and_evaluate_retrieval_agree_with_the_engine(served: Served, demo_engine: Engine) -> None:
    compare = {"question": DENTAL["question"], "a": "document:GRP-TERMS@CG-2021-09",
               "b": "document:GRP-TERMS@CG-2024-01"}
    response = post(served, "/v1/compare", compare)
    assert response.status_code == 200
    assert without_timings(response.json()) == without_timings(demo_engine.compare(compare).as_json())
    assert response.json()["differences"]

    retrieval = {"question": DENTAL["question"], "contract_id": "CT-48213", "k": 3,
                 "gold_clause_ids": ["GRP-TERMS.CG-2021-09.A7.3", "GRP-TERMS.CG-2021-09.A4.2"]}
    response = post(served, "/v1/evaluate-retrieval", retrieval)
    assert response.status_code == 200
    assert response.json() == demo_engine.evaluate_retrieval(retrieval).as_json()


def test_lookups_agree_with_the_engine(served: Served, demo_engine: Engine) -> None:
    assert get(served, "/v1/clauses/GRP-TERMS.CG-2021-09.A7.3").json() == demo_engine.clause("GRP-TERMS.CG-2021-09.A7.3")
    assert get(served, "/v1/documents/GRP-TERMS/versions").json() == demo_engine.versions("GRP-TERMS")
    assert get(served, "/v1/codes/E0784").json() == demo_engine.code("E0784")
    assert get(served, "/v1/plans/KHP-PPO-PLUS/riders").json() == demo_engine.plan_riders("KHP-PPO-PLUS")
    on_day = get(served, "/v1/plans/KHP-PPO-PLUS/riders", as_of_date="2024-06-01").json()
    assert on_day == demo_engine.plan_riders("KHP-PPO-PLUS", date(2024, 6, 1))


def test_a_rider_is_omitted_before_its_start(served: Served) -> None:
    def riders(day: str) -> list[str]:
        return [r["rider_id"] for r in get(served, "/v1/plans/KHP-PPO-PLUS/riders", as_of_date=day).json()["riders"]]

    assert "KHP-RID-DIABTECH" not in riders("2024-03-31")  # its first version starts 2024-04-01
    assert "KHP-RID-DIABTECH" in riders("2024-04-01")


def test_a_malformed_riders_date_is_422(served: Served) -> None:
    entry = the_error(get(served, "/v1/plans/KHP-PPO-PLUS/riders", as_of_date="01/04/2024"))
    assert entry["loc"] == ["query", "as_of_date"]


def test_searches_and_determinations_are_in_the_audit_log(served: Served) -> None:
    determination = post(served, "/v1/determinations", EMPTY_PAYER).json()
    record = get(served, f"/v1/audit/{determination['assertion_id']}").json()
    assert record["kind"] == "determination" and record["response"]["gate"] == "HALT"
    assert record["request"]["plan_id"] == "KHP-PPO-PLUS"

    search = post(served, "/v1/search", DENTAL).json()
    record = get(served, f"/v1/audit/{search['trace_id']}").json()
    assert record["kind"] == "search" and record["response"]["sources"] == search["sources"]
    assert (served.home / "audit.sqlite").exists()


# ----------------------------------------------------------------------------- the service around it


def test_the_openapi_document_lists_every_route_and_request_shape(served: Served) -> None:
    spec = get(served, "/openapi.json").json()
    assert {
        "/v1/search", "/v1/determinations", "/v1/compare", "/v1/evaluate-retrieval", "/v1/clauses/{clause_id}",
        "/v1/documents/{document_id}/versions", "/v1/codes/{code}", "/v1/plans/{plan_id}/riders",
        "/v1/audit/{assertion_id}", "/healthz", "/readyz",
    } <= set(spec["paths"])
    schema = spec["paths"]["/v1/search"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    assert {"question", "contract_id", "effective_date", "threshold", "k"} <= set(schema["properties"])


def test_the_page_and_its_assets_are_served(served: Served) -> None:
    page = get(served, "/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "/static/app.js" in page.text and "/static/app.css" in page.text
    for text in (page.text, get(served, "/static/app.js").text, get(served, "/static/app.css").text):
        assert not re.search(r"""(src|href)=["']?(https?:)?//|url\(\s*["']?(https?:)?//|import\s""", text)


def test_api_keys_guard_every_v1_route(tmp_path: Path) -> None:
    port = free_port()
    with running_cli(["--corpus", "demo", "serve", "--port", str(port)], home=tmp_path,
                     ready_url=f"http://127.0.0.1:{port}/readyz",
                     extra_env={"CLAUSEGUARD_API_KEYS": "alpha-key, beta-key"}) as server:
        url = f"{server.url}/v1/clauses/GRP-TERMS.CG-2021-09.A7.3"
        missing = httpx.get(url)
        assert missing.status_code == 401 and missing.headers["www-authenticate"] == "Bearer"
        assert "Authorization: Bearer" in missing.json()["detail"]
        assert httpx.get(url, headers={"Authorization": "Bearer gamma-key"}).status_code == 401
        assert httpx.get(url, headers={"Authorization": "Bearer beta-key"}).status_code == 200
        assert httpx.get(url, headers={"X-API-Key": "alpha-key"}).status_code == 200  # the APIKeyHeader scheme
        assert httpx.get(url, headers={"X-API-Key": "alpha"}).status_code == 401
        searched = httpx.post(f"{server.url}/v1/search", json=DENTAL, headers={"Authorization": "Bearer alpha-key"})
        assert searched.status_code == 200
        for route in ("/v1/model/status", "/v1/corpus", "/v1/report", "/v1/audit"):
            assert httpx.get(server.url + route).status_code == 401, route
        # a key that is not ASCII is a 401 like any wrong key, never a server error
        odd = httpx.get(url, headers={"Authorization": "Bearer cl\u00e9-\u00fc".encode("latin-1")})
        assert odd.status_code == 401
        assert httpx.get(url, headers={"X-API-Key": "\u00e9t\u00e9".encode()}).status_code == 401
        assert httpx.get(f"{server.url}/healthz").status_code == 200  # health stays open
        assert httpx.get(f"{server.url}/readyz").status_code == 200


def test_model_status_reports_no_model_by_default(served: Served) -> None:
    status = get(served, "/v1/model/status").json()
    assert status["configured"] is False and "deterministic engine" in status["detail"]


def test_several_workers_answer_like_one(tmp_path: Path, served: Served) -> None:
    """`serve --workers 2`: two engine processes over one index cache give the single server's answers."""
    port = free_port()
    with running_cli(["--corpus", "demo", "serve", "--port", str(port), "--workers", "2"], home=tmp_path,
                     ready_url=f"http://127.0.0.1:{port}/readyz") as server:
        for _ in range(4):  # connections land on either worker
            many = httpx.post(f"{server.url}/v1/search", json=DENTAL, timeout=60, headers={"Connection": "close"})
            assert many.status_code == 200
            assert without_timings(many.json()) == without_timings(post(served, "/v1/search", DENTAL).json())
