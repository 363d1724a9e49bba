"""Content hashes of a version's clause set: what the store seals, the audit row records and replay checks.

A seal is the SHA-256 of the version's clauses in their order, as canonical JSON. It depends on the
clauses alone: closing an open-ended version (the one change history allows, a timeline event) never
changes it. It never reads a database and never decides anything on its own.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from typing import Any

from clauseguard.corpus.model import Clause, Corpus


def version_key(document_id: str, version: str) -> str:
    """How a version is named in seals and audit rows: `DOCUMENT@VERSION`."""
    return f"{document_id}@{version}"


def clause_set_hash(clauses: Iterable[Clause]) -> str:
    """The seal of one version's clause set, in the document's order."""
    data = [c.model_dump(mode="json", exclude_none=False) for c in clauses]
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def corpus_seals(corpus: Corpus) -> dict[str, str]:
    """Every version of the corpus and its seal."""
    return {
        version_key(d.id, v.version): clause_set_hash(v.clauses) for d in corpus.documents for v in d.versions
    }


def cited_ids(response: Mapping[str, Any]) -> list[str]:
    """Clause ids an answer cites (determination citations, search sources), sorted."""
    ids = [c["clause_id"] for c in response.get("citations", []) or []]
    ids += [s["clause_id"] for s in response.get("sources", []) or []]
    return sorted(set(ids))


def cited_version_seals(corpus: Corpus, response: Mapping[str, Any]) -> dict[str, str]:
    """The seal of every version an answer cites a clause of: what its audit row records."""
    wanted = set(cited_ids(response))
    out: dict[str, str] = {}
    for document in corpus.documents:
        for version in document.versions:
            if any(c.id in wanted for c in version.clauses):
                out[version_key(document.id, version.version)] = clause_set_hash(version.clauses)
    return dict(sorted(out.items()))
