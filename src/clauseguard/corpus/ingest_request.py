"""What an ingest is asked to do: the flags and the files' YAML sidecars merged into one request,
every value checked and every error naming the flag that gives it.

It reads no document and touches no store.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any, Final

from clauseguard.corpus.codes import CODE_SYSTEMS, SHAPE_HELP, has_shape
from clauseguard.corpus.loader import read_data
from clauseguard.corpus.model import DOCUMENT_KINDS
from clauseguard.errors import CorpusError, Problem, RequestError

SIDECAR_SUFFIX: Final = ".yaml"

# request field -> the command-line flag that gives it (errors name the flag)
FLAGS: Final[dict[str, str]] = {
    "document": "--document",
    "version": "--version",
    "effective_start": "--effective-start",
    "effective_end": "--effective-end",
    "kind": "--kind",
    "payer": "--payer",
    "payer_name": "--payer-name",
    "title": "--title",
    "plans": "--plan",
    "plan_names": "--plan-name",
    "codes": "--code",
    "overrides": "--overrides",
}
_LISTS: Final = ("plans", "codes", "overrides")
_REQUIRED: Final = ("document", "version", "effective_start")


@dataclass(frozen=True)
class IngestRequest:
    """One ingest: the files that make one version of one document, and what the flags say about it."""

    files: tuple[Path, ...]
    document: str
    version: str
    effective_start: date
    effective_end: date | None = None
    kind: str | None = None  # required for a new document
    payer: str | None = None  # required for a new document
    title: str | None = None  # a new document's title; default: the title the file prints
    plans: tuple[str, ...] = ()
    codes: tuple[str, ...] = ()
    overrides: tuple[str, ...] = ()
    payer_name: str | None = None  # a new payer's name; default: its id
    plan_names: tuple[tuple[str, str], ...] = ()  # (plan id, name) for new plans; default: the id


def sidecar_path(file: Path) -> Path:
    """`terms-2021.pdf` -> `terms-2021.pdf.yaml`, beside the file."""
    return file.with_name(file.name + SIDECAR_SUFFIX)


def _text(value: Any, name: str, origin: str) -> str:
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str) or not value.strip() or value != value.strip():
        raise RequestError(FLAGS[name], f"{origin} gives {value!r}; it must be non-empty text without surrounding spaces")
    return value


def _day(value: Any, name: str, origin: str) -> date:
    if isinstance(value, date):
        return value
    try:
        if isinstance(value, str) and len(value) == 10:
            return date.fromisoformat(value)
    except ValueError:
        pass
    raise RequestError(FLAGS[name], f"{origin} gives {value!r}, which is not a date; write an ISO date YYYY-MM-DD, e.g. 2024-03-15")


def _plan_names(value: Any, origin: str) -> tuple[tuple[str, str], ...]:
    """{PLAN: name} in a sidecar, or "PLAN=name" items on the command line."""
    pairs: list[tuple[Any, Any]] = []
    if isinstance(value, Mapping):
        pairs = list(value.items())
    else:
        for item in [value] if isinstance(value, str) else value:
            if not isinstance(item, str) or "=" not in item:
                raise RequestError("--plan-name", f"{origin} gives {item!r}; write PLAN=Name, e.g. KHP-PPO=\"Kestrel PPO Plus\"")
            plan, name = item.split("=", 1)
            pairs.append((plan.strip(), name.strip()))
    return tuple((_text(p, "plan_names", origin), _text(n, "plan_names", origin)) for p, n in pairs)


def _values(raw: Mapping[str, Any], origin: str) -> dict[str, Any]:
    """Typed values of one source (the flags or one sidecar); absent, None and empty lists are left out."""
    out: dict[str, Any] = {}
    for name, value in raw.items():
        if name not in FLAGS:
            valid = ", ".join(FLAGS)
            raise RequestError(origin, f"unknown key {name!r}; valid keys: {valid}")
        if value is None or (name in (*_LISTS, "plan_names") and not value):
            continue
        if name in _LISTS:
            items = [value] if isinstance(value, str) else value
            if not isinstance(items, (list, tuple)):
                raise RequestError(FLAGS[name], f"{origin} gives {value!r}; give a list of ids")
            out[name] = tuple(dict.fromkeys(_text(v, name, origin) for v in items))
        elif name == "plan_names":
            out[name] = _plan_names(value, origin)
        elif name in ("effective_start", "effective_end"):
            out[name] = _day(value, name, origin)
        else:
            out[name] = _text(value, name, origin)
    return out


def read_sidecar(path: Path) -> dict[str, Any]:
    """A sidecar's fields, keys as in FLAGS; CorpusError when it is not a mapping or not YAML."""
    data = read_data(path)
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise CorpusError([Problem(str(path), "", f"a sidecar is a mapping of these keys: {', '.join(FLAGS)}")])
    return _values({str(k): v for k, v in data.items()}, str(path))


def _named_plans(merged: dict[str, Any]) -> None:
    """Names for the plans given (PLAN=Name); a name for a plan the request does not give is an error."""
    names = merged.get("plan_names", ())
    plans = merged.get("plans", ())
    unknown = [p for p, _ in names if p not in plans]
    if unknown:
        raise RequestError("--plan-name", f"names plan(s) {', '.join(unknown)} that no --plan gives; give --plan {unknown[0]} too")
    merged["plan_names"] = tuple(sorted(dict(names).items()))


def build_request(files: Sequence[Path], flags: Mapping[str, Any]) -> IngestRequest:
    """The request the flags and the files' sidecars make together. A field given twice must agree
    (lists are merged); --document, --version and --effective-start must come from one of them."""
    if not files:
        raise RequestError("FILE", "give at least one file to ingest")
    merged: dict[str, Any] = _values(flags, "the command line")
    origin = {name: "the command line" for name in merged}
    for file in files:
        side = sidecar_path(file)
        if not side.is_file():
            continue
        for name, value in read_sidecar(side).items():
            if name in _LISTS:
                merged[name] = tuple(dict.fromkeys((*merged.get(name, ()), *value)))
            elif name == "plan_names":
                merged[name] = (*merged.get(name, ()), *value)
            elif name in merged and merged[name] != value:
                raise RequestError(
                    FLAGS[name],
                    f"{side} gives {value!s} but {origin[name]} gives {merged[name]!s}; give it once or make them agree",
                )
            else:
                merged[name] = value
                origin.setdefault(name, str(side))
    for name in _REQUIRED:
        if name not in merged:
            raise RequestError(FLAGS[name], f"required: give {FLAGS[name]} or put '{name}:' in {sidecar_path(files[0]).name}")
    end = merged.get("effective_end")
    if end is not None and end < merged["effective_start"]:
        raise RequestError(
            "--effective-end",
            f"{end.isoformat()} is before --effective-start {merged['effective_start'].isoformat()}; "
            "give a later date, or leave it out for an open-ended version",
        )
    if "kind" in merged and merged["kind"] not in DOCUMENT_KINDS:
        raise RequestError("--kind", f"{merged['kind']!r} is not a document kind; use one of {', '.join(DOCUMENT_KINDS)}")
    _named_plans(merged)
    return IngestRequest(files=tuple(files), **merged)


def code_system(code: str) -> str:
    """The one system whose shape the code has; RequestError naming --code when none or several."""
    systems = [s for s in CODE_SYSTEMS if has_shape(code, s)]
    if len(systems) == 1:
        return systems[0]
    shapes = "; ".join(f"{s}: {SHAPE_HELP[s]}" for s in CODE_SYSTEMS)
    if not systems:
        raise RequestError("--code", f"{code!r} has no known code shape, so its system cannot be told; {shapes}")
    raise RequestError("--code", f"{code!r} has the shape of several systems ({', '.join(systems)}); add it to the store with its system first")
