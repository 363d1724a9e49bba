"""The PHI scan (issue 15): every item of the blind PHI corpus (evals/phi, dev half) goes through the
engine (determinations and searches in-process) plus one CLI, one API and one MCP run; then the audit
log, the traces and the server log are scanned for every PHI value: 0 leaks. Over-redaction of
clinical terms (clinical_terms.txt, the items' own clinical terms, the note phrasebook's quotes) is
at most 1%. The holdout half is decoded in memory only, and its tests report counts only (per
category, and per structural leak category of clauseguard.privacy.leak_categories: shape, script,
place, class of the word before; never a value or a term). The corpus is the measure only: no value or term of it is in
any table or rule of the redactor."""

from __future__ import annotations

import importlib.util
import json
import logging
import sqlite3
from pathlib import Path
from typing import Any, Final

import anyio
import pytest
import yaml

from clauseguard import packed
from clauseguard.corpus.sources import open_corpus
from clauseguard.engine import Engine
from clauseguard.privacy import leak_categories, redact

REPO = Path(__file__).resolve().parents[3]
PHI = REPO / "evals" / "phi"
PHRASEBOOK = REPO / "evals" / "notes" / "dev" / "phrasebook.yaml"
BASE = {"payer_id": "KHP", "plan_id": "KHP-PPO-PLUS", "procedure_codes": ["E0784"], "diagnosis_codes": ["E10.9"],
        "as_of_date": "2024-03-15", "question": "Is an insulin pump covered?", "narrative": "Type 1 diabetes."}
MAX_OVER_REDACTION = 0.01


def items() -> list[dict[str, Any]]:
    if not (PHI / "make_phi.py").exists():
        pytest.skip(f"the PHI corpus is not at {PHI}")
    spec = importlib.util.spec_from_file_location("make_phi", PHI / "make_phi.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return list(module.build(0))


def request_of(item: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    if item["field"] == "narrative":
        return "determination", {**BASE, "narrative": item["text"]}
    return "search", {"contract_id": "CT-48213", "question": item["text"]}


def leaks(text: str, corpus: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """Every value of the items found in `text`: verbatim (case-sensitive, anywhere) for a text made
    from those items alone. The corpus guarantees that no value occurs outside an identifier within
    its own item, not across items ("Park" is a surname in one item and inside "Parkinson's" in
    another), so a text mixing many items is scanned with `leaks_as_words`."""
    return [(item["id"], p["category"]) for item in corpus for p in item["phi"] if p["value"] in text]


def leaks_as_words(text: str, corpus: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """Every value of the items found in `text` as a whole word (not inside a longer word)."""
    found = []
    for item in corpus:
        for p in item["phi"]:
            value, start = p["value"], text.find(p["value"])
            while start >= 0:
                end = start + len(value)
                before = text[start - 1] if start else " "
                after = text[end] if end < len(text) else " "
                if not (before.isalnum() and value[0].isalnum()) and not (after.isalnum() and value[-1].isalnum()):
                    found.append((item["id"], p["category"]))
                    break
                start = text.find(value, start + 1)
    return found


def on_disk(home: Path) -> str:
    conn = sqlite3.connect(home / "audit.sqlite")
    rows = conn.execute("SELECT * FROM assertions").fetchall()  # every column; the sealed original as hex
    conn.close()
    return json.dumps(rows, ensure_ascii=False, default=lambda blob: blob.hex()) + \
        (home / "traces.jsonl").read_text(encoding="utf-8")


def holdout() -> list[dict[str, Any]]:
    path = PHI / "holdout.json.gz.b64"
    if not path.exists():
        pytest.skip(f"the PHI holdout is not at {path}")
    data: list[dict[str, Any]] = json.loads(packed.read_text(path))  # in memory only, never written
    return data


def leak_counts(corpus: list[dict[str, Any]]) -> tuple[dict[str, int], dict[str, int]]:
    """(values per category, leaked values per category) after redacting each item's text."""
    tried: dict[str, int] = {}
    leaked: dict[str, int] = {}
    for item in corpus:
        shown = redact(item["text"])
        for p in item["phi"]:
            tried[p["category"]] = tried.get(p["category"], 0) + 1
            if p["value"] in shown:
                leaked[p["category"]] = leaked.get(p["category"], 0) + 1
    return tried, leaked


def over_redaction(checks: list[tuple[str, str]]) -> int:
    redacted: dict[str, str] = {}
    return sum(term not in redacted.setdefault(text, redact(text)) for text, term in checks)


def test_no_phi_value_reaches_disk_or_an_answer(isolated_home: Path, capsys: pytest.CaptureFixture[str],
                                                 caplog: pytest.LogCaptureFixture) -> None:
    corpus = items()
    engine = Engine(open_corpus("demo", None))
    leaked = []
    for item in corpus:
        kind, request = request_of(item)
        answer = engine.determine(request) if kind == "determination" else engine.search(request)
        leaked += leaks(json.dumps(answer.as_json(), ensure_ascii=False), [item])
    values = sum(len(i["phi"]) for i in corpus)
    print(f"PHI dev half through the engine: {len(corpus)} requests, tried {values} values, failures {len(leaked)}")
    assert leaked == []

    narrative = next(i for i in corpus if i["field"] == "narrative" and i["phi"])
    question = next(i for i in corpus if i["field"] == "question" and i["phi"])
    from clauseguard.interfaces.cli import main

    assert main(["--corpus", "demo", "ask", "--payer", "KHP", "--plan", "KHP-PPO-PLUS", "--code", "E0784",
                 "--dx", "E10.9", "--as-of", "2024-03-15", "--narrative", narrative["text"],
                 "--question", "Is an insulin pump covered?", "--json"]) == 0
    cli_out = capsys.readouterr().out

    from fastapi.testclient import TestClient

    from clauseguard.interfaces.api import create_app

    caplog.set_level(logging.DEBUG)
    with TestClient(create_app(lambda: Engine(open_corpus("demo", None)), api_keys=())) as client:
        api = client.post("/v1/search", json=request_of(question)[1])
        assert api.status_code == 200, api.text

    from mcp import Client

    from clauseguard.interfaces.mcp_server import create_server

    async def mcp_run() -> str:
        async with Client(create_server(lambda: Engine(open_corpus("demo", None))), read_timeout_seconds=60) as c:
            result = await c.call_tool("determine_coverage", request_of(narrative)[1])
            return json.dumps(result.structured_content, ensure_ascii=False)

    mcp_out = anyio.run(mcp_run)
    assert leaks(cli_out, [narrative]) == [] and leaks(mcp_out, [narrative]) == [] and leaks(api.text, [question]) == []
    on_disk_leaks = leaks_as_words("\n".join([on_disk(isolated_home), caplog.text]), corpus)
    print(f"PHI on disk and in the server log after {len(corpus) + 3} requests (engine, CLI, API, MCP): "
          f"tried {values} values, failures {len(on_disk_leaks)}")
    assert on_disk_leaks == []


def test_over_redaction_of_clinical_terms_is_at_most_one_percent() -> None:
    corpus = items()
    terms = [t.strip() for t in (PHI / "clinical_terms.txt").read_text(encoding="utf-8").splitlines()
             if t.strip() and not t.startswith("#")]
    checks = [(t, t) for t in terms]
    checks += [(i["text"], c) for i in corpus for c in i["clinical"]]
    if PHRASEBOOK.exists():
        book = yaml.safe_load(PHRASEBOOK.read_text(encoding="utf-8"))
        checks += [(s["text"], f["quote"]) for s in book["sentences"] for f in s.get("facts", []) if f.get("quote")]
    redacted: dict[str, str] = {}
    lost = [term for text, term in checks if term not in redacted.setdefault(text, redact(text))]
    print(f"PHI dev over-redaction: tried {len(checks)}, failures {len(lost)} ({len(lost) / len(checks):.2%})")
    assert len(lost) / len(checks) <= MAX_OVER_REDACTION, (len(lost), len(checks), lost[:40])


def later_half(name: str) -> list[dict[str, Any]]:
    path = PHI / f"{name}.json"
    if not path.exists():
        pytest.skip(f"the PHI dev half {name} is not at {path}")
    data: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))
    return data


# The later dev halves, each written blind by another helper in other house styles (dev2: HL7 segments,
# sign-offs, USPS box forms, code lists beside ids; dev3: dates of birth, names and ids written the hard
# ways, native-script notes). Not met yet: each is held where it stands (leaks, clinical terms lost) so
# it cannot get worse, and its zero-leak goal stays visible as an xfail.
LATER_HALVES: Final = {"dev2": (5, 9), "dev3": (9, 31)}


@pytest.mark.parametrize("name", sorted(LATER_HALVES))
def test_later_dev_halves_leak_and_over_redact_no_more_than_they_did(name: str) -> None:
    corpus = later_half(name)
    tried, leaked = leak_counts(corpus)
    checks = [(i["text"], c) for i in corpus for c in i["clinical"]]
    lost = over_redaction(checks)
    print(f"PHI {name}: tried {sum(tried.values())}, failures {sum(leaked.values())} {dict(sorted(leaked.items()))}; "
          f"over-redaction: tried {len(checks)}, failures {lost}")
    print(leak_categories.table(leak_categories.leaks(corpus)))
    max_leaks, max_lost = LATER_HALVES[name]
    assert sum(leaked.values()) <= max_leaks and lost <= max_lost, (leaked, lost)


@pytest.mark.xfail(reason="the later dev halves, not met: dev2 5 of 638 values leak, dev3 9 of 513", strict=False)
@pytest.mark.parametrize("name", sorted(LATER_HALVES))
def test_later_dev_halves_leak_no_phi_value(name: str) -> None:
    tried, leaked = leak_counts(later_half(name))
    assert not leaked, leaked


@pytest.mark.xfail(reason="blind holdout, not met: 11 of 1,334 PHI values leak (name 10, other 1); "
                          "the values are never shown, only their structural categories "
                          "(clauseguard.privacy.leak_categories), so no rule is tuned to them", strict=False)
def test_holdout_leaks_no_phi_value() -> None:
    """The holdout half, redacted in-process: counts per category and per structural leak category only
    (the assertion shows no value)."""
    corpus = holdout()
    tried, leaked = leak_counts(corpus)
    print(f"PHI holdout: tried {sum(tried.values())}, failures {sum(leaked.values())}; per category "
          + ", ".join(f"{c}: tried {n}, failures {leaked.get(c, 0)}" for c, n in sorted(tried.items())))
    print(leak_categories.table(leak_categories.leaks(corpus)))  # structure only: shapes and classes, no text
    del corpus  # only counts and categories may reach the report: pytest shows the names an assertion reads
    none = not leaked
    assert none, f"holdout leaks per category: {dict(sorted(leaked.items()))} of {tried}"


@pytest.mark.xfail(reason="blind holdout, not met: 37 of 1,710 clinical-term checks redacted (2.2%, bar 1%)",
                   strict=False)
def test_holdout_over_redaction_is_at_most_one_percent() -> None:
    """The holdout's own clinical terms (most of them on no list the redactor knows): counts only."""
    checks = [(i["text"], c) for i in holdout() for c in i["clinical"]]
    lost, tried = over_redaction(checks), len(checks)
    del checks  # only counts may reach the report: pytest shows the names an assertion reads
    print(f"PHI holdout over-redaction: tried {tried}, failures {lost}")
    within = lost <= tried * MAX_OVER_REDACTION
    assert within, f"{lost} of {tried} clinical-term checks redacted"
