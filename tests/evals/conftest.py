"""A tiny corpus small enough to compute every metric by hand, case builders, and a CLI app wired with
the scripted engine (the real app's global options, this package's `register`)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import typer

from clauseguard.corpus.loader import load_path
from clauseguard.corpus.model import Corpus
from clauseguard.evals.cases import DeterminationCase, SearchCase, load_suite, parse_case_file
from clauseguard.evals.corpus_facts import CorpusFacts
from clauseguard.interfaces import cli
from clauseguard.interfaces.eval_commands import register
from clauseguard.testing import ScriptedEngine


def _clause(cid: str, kind: str, text: str) -> dict[str, Any]:
    return {"id": cid, "section": kind.title(), "kind": kind, "text": text}


TINY: dict[str, Any] = {
    "format": "clauseguard.corpus/v1",
    "payers": [{"id": "PA", "name": "Payer A"}, {"id": "PB", "name": "Payer B"}],
    "plans": [
        {"id": "PA-GOLD", "payer": "PA", "name": "Gold", "riders": ["PA-RID-1"]},
        {"id": "PA-BASIC", "payer": "PA", "name": "Basic"},
        {"id": "PB-ONE", "payer": "PB", "name": "One"},
    ],
    "contracts": [
        {"id": "CT-1", "plan": "PA-GOLD", "effective_date": "2023-03-01", "terms_anchor": "contract_date"},
        {"id": "CT-OLD", "plan": "PA-GOLD", "effective_date": "2020-01-01", "end_date": "2020-12-31",
         "terms_anchor": "contract_date"},
    ],
    "codes": [
        {"code": "99213", "system": "CPT"},
        {"code": "99214", "system": "CPT"},
        {"code": "99215", "system": "CPT"},
    ],
    "documents": [
        {
            "id": "PA-MP-1", "payer": "PA", "kind": "medical_policy", "title": "Office visits", "codes": ["99213"],
            "versions": [
                {"version": "v1", "effective_start": "2023-01-01", "effective_end": "2023-12-31", "clauses": [
                    _clause("PA-MP-1.v1.C1", "scope", "This policy applies to office visits (99213)."),
                    _clause("PA-MP-1.v1.C2", "criteria", "An office visit is covered when it is medically necessary."),
                ]},
                {"version": "v2", "effective_start": "2024-01-01", "clauses": [
                    _clause("PA-MP-1.v2.C1", "scope", "This policy applies to office visits (99213)."),
                    _clause("PA-MP-1.v2.C2", "criteria", "An office visit is covered when a referral is on file."),
                ]},
            ],
        },
        {
            "id": "PA-RID-1", "payer": "PA", "kind": "rider", "title": "Gold rider", "plans": ["PA-GOLD"],
            "overrides": ["PA-MP-1"],
            "versions": [{"version": "r1", "effective_start": "2023-06-01", "clauses": [
                _clause("PA-RID-1.r1.A1", "criteria", "Under Gold, no referral is needed for an office visit."),
            ]}],
        },
        {
            "id": "PA-MP-2", "payer": "PA", "kind": "medical_policy", "title": "Basic only", "codes": ["99214"],
            "plans": ["PA-BASIC"],
            "versions": [{"version": "v1", "effective_start": "2023-01-01", "clauses": [
                _clause("PA-MP-2.v1.C1", "criteria", "Extended visits are covered on Basic."),
            ]}],
        },
        {
            "id": "PA-TERMS", "payer": "PA", "kind": "policy_terms", "title": "Terms", "plans": ["PA-GOLD"],
            "versions": [
                {"version": "T-2023", "effective_start": "2023-01-01", "effective_end": "2023-12-31", "clauses": [
                    _clause("PA-TERMS.T-2023.A1", "limit", "Visits are paid at 80%."),
                ]},
                {"version": "T-2024", "effective_start": "2024-01-01", "clauses": [
                    _clause("PA-TERMS.T-2024.A1", "limit", "Visits are paid at 90%."),
                ]},
            ],
        },
        {
            "id": "PB-MP-9", "payer": "PB", "kind": "medical_policy", "title": "Other payer", "codes": ["99213"],
            "versions": [{"version": "v1", "effective_start": "2023-01-01", "clauses": [
                _clause("PB-MP-9.v1.C1", "criteria", "Office visits are covered for Payer B members."),
            ]}],
        },
    ],
}


@pytest.fixture(scope="session")
def tiny_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("tiny") / "tiny.json"
    path.write_text(json.dumps(TINY))
    return path


@pytest.fixture(scope="session")
def tiny(tiny_path: Path) -> Corpus:
    return load_path(tiny_path)


@pytest.fixture(scope="session")
def facts(tiny: Corpus) -> CorpusFacts:
    return CorpusFacts(tiny)


DET_DEFAULTS: dict[str, Any] = {
    "trap": "T1 versions",
    "payer_id": "PA",
    "plan_id": "PA-BASIC",
    "procedure_codes": ["99213"],
    "diagnosis_codes": [],
    "as_of_date": "2023-06-15",
    "narrative": "",
    "question": "",
    "expected_outcome": "COVERED",
    "expected_gate": "DETERMINE",
    "gold_clause_ids": ["PA-MP-1.v1.C2"],
    "rationale": "",
}

SEARCH_DEFAULTS: dict[str, Any] = {
    "trap": "T8",
    "contract_id": "CT-1",
    "question": "",
    "threshold": 0.62,
    "k": 3,
    "expected_status": "answered",
    "expected_applicable_version": "T-2023",
    "must_include_clause_ids": ["PA-TERMS.T-2023.A1"],
    "must_exclude_clause_ids": ["PA-TERMS.T-2024.A1"],
    "expected_action": "none",
    "rationale": "",
}


def det_raw(case_id: str, **fields: Any) -> dict[str, Any]:
    raw = {"case_id": case_id, **DET_DEFAULTS, "question": f"question of {case_id}"}
    raw.update(fields)
    return raw


def search_raw(case_id: str, **fields: Any) -> dict[str, Any]:
    raw = {"case_id": case_id, **SEARCH_DEFAULTS, "question": f"question of {case_id}"}
    raw.update(fields)
    return {k: v for k, v in raw.items() if v is not ...}


def det(case_id: str, **fields: Any) -> DeterminationCase:
    case = parse_case_file("test.json", {"cases": [det_raw(case_id, **fields)]}).cases[0]
    assert isinstance(case, DeterminationCase)
    return case


def search(case_id: str, **fields: Any) -> SearchCase:
    case = parse_case_file("test.json", {"cases": [search_raw(case_id, **fields)]}).cases[0]
    assert isinstance(case, SearchCase)
    return case


def write_suite(path: Path, cases: list[dict[str, Any]], description: str = "test suite") -> Path:
    path.write_text(json.dumps({"description": description, "cases": cases}, indent=1))
    return path


@pytest.fixture
def cli_app(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[Callable[[typer.Context], Any]], None]]:
    """Install a fresh app with the real global options and `register(app, factory)` as `cli.app`,
    so `cli.main([...])` runs it with the real error mapping and exit statuses."""

    def install(factory: Callable[[typer.Context], Any]) -> None:
        app = typer.Typer(no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False)
        app.callback()(cli._global)
        register(app, factory)
        monkeypatch.setattr(cli, "app", app)

    yield install


def oracle_factory(case_files: list[Path], corpus: Corpus, **kwargs: Any) -> Callable[[typer.Context], ScriptedEngine]:
    """An engine factory answering every case of the files with its own label."""
    suite = load_suite(case_files)
    return lambda ctx: ScriptedEngine.answering_from_labels(suite.cases, corpus_fingerprint=corpus.fingerprint(), **kwargs)
