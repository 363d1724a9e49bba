"""Writing a corpus back out in the interchange format: one YAML (or JSON) file, same corpus, same bytes.

With the store's criteria revisions, each clause's newest approved revision is written as its
`criteria`, so a corpus moves between stores with its rules. It never writes a half file (write
beside, then rename) and never changes a clause's text.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Mapping
from datetime import date
from pathlib import Path
from typing import Any, Final

import yaml

from clauseguard.corpus.criteria import criteria_to_json
from clauseguard.corpus.model import Corpus

# Keys kept even when null: an open end and an open contract say something.
_KEEP_NULL: Final = frozenset({"effective_end", "end_date"})


def _plain(value: Any, key: str = "") -> Any:
    """Records as plain data (tuples as lists), dropping empty optional fields; `criteria` is kept as is."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if k == "criteria":
                if v is not None:
                    out[k] = v
                continue
            if (v is None and k not in _KEEP_NULL) or (isinstance(v, (list, tuple)) and not v and k != "clauses"):
                continue
            out[k] = _plain(v, k)
        return out
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def corpus_data(corpus: Corpus) -> dict[str, Any]:
    """The normalised corpus as plain data, keys in the model's field order."""
    data = corpus.normalised().model_dump(mode="python")
    plain = _plain(data)
    assert isinstance(plain, dict)
    return plain


class _Dumper(yaml.SafeDumper):
    """Block style; multi-line text as literal blocks; everything else as PyYAML's safe dumper quotes it."""


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value and not any(line != line.rstrip() for line in value.split("\n")) else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _str)


def corpus_yaml(corpus: Corpus) -> str:
    """The corpus as one interchange-format YAML text, with its fingerprint in a comment."""
    body = yaml.dump(
        corpus_data(corpus), Dumper=_Dumper, sort_keys=False, allow_unicode=True, default_flow_style=False, width=100
    )
    return f"# clauseguard corpus, interchange format v1\n# fingerprint {corpus.fingerprint()}\n{body}"


def corpus_json(corpus: Corpus) -> str:
    def _default(value: Any) -> str:
        if isinstance(value, date):
            return value.isoformat()
        raise TypeError(f"cannot write {type(value).__name__} as JSON")

    return json.dumps(corpus_data(corpus), indent=2, ensure_ascii=False, default=_default) + "\n"


def with_revisions(corpus: Corpus, revisions: Mapping[str, Any]) -> Corpus:
    """The corpus with each clause that has an approved criteria revision carrying it as its `criteria`
    (`revisions`: clause id -> revision, anything with `read(clause_text)`, clauseguard.authoring)."""
    if not revisions:
        return corpus
    documents = []
    for doc in corpus.documents:
        versions = []
        for version in doc.versions:
            clauses = tuple(
                c.model_copy(update={"criteria": criteria_to_json(revisions[c.id].read(c.text))})
                if c.id in revisions else c
                for c in version.clauses
            )
            versions.append(version.model_copy(update={"clauses": clauses}))
        documents.append(doc.model_copy(update={"versions": tuple(versions)}))
    return corpus.model_copy(update={"documents": tuple(documents)})


def export_corpus(corpus: Corpus, path: Path, revisions: Mapping[str, Any] | None = None) -> Path:
    """Write the corpus to `path` (JSON when it ends in .json, else YAML), replacing it whole; with
    `revisions`, each clause's approved revision as its `criteria`."""
    corpus = with_revisions(corpus, revisions or {})
    text = corpus_json(corpus) if path.suffix.lower() == ".json" else corpus_yaml(corpus)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".writing", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
        os.chmod(tmp_name, 0o644)
        os.replace(tmp_name, path)
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        raise
    return path
