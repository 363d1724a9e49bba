"""The criteria sheet: the YAML file an analyst edits — per clause its role, its criteria tree (or the
holes the compiler left), and the hash of the clause text it was written against.

    format: clauseguard.criteria-sheet/v1
    document: L33822
    clauses:
      - id: L33822.2020-01.11
        role: criteria
        read_by: compiler | corpus | revision cr-... | hole     (what the draft found; informative)
        text_sha256: 4f0c...                                    (the clause text the entry encodes)
        text: |                                                 (optional: the clause text itself)
        holes: [{span: {start, end}, reason: ...}]              (unread stretches still to author)
        criteria: {rules: [...]}                                (the corpus `criteria` format)
        reason: ...                                             (why a corrected role decides nothing)

A span is written as its verbatim text, as `{start, end, text}`, or as `{start, end}` alone, so a
sheet can be kept without copying the policy's text. This module reads and writes sheets; checking
them against the corpus is `check.py`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import yaml

from clauseguard.corpus.loader import read_data
from clauseguard.errors import CorpusError, Problem

FORMAT: Final = "clauseguard.criteria-sheet/v1"
TOP_KEYS: Final = ("format", "document", "version", "corpus_fingerprint", "clauses")
ENTRY_KEYS: Final = ("id", "role", "reason", "read_by", "text_sha256", "text", "holes", "criteria", "plain")


@dataclass
class Entry:
    """One clause of a sheet, as written (criteria still raw JSON), with its key path in the file."""

    clause_id: str
    path: str
    role: str | None = None
    reason: str | None = None
    read_by: str | None = None
    text_sha256: str | None = None
    text: str | None = None
    holes: list[Any] = field(default_factory=list)
    criteria: Any = None


@dataclass
class Sheet:
    document: str
    entries: list[Entry]
    version: str | None = None
    source: str = "criteria sheet"


def _problem(source: str, path: str, message: str) -> CorpusError:
    return CorpusError([Problem(source, path, message)])


def parse_sheet(data: Any, source: str = "criteria sheet") -> Sheet:
    """A sheet from plain data; every key is checked, and an error names the key path."""
    if not isinstance(data, dict):
        raise _problem(source, "", f"must be a mapping with {', '.join(TOP_KEYS)}")
    unknown = sorted(set(data) - set(TOP_KEYS))
    if unknown:
        raise _problem(source, unknown[0], f"unknown key; a criteria sheet takes {', '.join(TOP_KEYS)}")
    if data.get("format") != FORMAT:
        raise _problem(source, "format", f"{data.get('format')!r} is not {FORMAT!r}")
    document = data.get("document")
    if not isinstance(document, str) or not document.strip():
        raise _problem(source, "document", "give the document id the sheet is for")
    clauses = data.get("clauses")
    if not isinstance(clauses, list) or not clauses:
        raise _problem(source, "clauses", "give a list of clause entries (as `clauseguard criteria draft` writes)")
    entries = []
    seen: set[str] = set()
    for i, raw in enumerate(clauses):
        path = f"clauses[{i}]"
        if not isinstance(raw, dict):
            raise _problem(source, path, "must be a mapping with id, role and criteria")
        bad = sorted(set(raw) - set(ENTRY_KEYS))
        if bad:
            raise _problem(source, f"{path}.{bad[0]}", f"unknown key; a clause entry takes {', '.join(ENTRY_KEYS)}")
        clause_id = raw.get("id")
        if not isinstance(clause_id, str) or not clause_id.strip():
            raise _problem(source, f"{path}.id", "give the clause id (as cited, e.g. DOC.VERSION.3)")
        if clause_id in seen:
            raise _problem(source, f"{path}.id", f"clause {clause_id} has two entries; keep one")
        seen.add(clause_id)
        for key in ("role", "reason", "read_by", "text_sha256", "text"):
            if raw.get(key) is not None and not isinstance(raw[key], str):
                raise _problem(source, f"{path}.{key}", "must be text")
        holes = raw.get("holes") or []
        if not isinstance(holes, list):
            raise _problem(source, f"{path}.holes", "must be a list of {span, reason}")
        entries.append(Entry(clause_id, path, raw.get("role"), raw.get("reason"), raw.get("read_by"),
                             raw.get("text_sha256"), raw.get("text"), holes, raw.get("criteria")))
    version = data.get("version")
    return Sheet(document, entries, str(version) if version is not None else None, source)


def load_sheet(path: Path | str) -> Sheet:
    """Read a sheet file (YAML or JSON; scalars kept as written, as for a corpus file)."""
    return parse_sheet(read_data(Path(path)), str(path))


# --- spans -------------------------------------------------------------------------------------


def _offset(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value)
    return None


def with_span_text(raw: Any, text: str, path: str, problems: list[tuple[str, str]]) -> Any:
    """The criteria JSON with every `{start, end}` span given its text from the clause; offsets out of
    range, or a text that is not the clause's at those offsets, are listed as (key path, message)."""
    if isinstance(raw, list):
        return [with_span_text(v, text, f"{path}[{i}]", problems) for i, v in enumerate(raw)]
    if not isinstance(raw, dict):
        return raw
    out = {}
    for key, value in raw.items():
        where = f"{path}.{key}"
        if key == "span" and isinstance(value, dict) and set(value) <= {"start", "end", "text"}:
            out[key] = _span(value, text, where, problems)
        elif key == "span" and isinstance(value, str):
            out[key] = _quoted(value, text, where, problems)
        else:
            out[key] = with_span_text(value, text, where, problems)
    return out


def _span(value: dict[str, Any], text: str, where: str, problems: list[tuple[str, str]]) -> Any:
    start, end = _offset(value.get("start")), _offset(value.get("end"))
    if start is None or end is None or not 0 <= start < end <= len(text):
        problems.append((where, f"start and end must be whole numbers with 0 <= start < end <= {len(text)} "
                                f"(the clause's length)"))
        return value
    quoted = value.get("text")
    if quoted is not None and quoted != text[start:end]:
        problems.append((where, f"{quoted!r} is not the clause text at {start}..{end}; " + _closest(str(quoted), text)))
        return value
    return {"start": start, "end": end, "text": text[start:end]}


def _quoted(value: str, text: str, where: str, problems: list[tuple[str, str]]) -> Any:
    at = text.find(value)
    if not value.strip() or at < 0:
        problems.append((where, f"{value!r} is not a verbatim part of the clause text; " + _closest(value, text)))
        return value
    return {"start": at, "end": at + len(value), "text": value}


def _closest(quoted: str, text: str) -> str:
    """What would be valid: where the quote's text does sit, or the longest stretch it shares."""
    at = text.find(quoted)
    if at >= 0:
        return f"it sits at {at}..{at + len(quoted)}: write {{start: {at}, end: {at + len(quoted)}}}"
    from difflib import SequenceMatcher

    match = SequenceMatcher(None, text, quoted, autojunk=False).find_longest_match(0, len(text), 0, len(quoted))
    if match.size < 4:
        return "quote the clause exactly (same words, spelling and punctuation)"
    return (f"the longest verbatim stretch it shares is {text[match.a:match.a + match.size]!r} at "
            f"{match.a}..{match.a + match.size}; quote the clause exactly")


def offsets_only(raw: Any) -> Any:
    """The criteria JSON with every span reduced to `{start, end}` (no clause text copied)."""
    if isinstance(raw, list):
        return [offsets_only(v) for v in raw]
    if not isinstance(raw, dict):
        return raw
    out = {}
    for key, value in raw.items():
        if key == "span" and isinstance(value, dict) and "start" in value:
            out[key] = {"start": value["start"], "end": value["end"]}
        else:
            out[key] = offsets_only(value)
    return out


# --- writing -----------------------------------------------------------------------------------


class _Dumper(yaml.SafeDumper):
    """Block style, literal blocks for multi-line text, spans and short lists on one line."""


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value and not any(line != line.rstrip() for line in value.split("\n")) else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


def _dict(dumper: yaml.SafeDumper, value: dict[str, Any]) -> yaml.MappingNode:
    flow = set(value) <= {"start", "end", "text"} or set(value) <= {"length", "unit", "rolling"}
    return dumper.represent_mapping("tag:yaml.org,2002:map", value.items(), flow_style=flow)


def _list(dumper: yaml.SafeDumper, value: list[Any]) -> yaml.SequenceNode:
    flow = bool(value) and all(isinstance(v, str | int) and len(str(v)) <= 24 for v in value)  # codes, marks
    return dumper.represent_sequence("tag:yaml.org,2002:seq", value, flow_style=flow)


_Dumper.add_representer(str, _str)
_Dumper.add_representer(dict, _dict)
_Dumper.add_representer(list, _list)


def sheet_yaml(data: dict[str, Any], header: str = "") -> str:
    """A sheet as YAML, keys in the order given (deterministic: same data, same bytes)."""
    body = yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, default_flow_style=False, width=110)
    return header + body
