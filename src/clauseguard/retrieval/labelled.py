"""Labelled retrieval questions and the (features, relevant?) pairs calibration is fitted and reported on.

The FIT sets: the questions written for the bundled demo corpus (`data/calibration/demo-questions.json`)
and the house-style suites' dev search questions (`evals/styles/<style>/dev/search.json`, written
blind over corpora in four other house styles). The REPORT sets: the external suite's determination
cases (question + gold_clause_ids, read in place, never copied) and the styles' holdout halves,
scored only through `clauseguard.evals.holdout`. Pairs come from the candidates' fused order, so they
do not depend on the calibration being fitted.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import date
from importlib import resources
from pathlib import Path
from typing import Any, Final, NamedTuple

import numpy as np

from clauseguard.corpus.model import Corpus
from clauseguard.errors import ClauseguardError
from clauseguard.reading.stated import what_it_states
from clauseguard.retrieval.calibration import FEATURES
from clauseguard.retrieval.eligible import eligible_mask
from clauseguard.retrieval.index import RetrievalIndex
from clauseguard.retrieval.parts import split_question
from clauseguard.retrieval.retrieve import answer_kinds, as_part, candidates
from clauseguard.versions import Eligibility, eligibility, eligibility_under_terms, governing_terms

PAIRS_PER_QUESTION: Final = 5


class LabelledQuestion(NamedTuple):
    """A question part, the request that selects the eligible clauses, and the clauses that answer it."""

    id: str
    question: str
    gold_clause_ids: tuple[str, ...]
    contract_id: str | None = None
    payer_id: str | None = None
    plan_id: str | None = None
    effective_date: date | None = None


class Pairs(NamedTuple):
    """Parallel arrays: one row per (question, retrieved clause)."""

    question_ids: list[str]
    clause_ids: list[str]
    features: np.ndarray
    labels: np.ndarray  # 1 relevant, 0 not
    ranks: np.ndarray


def fit_set_path() -> Path:
    return Path(str(resources.files("clauseguard") / "data" / "calibration" / "demo-questions.json"))


def _day(value: Any) -> date | None:
    return date.fromisoformat(value) if value else None


def load_questions(path: Path | None = None) -> list[LabelledQuestion]:
    """The labelled question file (default: the demo fit set)."""
    data = json.loads((path or fit_set_path()).read_text(encoding="utf-8"))
    return [
        LabelledQuestion(
            id=q["id"],
            question=q["question"],
            gold_clause_ids=tuple(q["gold_clause_ids"]),
            contract_id=q.get("contract_id"),
            payer_id=q.get("payer_id"),
            plan_id=q.get("plan_id"),
            effective_date=_day(q.get("effective_date")),
        )
        for q in data["questions"]
    ]


def external_report_questions(folder: Path, *, with_codes: bool = False) -> list[LabelledQuestion]:
    """The external suite's determination cases as labelled questions (read in place).

    The query is the case's question as asked (the pipeline's `resolve` step maps the procedure
    codes to governing documents before retrieval); `with_codes` appends the codes to the query.
    """
    found: list[LabelledQuestion] = []
    for name in ("seed.json", "generated.json"):
        path = Path(folder) / name
        if not path.exists():
            continue
        for case in json.loads(path.read_text(encoding="utf-8")).get("cases", []):
            if "gold_clause_ids" not in case:
                continue
            try:
                day = date.fromisoformat(str(case.get("as_of_date", "")))
            except ValueError:
                continue  # a malformed date is a HALT case, not a retrieval question
            codes = [str(c) for c in case.get("procedure_codes") or []]
            text = str(case.get("question", ""))
            if with_codes and codes:
                text = f"{text} {' '.join(codes)}"
            found.append(
                LabelledQuestion(
                    id=str(case["case_id"]),
                    question=text,
                    gold_clause_ids=tuple(case["gold_clause_ids"]),
                    payer_id=str(case.get("payer_id") or ""),
                    plan_id=str(case.get("plan_id") or ""),
                    effective_date=day,
                )
            )
    return found


def eligibility_of(corpus: Corpus, question: LabelledQuestion) -> Eligibility:
    """The eligible clauses of the question's request, decided by the version rules."""
    if question.contract_id:
        return eligibility_under_terms(
            corpus, governing_terms(corpus, question.contract_id, question.effective_date)
        )
    if not question.plan_id or question.effective_date is None:
        raise ValueError(f"labelled question {question.id}: give contract_id, or plan_id and effective_date")
    return eligibility(
        corpus, plan_id=question.plan_id, day=question.effective_date, payer_id=question.payer_id or None
    )


def check_labels(corpus: Corpus, questions: Iterable[LabelledQuestion]) -> list[str]:
    """Every gold clause must exist and be eligible for its question's request; one line per problem."""
    problems = []
    for q in questions:
        try:
            decided = eligibility_of(corpus, q)
        except (ClauseguardError, ValueError) as exc:
            problems.append(f"{q.id}: request does not resolve: {exc}")
            continue
        allowed = set(decided.eligible)
        for cid in q.gold_clause_ids:
            if cid not in allowed:
                problems.append(
                    f"{q.id}: gold clause {cid} is not eligible ({decided.reasons.get(cid, 'unknown id')})"
                )
        if len(split_question(q.question)) != 1:
            problems.append(f"{q.id}: a labelled question must be one part; split it")
    return problems


def labelled_pairs(
    index: RetrievalIndex,
    corpus: Corpus,
    questions: Iterable[LabelledQuestion],
    per_question: int = PAIRS_PER_QUESTION,
) -> Pairs:
    """The top `per_question` candidates of each question (by fused rank, under its eligibility mask),
    each labelled relevant when it is a gold clause. Questions whose request does not resolve are skipped."""
    qids: list[str] = []
    cids: list[str] = []
    rows: list[np.ndarray] = []
    labels: list[int] = []
    ranks: list[int] = []
    for q in questions:
        try:
            mask = eligible_mask(index, eligibility_of(corpus, q))
        except (ClauseguardError, ValueError):
            continue
        # A labelled question is one part; a report-set question that splits is asked whole.
        parts = split_question(q.question)
        part = parts[0] if len(parts) == 1 else as_part(q.question)
        found = candidates(index, part, mask, per_question)
        if found is None:
            continue
        gold = set(q.gold_clause_ids)
        feats = found.features()
        for i in np.argsort(found.rank)[:per_question].tolist():
            cid = index.clauses.rows[int(found.rows[i])].clause_id
            qids.append(q.id)
            cids.append(cid)
            rows.append(feats[i])
            labels.append(int(cid in gold))
            ranks.append(int(found.rank[i]))
    matrix = np.vstack(rows) if rows else np.zeros((0, len(FEATURES)))
    return Pairs(qids, cids, matrix, np.asarray(labels, dtype=np.int64), np.asarray(ranks, dtype=np.int64))


def search_case_questions(path: Path, corpus: Corpus, prefix: str = "") -> list[LabelledQuestion]:
    """A search suite's answered and refused cases as labelled questions, one per question part:
    the part's query, the case's request, and its must-include clauses as the gold (a refused case
    has none, so every candidate of it is a negative). In a question of several parts, a gold clause
    is the gold of the parts its text can answer (it states a value of the kind the part asks), or of
    every part when it answers none. Read in place; the holdout halves never come here."""
    texts = {c.id: c.text for d in corpus.documents for v in d.versions for c in v.clauses}
    found: list[LabelledQuestion] = []
    for case in json.loads(Path(path).read_text(encoding="utf-8")).get("cases", []):
        if case.get("expected_status") not in ("answered", "refused"):
            continue
        every = tuple(case.get("must_include_clause_ids") or ())
        parts = split_question(str(case.get("question", "")))
        for i, part in enumerate(parts):
            gold = every
            if len(parts) > 1:
                wanted = answer_kinds(part)
                own = tuple(g for g in every if wanted & what_it_states(texts.get(g, "")))
                gold = own or every
            found.append(
                LabelledQuestion(
                    id=f"{prefix}{case['case_id']}#{i}",
                    question=part.text,
                    gold_clause_ids=gold,
                    contract_id=case.get("contract_id"),
                    payer_id=case.get("payer_id"),
                    plan_id=case.get("plan_id"),
                    effective_date=_day(case.get("effective_date")),
                )
            )
    return found
