"""The criteria revisions an audited answer was made with, fetched again for its replay.

An answer records, in its settings, the id of every criteria revision in use (clause id -> revision
id). A replay reads those rows from the store the answer came from, checks each against its id and
content hash, and copies the intact ones into the replay's own store, so the reader and the cold
verifier of the replay read the same revisions. A row that no longer matches is reported and never
used (its clause is replayed without it); a revision approved later is never picked up. It never
writes to the answer's store.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from clauseguard.authoring.revisions import Revision, RevisionLog, open_log, store_path


@dataclass
class Pinned:
    """The revisions to replay with, and what was wrong with the recorded ones."""

    revisions: dict[str, Revision] = field(default_factory=dict)
    tampered: list[str] = field(default_factory=list)  # revision ids whose row no longer matches
    missing: list[str] = field(default_factory=list)  # revision ids the answer's store no longer holds


def recorded_revisions(settings: Mapping[str, Any]) -> dict[str, str]:
    """Clause id -> revision id, as an answer's settings recorded them (empty: none in use)."""
    found = settings.get("criteria_revisions") or {}
    return {str(k): str(v) for k, v in sorted(found.items())} if isinstance(found, Mapping) else {}


def pin(recorded: Mapping[str, str], answer_store: Any, replay_store: Any) -> Pinned:
    """Fetch the recorded revisions from `answer_store` (the store the answer came from, opened again;
    None when it can no longer be) and copy the intact ones into `replay_store`."""
    pinned = Pinned()
    if not recorded:
        return pinned
    log = open_log(answer_store) if answer_store is not None else None
    if log is None:
        pinned.missing = sorted(recorded.values())
        return pinned
    with log:
        fetched = {cid: log.get(rid) for cid, rid in recorded.items()}
    source, target = store_path(answer_store), store_path(replay_store)
    for clause_id, rid in sorted(recorded.items()):
        revision = fetched[clause_id]
        if revision is None:
            pinned.missing.append(rid)
            continue
        if revision.problems() or revision.clause_id != clause_id:
            pinned.tampered.append(rid)  # never used: the clause is replayed as if it had no revision
            continue
        if target is not None and (source is None or target.resolve() != source.resolve()):
            with RevisionLog(target) as into:
                into.import_revision(revision)
        pinned.revisions[clause_id] = revision
    return pinned
