"""Reading corpus files: interchange v1 (YAML or JSON, one file or a folder) and imported formats.

YAML scalars are kept exactly as written (no YAML 1.1 coercion of `95249`, `NO` or dates); only
`null`/`~`/empty read as null. Loading either returns a whole valid corpus or raises CorpusError
with every problem found: nothing is half-loaded. Before a file is built into data its nesting,
alias expansion and integer sizes are checked against budgets (`parse_limits`), so hostile files
fail fast with the line and key path named, never with a traceback or the expanded content.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

from clauseguard import packed
from clauseguard.corpus.model import FORMAT_V1, Corpus
from clauseguard.corpus.parse_limits import (
    check_json_depth,
    check_yaml_budgets,
    huge_integer_problems,
    parse_json_int,
    shown_input,
)
from clauseguard.corpus.validate import check_corpus
from clauseguard.errors import CorpusError, Problem

CORPUS_SUFFIXES = (".yaml", ".yml", ".json")
DEMO = "demo"


# libyaml's parser when PyYAML was built with it (12-15x faster than the pure-Python one); the
# resolvers and constructors below are Python either way, so what is loaded is the same.
_SAFE_LOADER: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _TextKeepingLoader(_SAFE_LOADER):  # type: ignore[valid-type,misc]
    """SafeLoader that resolves only null implicitly: every other plain scalar stays a string."""


_TextKeepingLoader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag == "tag:yaml.org,2002:null"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def _construct_mapping_no_duplicates(loader: Any, node: yaml.MappingNode) -> dict[Any, Any]:
    loader.flatten_mapping(node)
    seen: dict[Any, Any] = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        if key in seen:
            mark = key_node.start_mark
            raise CorpusError(
                [Problem("", f"line {mark.line + 1}", f"key {key!r} appears twice in one mapping")]
            )
        seen[key] = loader.construct_object(value_node, deep=True)
    return seen


_TextKeepingLoader.add_constructor(
    yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping_no_duplicates
)
# The loader read_data uses; the budgets are checked with the same class's parser, so a switch to a
# libyaml-based loader (CSafeLoader) keeps them (tests/hostile/corpus/test_yaml_budgets.py runs both).
YAML_LOADER: type[yaml.SafeLoader] = _TextKeepingLoader


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise CorpusError([Problem("", "", f"key {key!r} appears twice in one object")])
        out[key] = value
    return out


def read_data(path: Path) -> Any:
    """Parse one YAML or JSON file into plain data, keeping scalars as written."""
    try:
        text = packed.read_text(path)
    except (OSError, UnicodeDecodeError, ValueError, EOFError) as exc:
        raise CorpusError([Problem(str(path), "", f"cannot be read: {exc}")]) from exc
    try:
        if packed.plain_name(path).endswith(".json"):
            check_json_depth(text, str(path))
            data = json.loads(text, object_pairs_hook=_no_duplicate_keys, parse_int=parse_json_int)
            huge = huge_integer_problems(data, str(path))
            if huge:
                raise CorpusError(huge)
            return data
        check_yaml_budgets(text, str(path), YAML_LOADER)
        return yaml.load(text, Loader=YAML_LOADER)  # noqa: S506 - a SafeLoader subclass
    except CorpusError as exc:
        raise CorpusError([Problem(str(path), p.path, p.message) for p in exc.problems]) from exc
    except json.JSONDecodeError as exc:
        raise CorpusError([Problem(str(path), f"line {exc.lineno}", f"not valid JSON: {exc.msg}")]) from exc
    except yaml.YAMLError as exc:
        raise CorpusError([Problem(str(path), "", f"not valid YAML: {exc}")]) from exc
    except (RecursionError, ValueError, MemoryError) as exc:  # a budget this module does not know of yet
        raise CorpusError([Problem(str(path), "", f"cannot be parsed within this loader's limits "
                                   f"({type(exc).__name__}); simplify the file")]) from exc


def format_loc(loc: tuple[int | str, ...]) -> str:
    """('documents', 3, 'versions', 1, 'effective_end') -> documents[3].versions[1].effective_end"""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + part
    return out


def _model_at(root: type[BaseModel], loc: tuple[int | str, ...]) -> type[BaseModel] | None:
    """The record class a validation location points into (to list the keys valid there)."""
    current: type[BaseModel] | None = root
    for part in loc:
        if current is None:
            return None
        if isinstance(part, int):
            continue
        field = current.model_fields.get(part)
        if field is None:
            return current
        current = _record_class(field.annotation)
    return current


def _record_class(annotation: Any) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in getattr(annotation, "__args__", ()) or ():
        found = _record_class(arg)
        if found is not None:
            return found
    metadata_origin = getattr(annotation, "__origin__", None)
    if metadata_origin is not None and metadata_origin is not annotation:
        return _record_class(metadata_origin)
    return None


def problems_from_validation(file: str, exc: ValidationError, root: type[BaseModel]) -> list[Problem]:
    """Turn pydantic's errors into problems that name the key path and what would be valid."""
    problems = []
    for err in exc.errors(include_url=False):
        loc = tuple(err["loc"])
        if err["type"] == "extra_forbidden":
            parent = _model_at(root, loc[:-1])
            valid = ", ".join(parent.model_fields) if parent else ""
            message = f"unknown key {loc[-1]!r}" + (f"; valid keys here: {valid}" if valid else "")
        elif err["type"] == "missing":
            message = "required key is missing"
        elif err["type"] == "value_error":
            message = str(err["ctx"]["error"]) if "ctx" in err else err["msg"]
        else:
            message = f"{err['msg']} (got {shown_input(err.get('input'))})"
        problems.append(Problem(file, format_loc(loc), message))
    return problems


def parse_v1(file: str, data: Any) -> Corpus:
    """One file's data as a v1 corpus record, or CorpusError naming every bad key path."""
    if not isinstance(data, dict):
        raise CorpusError([Problem(file, "", f"a corpus file is a mapping with 'format: {FORMAT_V1}'")])
    if data.get("format") != FORMAT_V1:
        raise CorpusError(
            [Problem(file, "format", f"expected '{FORMAT_V1}', got {data.get('format')!r}")]
        )
    try:
        return Corpus.model_validate(data)
    except ValidationError as exc:
        raise CorpusError(problems_from_validation(file, exc, Corpus)) from exc


Importer = Callable[[str, Any], Corpus]


def _importers() -> list[tuple[Callable[[Any], bool], Importer]]:
    from clauseguard.corpus.importers import mkrafa

    return [(mkrafa.detect, mkrafa.import_corpus)]


def parse_any(file: str, data: Any) -> Corpus:
    """A v1 file, or a file in a known foreign format (detected by its keys) imported to v1."""
    if isinstance(data, dict) and "format" in data:
        return parse_v1(file, data)
    for detect, convert in _importers():
        if detect(data):
            return convert(file, data)
    raise CorpusError(
        [Problem(file, "", f"not a corpus: a v1 file starts with 'format: {FORMAT_V1}'")]
    )


def corpus_files(path: Path) -> list[Path]:
    """The files a corpus path stands for: the file itself, or a folder's corpus files, sorted."""
    if path.is_dir():
        files = sorted(p for p in path.rglob("*")
                       if p.is_file() and Path(packed.plain_name(p)).suffix in CORPUS_SUFFIXES)
        if not files:
            raise CorpusError([Problem(str(path), "", "folder holds no .yaml, .yml or .json corpus file")])
        return files
    if not path.exists():
        raise CorpusError([Problem(str(path), "", "no such file or folder")])
    return [path]


def merge(parts: list[Corpus]) -> Corpus:
    """Concatenate the top-level lists of several files (duplicates are caught by validation)."""
    return Corpus(
        format=FORMAT_V1,
        payers=tuple(x for p in parts for x in p.payers),
        plans=tuple(x for p in parts for x in p.plans),
        contracts=tuple(x for p in parts for x in p.contracts),
        codes=tuple(x for p in parts for x in p.codes),
        documents=tuple(x for p in parts for x in p.documents),
    )


def load_path(path: Path | str) -> Corpus:
    """Load, check and normalise a corpus file or folder; raise CorpusError with every problem."""
    files = corpus_files(Path(path))
    parsed: list[tuple[str, Corpus]] = []
    problems: list[Problem] = []
    for file in files:
        try:
            parsed.append((str(file), parse_any(str(file), read_data(file))))
        except CorpusError as exc:
            problems.extend(exc.problems)
    if problems:
        raise CorpusError(problems)
    problems = check_corpus(parsed)
    if problems:
        raise CorpusError(problems)
    return merge([c for _, c in parsed]).normalised()


def demo_corpus_path() -> Path:
    """The bundled demo corpus folder (package data)."""
    return Path(str(resources.files("clauseguard") / "data" / "demo"))


def load_demo() -> Corpus:
    return load_path(demo_corpus_path())
