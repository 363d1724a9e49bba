"""The one way a shipped data file (YAML) is parsed: libyaml's safe loader when PyYAML was built
with it, else the pure-Python safe loader. Both build the same plain values from these files; the C
one is several times faster, which a one-shot CLI command feels on every start."""

from __future__ import annotations

from typing import Any, Final

import yaml

SAFE_LOADER: Final[type[yaml.SafeLoader]] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load_yaml(text: str | bytes) -> Any:
    """The plain value of a YAML document (safe tags only)."""
    return yaml.load(text, Loader=SAFE_LOADER)  # noqa: S506 - a safe loader


class TermLoader(SAFE_LOADER):  # type: ignore[misc,valid-type]
    """The safe loader that never reads a word as a boolean: YAML 1.1 turns `no`, `yes`, `on` into
    bools, and a lexicon's terms and cues are words."""


TermLoader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:bool"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def load_terms(text: str | bytes) -> Any:
    """The plain value of a vocabulary file, every word kept as text."""
    return yaml.load(text, Loader=TermLoader)  # noqa: S506 - a safe loader
