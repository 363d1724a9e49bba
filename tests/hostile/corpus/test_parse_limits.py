"""Hostile corpus files: alias bombs, deep nesting and huge integers are exit-2 errors naming the file,
line and key path, never a traceback or the expanded content; both YAML loaders keep the budgets."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clauseguard.corpus import loader
from clauseguard.corpus.parse_limits import ALIAS_BUDGET, MAX_DEPTH, check_yaml_budgets
from clauseguard.errors import CorpusError
from clauseguard.interfaces.cli import main

HEAD = "format: clauseguard.corpus/v1\n"
BOMB = HEAD + "".join(
    f"{name}: &{name} [{', '.join([f'*{prev}'] * 9) if prev else ', '.join(['lol'] * 9)}]\n"
    for prev, name in zip(["", "a", "b", "c", "d", "e", "f", "g"], "abcdefgh", strict=True)
)
LOADERS = [yaml.SafeLoader] + ([yaml.CSafeLoader] if getattr(yaml, "__with_libyaml__", False) else [])


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _validate(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(["corpus", "validate", str(path)])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def test_alias_bomb_is_refused_naming_the_line_without_the_expansion(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert len(BOMB.encode()) < 600
    path = _write(tmp_path, "bomb.yaml", BOMB)
    code, out = _validate(path, capsys)
    assert code == 2, out
    assert "bomb.yaml" in out and "line " in out and "alias" in out
    assert "lol" not in out and len(out) < 2_000
    assert "Traceback" not in out


@pytest.mark.parametrize("loader_cls", LOADERS, ids=lambda c: c.__name__)
def test_budgets_hold_with_either_loader(loader_cls: type) -> None:
    with pytest.raises(CorpusError, match="alias"):
        check_yaml_budgets(BOMB, "bomb.yaml", loader_cls)
    with pytest.raises(CorpusError, match="nesting deeper"):
        check_yaml_budgets(HEAD + "payers: " + "[" * 5000 + "]" * 5000 + "\n", "deep.yaml", loader_cls)


def test_a_few_small_aliases_are_still_fine(tmp_path: Path) -> None:
    text = HEAD + "payers: [&p {id: P, name: P}]\nplans: [{id: L, payer: P, name: L}]\n"
    check_yaml_budgets(text, "ok.yaml")
    assert loader.read_data(_write(tmp_path, "ok.yaml", text))["payers"][0]["id"] == "P"


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("deep-flow.yaml", HEAD + "payers: " + "[" * 5000 + "]" * 5000 + "\n"),
        ("deep-block.yaml", HEAD + "payers:\n" + "".join("  " * i + "-\n" for i in range(1, 5001))),
        ("deep-map.yaml", HEAD + "payers:\n" + "".join("  " * i + f"k{i}:\n" for i in range(1, 5001))),
        ("deep.json", '{"format": "clauseguard.corpus/v1", "payers": ' + "[" * 100_000 + "]" * 100_000 + "}"),
    ],
)
def test_deep_nesting_is_an_error_naming_file_and_key_path(tmp_path: Path, name: str, text: str,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _validate(_write(tmp_path, name, text), capsys)
    assert code == 2, out[-500:]
    assert name in out and "nesting deeper" in out and "Traceback" not in out
    if name.endswith(".yaml"):
        assert "payers" in out  # the key path


@pytest.mark.parametrize("suffix", ["yaml", "json"])
def test_a_5000_digit_integer_is_an_error_naming_the_key_path(tmp_path: Path, suffix: str,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    big = "9" * 5000
    data = {"format": "clauseguard.corpus/v1", "payers": [{"id": "P", "name": "P"}], "documents": [
        {"id": "D", "payer": "P", "kind": "faq", "title": "T", "versions": [
            {"version": "v1", "effective_start": "2024-01-01",
             "clauses": [{"id": "D.v1.C1", "section": "S", "text": "t", "page": "PAGE"}]}]}]}
    text = json.dumps(data).replace('"PAGE"', big)
    code, out = _validate(_write(tmp_path, f"big.{suffix}", text), capsys)
    assert code == 2, out[-500:]
    assert f"big.{suffix}" in out and "documents[0].versions[0].clauses[0].page" in out
    assert big not in out and "Traceback" not in out


_KEYS = st.text(alphabet="abcdefgh", min_size=1, max_size=4)
_YAML_VALUES = st.recursive(
    st.one_of(st.none(), st.text(max_size=6), st.integers(-10**40, 10**40)),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(_KEYS, inner, max_size=3)),
    max_leaves=20,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=_YAML_VALUES, depth=st.integers(0, 200), as_json=st.booleans())
def test_any_nested_shape_is_a_corpus_error_or_data_never_a_crash(tmp_path_factory: pytest.TempPathFactory,
                                                                   value: object, depth: int, as_json: bool) -> None:
    for _ in range(depth):
        value = [value]
    text = json.dumps({"format": "clauseguard.corpus/v1", "payers": value})
    if not as_json:
        text = yaml.safe_dump(json.loads(text), default_flow_style=None)
    path = tmp_path_factory.mktemp("shape") / ("c.json" if as_json else "c.yaml")
    path.write_text(text, encoding="utf-8")
    try:
        loader.load_path(path)
    except CorpusError as exc:
        assert str(path) in str(exc)
        if depth >= MAX_DEPTH:
            assert "nesting deeper" in str(exc) or "payers" in str(exc)


def test_budget_constants_are_small() -> None:
    assert MAX_DEPTH <= 100 and ALIAS_BUDGET <= 100_000


def bombs() -> dict[str, str]:
    """Alias bombs of several shapes, each expanding past the budget: widths 2-10 over as many levels
    as it takes, in flow lists, flow mappings, block lists and merge keys, anchored under `payers` or
    at the top."""
    out: dict[str, str] = {}
    for width in range(2, 11):
        levels = 1
        while width ** levels <= ALIAS_BUDGET * 4:
            levels += 1
        names = [f"n{i}" for i in range(levels)]
        pairs = list(zip(["", *names[:-1]], names, strict=True))  # (the level below, this level)
        flow = "".join(f"{n}: &{n} [{', '.join([f'*{p}'] * width) if p else ', '.join(['x'] * width)}]\n"
                       for p, n in pairs)
        mapping = "".join(f"{n}: &{n} {{{', '.join(f'k{j}: ' + (f'*{p}' if p else 'x') for j in range(width))}}}\n"
                          for p, n in pairs)
        block = "".join(f"{n}: &{n}\n" + "".join(f"  - {f'*{p}' if p else 'x'}\n" for _ in range(width))
                        for p, n in pairs)
        merge = "".join(f"{n}: &{n}\n" + (f"  <<: *{p}\n" if p else "") +
                        "".join(f"  m{j}: {f'*{p}' if p else 'x'}\n" for j in range(width)) for p, n in pairs)
        nested = "payers:\n" + "".join(f"  - &{n} [{', '.join([f'*{p}'] * width) if p else 'x'}]\n"
                                       for p, n in pairs)
        for style, body in (("flow", flow), ("mapping", mapping), ("block", block), ("merge", merge),
                            ("under-payers", nested)):
            out[f"{style}-w{width}"] = HEAD + body
    return out


def test_every_alias_bomb_is_refused_quickly_naming_the_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import time

    failures = []
    made = bombs()
    for name, text in made.items():
        path = _write(tmp_path, f"{name}.yaml", text)
        started = time.process_time()
        code, out = _validate(path, capsys)
        spent = time.process_time() - started
        if not (code == 2 and f"{name}.yaml" in out and "line " in out and "alias" in out
                and len(out) < 2_000 and "Traceback" not in out and spent < 5):
            failures.append((name, code, round(spent, 2), out[:200]))
    with capsys.disabled():
        print(f"\nYAML alias bombs: tried {len(made)}, failures {len(failures)}")
    assert not failures, failures
