"""The readers' judges for the blind suites' non-case files, registered with the holdout runner.

A policy phrasebook (sentences with expected trees), a roles file (blind role labels: the compile
rate's denominator) and expected trees by offsets (the real CMS text) are judged here, each reporting
only counts (exact / refused / wrong, per category), so a holdout half can be scored without showing
its text. The note phrasebook's judge is evals/note_phrasebook.py, registered here.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from clauseguard import packed
from clauseguard.corpus.criteria import Criteria
from clauseguard.evals.holdout import EXTRA_SCORERS, Part, resolve
from clauseguard.evals.note_phrasebook import score_note_phrasebook
from clauseguard.evals.policy_phrasebook import judge_tree

DECIDING_ROLES = frozenset({"criteria", "limitation", "exclusion"})


def _compiled(text: str) -> Criteria | None:
    from clauseguard.reading.grammar import Refusal, compile_clause

    got = compile_clause(text)
    return None if isinstance(got, Refusal) else got


def _category(why: str) -> str:
    """A wrong verdict's kind, without the words of the sentence."""
    for key in ("effect", "subject", "population", "trigger", "when", "rule(s)", "amendment", "refuse", "decides nothing"):
        if key in why:
            return key
    return "other"


def score_policy_phrasebook(path: Path | str) -> dict[str, Any]:
    """exact / refused / wrong over a v2 policy phrasebook, by style, with the kinds of wrong."""
    data = yaml.safe_load(packed.read_text(path))
    counts: Counter[str] = Counter()
    wrong: Counter[str] = Counter()
    for entry in data["sentences"]:
        verdict = judge_tree(entry["text"], entry["expected"], _compiled(entry["text"]))
        counts[verdict.category] += 1
        if verdict.category == "wrong":
            wrong[_category(verdict.why)] += 1
    return {"entries": sum(counts.values()), **{k: counts.get(k, 0) for k in ("exact", "refused", "wrong")},
            "wrong_kinds": dict(wrong.most_common())}


def _clause_records(corpus_path: Path | str) -> dict[str, Any]:
    from clauseguard.corpus.loader import load_demo, load_path

    corpus = load_demo() if corpus_path == "demo" else load_path(corpus_path)
    return {c.id: c for d in corpus.documents for v in d.versions for c in v.clauses}


def _clauses(corpus_path: Path | str) -> dict[str, str]:
    return {cid: c.text for cid, c in _clause_records(corpus_path).items()}


def compile_rate(corpus_path: Path | str, roles_path: Path | str) -> dict[str, Any]:
    """Compiled deciding clauses / deciding clauses, where "deciding" is the blind role label; and how the
    reader's own roles agree with the labels: `overcalled` (read as deciding, labelled not: the clause
    refuses a request it should not) and `undercalled` (labelled deciding, read as not: it would decide
    nothing, a safety failure, and it never counts as compiled)."""
    from clauseguard.reading.grammar import Refusal, read_clause
    from clauseguard.reading.roles import clause_headings

    roles: Mapping[str, str] = yaml.safe_load(packed.read_text(roles_path))
    clauses = _clause_records(corpus_path)
    texts = {cid: c.text for cid, c in clauses.items()}
    reads = {cid: read_clause(texts[cid], clauses[cid].kind, None, clause_headings(clauses[cid]))
             for cid in roles if cid in texts}
    deciding = [cid for cid, role in roles.items() if role in DECIDING_ROLES and cid in texts]
    compiled = sum(1 for cid in deciding if reads[cid].deciding and not isinstance(reads[cid].result, Refusal))
    over = sum(1 for cid, r in reads.items() if r.deciding and roles[cid] not in DECIDING_ROLES)
    under = sum(1 for cid, r in reads.items() if not r.deciding and roles[cid] in DECIDING_ROLES)
    return {"clauses": len(roles), "deciding": len(deciding), "compiled_deciding": compiled,
            "compile_rate": round(compiled / len(deciding), 4) if deciding else None,
            "roles": {"same_role": sum(1 for cid, r in reads.items() if r.role == roles[cid]),
                      "same_deciding": len(reads) - over - under, "overcalled": over, "undercalled": under}}


def score_expected_trees(corpus_path: Path | str, trees_path: Path | str) -> dict[str, Any]:
    """exact / refused / wrong of the compiled deciding clauses against trees written by offsets."""
    from clauseguard.reading.grammar import Refusal, read_clause
    from clauseguard.reading.roles import clause_headings

    data = yaml.safe_load(packed.read_text(trees_path))
    clauses = _clause_records(corpus_path)
    counts: Counter[str] = Counter()
    wrong: Counter[str] = Counter()
    for cid, entry in data["clauses"].items():
        # read as the engine reads it: with the clause's kind and headings (an article title may say what it is for)
        got = read_clause(clauses[cid].text, clauses[cid].kind, None, clause_headings(clauses[cid])).result
        verdict = judge_tree(clauses[cid].text, entry["expected"], None if isinstance(got, Refusal) else got)
        counts[verdict.category] += 1
        if verdict.category == "wrong":
            wrong[_category(verdict.why)] += 1
    return {"clauses": sum(counts.values()), **{k: counts.get(k, 0) for k in ("exact", "refused", "wrong")},
            "wrong_kinds": dict(wrong.most_common())}


def _phrasebook_scorer(root: Path, part: Part) -> dict[str, Any] | None:
    if part.phrasebook is None or "notes" in part.phrasebook:
        return None
    return score_policy_phrasebook(root / part.phrasebook)


def _roles_scorer(root: Path, part: Part) -> dict[str, Any] | None:
    if part.roles is None:
        return None
    return compile_rate(resolve(root, part.corpus), root / part.roles)


EXTRA_SCORERS.extend([("note_phrasebook", score_note_phrasebook), ("policy_phrasebook", _phrasebook_scorer),
                      ("compile_rate", _roles_scorer)])
