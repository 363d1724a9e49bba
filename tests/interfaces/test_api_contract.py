"""The API's published contract: a valid OpenAPI document, an example and a response schema on every
endpoint (each example answered with its documented schema), one request vocabulary with documented
aliases and deprecations, hostile input answered 4xx naming the field, and no file path in any error."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from openapi_schema_validator import OAS31Validator
from openapi_spec_validator import validate

from clauseguard.engine import Engine
from clauseguard.interfaces.api import create_app
from clauseguard.interfaces.http import examples
from tests.interfaces.conftest import Served, without_timings

DENTAL: dict[str, Any] = {"contract_id": "CT-48213", "question": examples.DENTAL, "threshold": 0.62, "k": 3}
OPERATIONS = ("get", "post")


@pytest.fixture(scope="module")
def spec(served: Served) -> dict[str, Any]:
    document: dict[str, Any] = httpx.get(served.url + "/openapi.json", timeout=30).json()
    return document


def operations(spec: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, item in sorted(spec["paths"].items()):
        for method in OPERATIONS:
            if method in item:
                yield path, method, item[method]


def check_against(spec: dict[str, Any], operation: dict[str, Any], response: httpx.Response) -> None:
    """The response's status is documented and its body matches that status's schema."""
    documented = operation["responses"]
    status = str(response.status_code)
    assert status in documented, (operation["operationId"], status, response.text[:300])
    schema = documented[status]["content"]["application/json"]["schema"]
    OAS31Validator({**schema, "components": spec["components"]}).validate(response.json())


def test_the_openapi_document_is_valid(spec: dict[str, Any]) -> None:
    validate(spec)
    assert spec["openapi"].startswith("3.")


def test_every_endpoint_has_a_response_schema_and_examples(spec: dict[str, Any]) -> None:
    for path, method, op in operations(spec):
        ok = next(code for code in op["responses"] if code.startswith("2"))
        schema = op["responses"][ok]["content"]["application/json"]["schema"]
        assert schema.get("$ref") or schema.get("type") or schema.get("items"), (path, method)
        assert op.get("description") or op.get("summary"), (path, method)
        if method == "post":
            body = op["requestBody"]["content"]["application/json"]
            assert body["examples"], path
            assert "422" in op["responses"], path
        for parameter in op.get("parameters", []):
            if parameter["in"] == "path":
                assert parameter["schema"].get("examples") or parameter.get("examples"), (path, parameter["name"])


def test_the_security_schemes_and_the_halt_rule_are_documented(spec: dict[str, Any]) -> None:
    schemes = spec["components"]["securitySchemes"]
    assert schemes["APIKeyHeader"] == {**schemes["APIKeyHeader"], "type": "apiKey", "in": "header", "name": "X-API-Key"}
    assert schemes["Bearer"]["scheme"] == "bearer"
    search = spec["paths"]["/v1/search"]["post"]
    assert {"APIKeyHeader": []} in search["security"]
    assert "security" not in spec["paths"]["/healthz"]["get"]
    for text in (spec["info"]["description"], spec["paths"]["/v1/determinations"]["post"]["description"]):
        assert "422" in text and "HALT" in text and "200" in text
    body = search["requestBody"]["content"]["application/json"]["schema"]["properties"]
    assert "alias" in body["effective_date"]["description"] and not body["effective_date"].get("deprecated")
    assert body["codes"]["deprecated"] is True and {"as_of_date", "procedure_codes"} <= set(body)


def test_every_example_is_answered_with_its_documented_schema(served: Served, spec: dict[str, Any]) -> None:
    assertion_id = trace_id = ""
    posts = sorted((p, m, o) for p, m, o in operations(spec) if m == "post")
    posts.sort(key=lambda item: item[0] == "/v1/decisions")  # a decision needs the determination's assertion
    for path, method, op in posts:
        if method == "post":
            for name, example in op["requestBody"]["content"]["application/json"]["examples"].items():
                body = dict(example["value"])
                if "assertion_id" in body:  # a decision needs a real assertion: the determination example's
                    body["assertion_id"] = assertion_id
                response = httpx.post(served.url + path, json=body, timeout=60)
                assert response.status_code in (200, 201), (path, name, response.text[:300])
                check_against(spec, op, response)
                if path == "/v1/determinations":
                    assertion_id = response.json()["assertion_id"]
                    trace_id = response.json()["trace_id"]
    for path, method, op in operations(spec):
        if method != "get":
            continue
        url, params = path, {}
        for parameter in op.get("parameters", []):
            value = (parameter["schema"].get("examples") or parameter.get("examples") or [None])[0]
            if parameter["name"] == "assertion_id":
                value = assertion_id
            if parameter["name"] == "trace_id":
                value = trace_id
            if value is None:
                continue
            if parameter["in"] == "path":
                url = url.replace("{" + parameter["name"] + "}", str(value))
            else:
                params[parameter["name"]] = value
        response = httpx.get(served.url + url, params=params, timeout=60)
        assert response.status_code == 200, (path, response.text[:300])
        check_against(spec, op, response)


def test_effective_date_is_an_alias_of_as_of_date_and_codes_is_deprecated(served: Served) -> None:
    plan = {"payer_id": "KHP", "plan_id": "KHP-PPO-PLUS", "question": "insulin pump: replacement limit"}
    by_alias = httpx.post(served.url + "/v1/search", json={**plan, "effective_date": "2024-06-01"}, timeout=30)
    by_name = httpx.post(served.url + "/v1/search", json={**plan, "as_of_date": "2024-06-01"}, timeout=30)
    assert by_alias.status_code == by_name.status_code == 200
    assert without_timings(by_alias.json()) == without_timings(by_name.json())
    assert "deprecation" not in by_alias.headers and "deprecation" not in by_name.headers

    old = httpx.post(served.url + "/v1/search", json={**plan, "as_of_date": "2024-06-01", "codes": ["E0784"]}, timeout=30)
    new = httpx.post(served.url + "/v1/search", json={**plan, "as_of_date": "2024-06-01",
                                                      "procedure_codes": ["E0784"]}, timeout=30)
    assert old.status_code == new.status_code == 200
    assert without_timings(old.json()) == without_timings(new.json())
    assert old.headers["deprecation"].startswith("@") and "procedure_codes" in old.headers["clauseguard-deprecated"]
    assert "deprecation" not in new.headers

    both = httpx.post(served.url + "/v1/search", json={**plan, "as_of_date": "2024-06-01",
                                                       "effective_date": "2024-06-01"}, timeout=30)
    assert both.status_code == 422 and both.json()["detail"][0]["loc"] == ["body", "effective_date"]


HOSTILE = [
    (b'{"contract_id": "CT-48213", "question": "\\ud800 implant"}', ["body", "question"], "surrogate"),
    (b'{"contract_id": "CT-48213", "question": "implant", "k": ' + b"9" * 5000 + b"}", ["body", "k"], "5000 digits"),
    (b"[" * 100_000 + b"]" * 100_000, ["body"], "nests"),
    (b'{"contract_id": "CT-48213", "question": "implant", "threshold": NaN}', ["body", "threshold"], "NaN"),
    (b'{"contract_id": "CT-48213", "question": "a\\u0000b"}', ["body", "question"], "NUL"),
    (b'{"contract_id": "CT-48213", "question": "implant", "\\udfff": 1}', ["body"], "has a key that contains an unpaired"),
    (b"\xff\xfe{}", ["body"], "UTF-8"),
]


@pytest.mark.parametrize(("body", "loc", "named"), HOSTILE, ids=[h[2] for h in HOSTILE])
def test_hostile_bodies_are_4xx_naming_the_field(served: Served, body: bytes, loc: list[str], named: str) -> None:
    for path in ("/v1/search", "/v1/determinations", "/v1/compare"):
        response = httpx.post(served.url + path, content=body, headers={"content-type": "application/json"},
                              timeout=60)
        assert response.status_code == 422, (path, response.text[:200])
        entry = response.json()["detail"][0]
        if path == "/v1/search":
            assert entry["loc"] == loc and named in entry["msg"], entry


def test_hostile_path_values_are_4xx(served: Served) -> None:
    for path in ("/v1/clauses/%ED%A0%80", "/v1/documents/%00/versions", "/v1/codes/" + "9" * 5000):
        response = httpx.get(served.url + path, timeout=30)
        assert 400 <= response.status_code < 500, (path, response.status_code)
        assert response.json()["detail"]


def test_no_error_body_shows_a_file_path(served: Served) -> None:
    home = str(served.home)
    for method, path, body in [
        ("GET", "/v1/audit/as-000000", None), ("GET", "/v1/traces/tr-000000", None),
        ("GET", "/v1/clauses/NOPE", None), ("POST", "/v1/decisions", {"assertion_id": "as-0", "final_outcome": "COVERED",
                                                                    "decided_by": "x", "reason": "y"}),
    ]:
        response = httpx.request(method, served.url + path, json=body, timeout=30)
        assert 400 <= response.status_code < 500
        text = json.dumps(response.json())
        assert home not in text and "/tm" + "p/" not in text, text
        assert ".sqlite" not in text.replace("audit.sqlite", ""), text
    catalog = httpx.get(served.url + "/v1/corpus", timeout=30).json()
    assert "/" not in catalog["description"]


# ----------------------------------------------------------------------------- in process: the model status


def test_model_status_is_probed_at_most_once_a_minute_and_shows_no_url(
    demo_engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    import clauseguard.models

    probes: list[int] = []

    def fake_status(*_: Any, **__: Any) -> dict[str, Any]:
        probes.append(1)
        return {"configured": True, "provider": "ollama", "model": "llama3.1:8b", "base_url": "http://10.1.2.3:11434",
                "api_key": "not needed", "reachable": False,
                "endpoints": [{"model": "ollama:llama3.1:8b@http://10.1.2.3:11434", "reachable": False,
                               "model_listed": False, "detail": "http://10.1.2.3:11434/api/tags refused the connection"}],
                "roles": {"phraser": {"enabled": True, "model": "ollama:llama3.1:8b@http://10.1.2.3:11434"}},
                "limits": {}, "price": {}, "budget": {}}

    monkeypatch.setattr(clauseguard.models, "model_status", fake_status)
    app = create_app(lambda: demo_engine, api_keys=["k1"])
    with TestClient(app) as client:
        assert client.get("/v1/model/status").status_code == 401
        shown = [client.get("/v1/model/status", headers={"X-API-Key": "k1"}) for _ in range(5)]
    assert all(r.status_code == 200 for r in shown)
    assert len(probes) == 1
    text = shown[-1].text
    assert "10.1.2.3" not in text and "base_url" not in text
    assert shown[-1].json()["endpoints"][0]["model"] == "ollama:llama3.1:8b" and shown[-1].json()["checked_at"]
