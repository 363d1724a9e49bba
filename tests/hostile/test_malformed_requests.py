"""Every malformed request is a 4xx naming what is wrong, never a 5xx (issue 15, item 5).

A family of bodies is made from each route's documented example by one mutation of one field (a
wrong type, an unpaired surrogate, a NUL, a 5,000-digit integer, 10,000-deep nesting, NaN, an
unknown key, a missing key) and of the body as a whole (not an object, not UTF-8, cut short, empty,
100,000-deep), plus hostile headers. The test prints "tried N, failures F"; a failure is a 5xx, a
body that is not JSON, a 4xx that names no field, or a 200 for anything but a left-out optional field
(or a determination's HALT naming the field, as the design has it).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from clauseguard.corpus.sources import open_corpus
from clauseguard.engine import Engine
from clauseguard.interfaces.api import create_app
from clauseguard.interfaces.http import examples

BASES: dict[str, dict[str, Any]] = {
    "/v1/search": examples.SEARCH["plan"]["value"],
    "/v1/determinations": examples.DETERMINATION["case"]["value"],
    "/v1/compare": examples.COMPARE["riders"]["value"],
    "/v1/evaluate-retrieval": examples.RETRIEVAL["gold"]["value"],
    "/v1/decisions": examples.DECISION["agree"]["value"],
}
DEEP = 10_000
# One field's value replaced by something no field accepts (raw JSON text, so NaN and huge numbers
# reach the server exactly as written).
FIELD_VALUES: dict[str, str] = {
    "an object": "{}",
    "a list of objects": "[{}]",
    "an unpaired surrogate": '"\\ud800 x"',
    "a NUL": '"a\\u0000b"',
    "a 5,000-digit integer": "9" * 5000,
    "10,000-deep nesting": "[" * DEEP + "]" * DEEP,
    "NaN": "NaN",
    "-Infinity": "-Infinity",
}
WHOLE_BODIES: dict[str, bytes] = {
    "a list": b"[]",
    "a string": b'"question"',
    "a number": b"1",
    "null": b"null",
    "not UTF-8": b"\xff\xfe{}",
    "cut short": b'{"question": "dental',
    "empty": b"",
    "100,000-deep nesting": b"[" * 100_000 + b"]" * 100_000,
    "a surrogate key": b'{"\\udfff": 1}',
    "a lone BOM": b"\xef\xbb\xbf",
}


def cases() -> Iterator[tuple[str, str, bytes]]:
    for route, base in BASES.items():
        for name, raw in WHOLE_BODIES.items():
            yield route, f"body: {name}", raw
        for key in base:
            for name, value in FIELD_VALUES.items():
                fields = [f"{json.dumps(k)}: {json.dumps(v) if k != key else value}" for k, v in base.items()]
                yield route, f"{key}: {name}", ("{" + ", ".join(fields) + "}").encode()
            missing = {k: v for k, v in base.items() if k != key}
            yield route, f"{key}: missing", json.dumps(missing).encode()
        yield route, "an unknown key", json.dumps({**base, "nonsense_key": 1}).encode()


def named_a_field(response: Any) -> bool:
    detail = response.json().get("detail")
    if isinstance(detail, list):
        return bool(detail) and all(isinstance(d, dict) and d.get("loc") and d.get("msg") for d in detail)
    return isinstance(detail, str) and bool(detail)


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    home = tmp_path_factory.mktemp("malformed-home")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CLAUSEGUARD_HOME", str(home))
        app = create_app(lambda: Engine(open_corpus("demo", None)), api_keys=["alpha-key"])
        with TestClient(app, raise_server_exceptions=False) as made:
            yield made


def test_every_malformed_request_is_a_4xx_naming_what_is_wrong(client: TestClient, capsys: pytest.CaptureFixture[str],
                                                               isolated_home: Path) -> None:
    headers = {"Authorization": "Bearer alpha-key", "content-type": "application/json"}
    for route, base in BASES.items():  # the unmutated examples are answered: the 4xx below are the mutations'
        assert client.post(route, json=base, headers=headers).status_code in (200, 404), route
    failures: list[tuple[str, str, int]] = []
    tried = 0
    for route, name, body in cases():
        tried += 1
        response = client.post(route, content=body, headers=headers)
        try:
            ok = 400 <= response.status_code < 500 and named_a_field(response)
        except ValueError:  # not JSON
            ok = False
        if response.status_code == 200 and name.endswith(": missing"):
            ok = True  # an optional field left out is a well-formed request
        elif route == "/v1/determinations" and response.status_code == 200:
            ok = response.json().get("gate") == "HALT"  # a field's value: HALT naming it, as the design says
        if not ok:
            failures.append((route, name, response.status_code))
    odd_headers: list[dict[str, Any]] = [
        {"Authorization": "Bearer cl\u00e9-\u00fc".encode("latin-1")},
        {"Authorization": b"Bearer \xff\xfe"},
        {"Authorization": "Bearer " + "k" * 8000},
        {"Authorization": "Basic YWxwaGEta2V5"},
        {},
    ]
    for extra in odd_headers:
        tried += 1
        response = client.post("/v1/search", json=BASES["/v1/search"], headers=extra)
        if response.status_code != 401 or not named_a_field(response):
            failures.append(("/v1/search", f"header {str(extra)[:40]}", response.status_code))
    tried += 1
    response = client.post("/v1/search", content=b"question=dental", headers={**headers, "content-type": "text/plain"})
    if not 400 <= response.status_code < 500:
        failures.append(("/v1/search", "a text/plain body", response.status_code))
    with capsys.disabled():
        print(f"\nmalformed requests: tried {tried}, failures {len(failures)}")
    assert not failures, failures[:20]
