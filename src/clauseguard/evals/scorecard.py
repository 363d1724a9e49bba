"""The two-layer scorecard: retrieval and answer metrics of determinations, the search pass rule,
calibration, and the design's exact JSON document.

It owns every metric's definition (each function says it in one sentence) and judges citations and
retrieved clauses against the corpus it is given, never against the engine's own flags. It never
runs an engine (that is `runner.py`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any, Final

from clauseguard.evals.cases import Suite
from clauseguard.evals.corpus_facts import CorpusFacts
from clauseguard.evals.runner import DeterminationRun, Run, SearchRun
from clauseguard.evals.validate import InvalidCase, as_of_day
from clauseguard.evals.values import judge_values, released_kind

CHECKS: Final = ("exists", "verbatim", "in_effect", "applicable", "supports")
CALIBRATION_BINS: Final = 10
RATE_DIGITS: Final = 4
SECONDS_DIGITS: Final = 6


# --- small numeric pieces ----------------------------------------------------------------------


def ratio(numerator: float, denominator: float) -> float | None:
    """numerator / denominator, or None when there is nothing to divide by (a metric with no cases)."""
    return None if denominator == 0 else numerator / denominator


def _rounded(value: float | None, digits: int = RATE_DIGITS) -> float | None:
    return None if value is None else round(value, digits)


def percentile(values: Sequence[float], q: float) -> float | None:
    """The q-quantile (0..1) by linear interpolation between the closest ranks (numpy's default); None if empty."""
    if not values:
        return None
    ordered = sorted(values)
    position = q * (len(ordered) - 1)
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def _distinct(ids: Iterable[Any]) -> list[str]:
    seen: dict[str, None] = {}
    for cid in ids:
        if isinstance(cid, str) and cid:
            seen.setdefault(cid, None)
    return list(seen)


def _entries(value: Any) -> list[Mapping[str, Any]]:
    return [e for e in value if isinstance(e, Mapping)] if isinstance(value, list) else []


def _score(entry: Mapping[str, Any]) -> float | None:
    value = entry.get("score")
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        return min(1.0, max(0.0, float(value)))
    return None


# --- determinations ----------------------------------------------------------------------------


@dataclass(frozen=True)
class DeterminationScore:
    """One determination case, judged."""

    run: DeterminationRun
    gate: str | None
    outcome: str | None
    reasons: tuple[str, ...]
    retrieved: tuple[str, ...]
    gold_retrieved: tuple[str, ...]
    stale_retrieved: tuple[str, ...]
    cited: tuple[str, ...]
    hallucinated: tuple[str, ...]
    stale_citations: tuple[str, ...]
    checks_passed: int
    checks_total: int
    failed_checks: tuple[str, ...]
    cost_usd: float
    pairs: tuple[tuple[float, int], ...] = field(default=())  # (score, is gold) for calibration

    @property
    def outcome_ok(self) -> bool:
        return self.outcome == self.run.case.expected_outcome

    @property
    def gate_ok(self) -> bool:
        return self.gate == self.run.case.expected_gate

    @property
    def passed(self) -> bool:
        return self.outcome_ok and self.gate_ok

    @property
    def false_auto_determine(self) -> bool:
        """The answer went out on its own (gate DETERMINE) with the wrong outcome."""
        return self.gate == "DETERMINE" and not self.outcome_ok

    @property
    def missed_review(self) -> bool:
        """DETERMINE where a human (REVIEW), a refusal or a HALT was expected, and the outcome happened to be right."""
        return self.gate == "DETERMINE" and self.run.case.expected_gate != "DETERMINE" and self.outcome_ok


def score_determination(run: DeterminationRun, facts: CorpusFacts) -> DeterminationScore:
    """Judge one answer: citations and retrieved clauses re-checked against the corpus on the case's date."""
    answer: Mapping[str, Any] = run.answer or {}
    day: date | None = as_of_day(run.case.request)
    gold = set(run.case.gold_clause_ids)

    retrieved_entries = _entries(answer.get("retrieved"))
    retrieved = _distinct(e.get("clause_id") for e in retrieved_entries)
    stale_retrieved = [] if day is None else [c for c in retrieved if not facts.in_effect(c, day)]

    citations = _entries(answer.get("citations"))
    cited = _distinct(c.get("clause_id") for c in citations)
    hallucinated = [c for c in cited if not facts.exists(c)]
    stale_citations = [] if day is None else [c for c in cited if facts.exists(c) and not facts.in_effect(c, day)]

    passed = total = 0
    failed: list[str] = []
    for citation in citations:
        checks = citation.get("checks")
        if not isinstance(checks, Mapping):
            continue
        for name, value in checks.items():
            if isinstance(value, bool):
                total += 1
                passed += value
                if not value:
                    failed.append(f"{citation.get('clause_id')}:{name}")

    pairs: list[tuple[float, int]] = []
    if gold:
        seen: set[str] = set()
        for entry in retrieved_entries:
            cid, score = entry.get("clause_id"), _score(entry)
            if isinstance(cid, str) and score is not None and cid not in seen:
                seen.add(cid)
                pairs.append((score, int(cid in gold)))

    cost = answer.get("cost_usd")
    reasons = tuple(
        str(r.get("text") or r.get("code") or "") for r in _entries(answer.get("reasons"))
    )
    gate = answer.get("gate")
    outcome = answer.get("outcome")
    return DeterminationScore(
        run=run,
        gate=gate if isinstance(gate, str) else None,
        outcome=outcome if isinstance(outcome, str) else None,
        reasons=reasons,
        retrieved=tuple(retrieved),
        gold_retrieved=tuple(c for c in run.case.gold_clause_ids if c in set(retrieved)),
        stale_retrieved=tuple(stale_retrieved),
        cited=tuple(cited),
        hallucinated=tuple(hallucinated),
        stale_citations=tuple(stale_citations),
        checks_passed=passed,
        checks_total=total,
        failed_checks=tuple(failed),
        cost_usd=float(cost) if isinstance(cost, (int, float)) and not isinstance(cost, bool) else 0.0,
        pairs=tuple(pairs),
    )


def retrieval_section(scores: Sequence[DeterminationScore]) -> dict[str, Any]:
    """Gold-clause recall (micro-averaged over cases with gold clauses), stale-retrieval rate
    (retrieved clauses not in effect on the governing date / retrieved clauses), clauses retrieved per case."""
    with_gold = [s for s in scores if s.run.case.gold_clause_ids]
    gold_total = sum(len(set(s.run.case.gold_clause_ids)) for s in with_gold)
    gold_found = sum(len(set(s.gold_retrieved)) for s in with_gold)
    retrieved = sum(len(s.retrieved) for s in scores)
    stale = sum(len(s.stale_retrieved) for s in scores)
    return {
        "gold_clause_recall": _rounded(ratio(gold_found, gold_total)),
        "stale_retrieval_rate": _rounded(ratio(stale, retrieved)),
        "clauses_retrieved_per_case": _rounded(ratio(retrieved, len(scores))),
    }


def answer_section(scores: Sequence[DeterminationScore]) -> dict[str, Any]:
    """The answer layer, each metric as the design defines it (see the properties above). Hallucinated
    and stale citations count distinct clause ids per case, summed over cases; latency is the answer's
    `timings.engine_s` (the call's wall time when it reports none); cost is the answer's optional
    `cost_usd` (0 when absent, as with no model)."""
    n = len(scores)
    refuse_expected = [s for s in scores if s.run.case.expected_gate == "REFUSE"]
    latencies = [s.run.engine_s for s in scores]
    return {
        "cases": n,
        "determination_accuracy": _rounded(ratio(sum(s.outcome_ok for s in scores), n)),
        "gate_correctness": _rounded(ratio(sum(s.gate_ok for s in scores), n)),
        "citation_faithfulness": _rounded(
            ratio(sum(s.checks_passed for s in scores), sum(s.checks_total for s in scores))
        ),
        "hallucinated_clause_count": sum(len(s.hallucinated) for s in scores),
        "stale_citation_count": sum(len(s.stale_citations) for s in scores),
        "appropriate_refusal_rate": _rounded(
            ratio(sum(s.gate == "REFUSE" for s in refuse_expected), len(refuse_expected))
        ),
        "false_auto_determine": sum(s.false_auto_determine for s in scores),
        "missed_review": sum(s.missed_review for s in scores),
        "p50_latency_s": _rounded(percentile(latencies, 0.50), SECONDS_DIGITS),
        "p95_latency_s": _rounded(percentile(latencies, 0.95), SECONDS_DIGITS),
        "usd_per_case": _rounded(ratio(sum(s.cost_usd for s in scores), n), SECONDS_DIGITS),
    }


def _determination_row(s: DeterminationScore) -> dict[str, Any]:
    case = s.run.case
    row: dict[str, Any] = {
        "case_id": case.case_id,
        "kind": "determination",
        "trap": case.trap,
        "passed": s.passed,
        "expected": {"gate": case.expected_gate, "outcome": case.expected_outcome},
        "actual": {"gate": s.gate, "outcome": s.outcome},
        "reasons": list(s.reasons),
        "reason_codes": [str(r.get("code")) for r in _entries((s.run.answer or {}).get("reasons")) if r.get("code")],
        "gold_clause_ids": list(case.gold_clause_ids),
        "gold_retrieved": list(s.gold_retrieved),
        "retrieved": len(s.retrieved),
        "stale_retrieved": list(s.stale_retrieved),
        "cited": list(s.cited),
        "hallucinated": list(s.hallucinated),
        "stale_citations": list(s.stale_citations),
        "checks": {"passed": s.checks_passed, "total": s.checks_total, "failed": list(s.failed_checks)},
        "false_auto_determine": s.false_auto_determine,
        "missed_review": s.missed_review,
        "engine_s": round(s.run.engine_s, SECONDS_DIGITS),
    }
    model = (s.run.answer or {}).get("model")
    if isinstance(model, Mapping):  # only when a model was configured
        row["model"] = model_row(model, s.run.answer or {})
    if s.run.error is not None:
        row["error"] = s.run.error
    return row


def model_row(model: Mapping[str, Any], answer: Mapping[str, Any]) -> dict[str, Any]:
    """Per case, what a model contributed: outputs accepted (by role) and rejected (with why),
    whether any was used, its cost and its time (the answer's `timings.model_s`)."""
    found, times = model.get("accepted"), answer.get("timings")
    accepted: Mapping[str, Any] = found if isinstance(found, Mapping) else {}
    timings: Mapping[str, Any] = times if isinstance(times, Mapping) else {}
    rejected = _entries(model.get("rejected"))
    return {
        "used": bool(model.get("used")),
        "accepted": sum(v for v in accepted.values() if isinstance(v, int)),
        "accepted_by_role": dict(accepted),
        "rejected": len(rejected),
        "rejections": [f"{r.get('role')} {r.get('subject')}: {r.get('why')}" for r in rejected],
        "notice": model.get("notice"),
        "usd": model.get("usd", 0.0),
        "latency_s": timings.get("model_s"),
    }


# --- searches ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class SearchScore:
    """One search case judged by the design's pass rule, with each failed part as a sentence."""

    run: SearchRun
    status_ok: bool
    version_ok: bool | None  # None for an expected error: there is no version to compare
    violations: tuple[str, ...]  # must-exclude ids found in the sources
    failures: tuple[str, ...]
    pairs: tuple[tuple[float, int], ...] = ()
    wrong_answers_released: int = 0  # parts answered with action none whose value contradicts expected_values
    released_kinds: tuple[str, ...] = ()  # each released wrong value, in structural words (see evals.values)
    # the case wanted a person (expected action "escalate to handler") and the answer went out with action
    # none: the search's missed_review, whatever its values say
    missed_escalation: bool = False

    @property
    def passed(self) -> bool:
        return not self.failures


def _contains_reason(answer: Any, reason: str) -> bool:
    """The expected reason appears in the answer text (case and spacing ignored)."""
    if not isinstance(answer, str):
        return False
    return " ".join(reason.split()).casefold() in " ".join(answer.split()).casefold()


def score_search(run: SearchRun) -> SearchScore:
    """A search case passes when the status matches (an unknown-contract error counts as `error`), and,
    for answered and refused cases, the applicable version and action match, every must-include id is
    in `sources`, no must-exclude id is (a violation), and an expected reason appears in the answer."""
    case = run.case
    response: Mapping[str, Any] = run.response or {}
    sources = _distinct(s.get("clause_id") for s in _entries(response.get("sources")))
    violations = tuple(c for c in case.must_exclude_clause_ids if c in sources)
    failures: list[str] = []
    status_ok = run.status == case.expected_status
    if not status_ok:
        detail = f" ({run.error})" if run.error else ""
        failures.append(f"status {run.status}{detail}, expected {case.expected_status}")
    version_ok: bool | None = None
    if case.expected_status != "error":
        version = response.get("applicable_version")
        version_ok = version == case.expected_applicable_version
        if not version_ok:
            failures.append(f"applicable_version {version!r}, expected {case.expected_applicable_version!r}")
        action = response.get("action")
        if action != case.expected_action:
            failures.append(f"action {action!r}, expected {case.expected_action!r}")
        missing = [c for c in case.must_include_clause_ids if c not in sources]
        if missing:
            failures.append(f"missing from sources: {', '.join(missing)}")
        if violations:
            failures.append(f"must-exclude in sources: {', '.join(violations)}")
        if case.expected_reason and not _contains_reason(response.get("answer"), case.expected_reason):
            failures.append(f"answer does not give the reason {case.expected_reason!r}")
    released = 0
    kinds: list[str] = []
    if case.expected_values and case.expected_status != "error":
        by_part = {str(p.get("part")): p for p in _entries(response.get("parts"))}
        for j in judge_values(case.expected_values, _entries(response.get("parts"))):
            if j.matches:
                continue
            if not j.answered:
                failures.append(f"value missing for {j.part!r}: unsettled, expected {j.expected!r}")
            elif j.stated is None:
                failures.append(f"value missing for {j.part!r}: answered without a stated value, expected {j.expected!r}")
            else:
                failures.append(f"wrong value for {j.part!r}: {j.stated!r}, expected {j.expected!r}")
                if response.get("action") == "none":
                    released += 1
                    text, clause = _answering(by_part, j.stated)
                    gold = "no gold clause" if not case.must_include_clause_ids else (
                        "answered from a gold clause" if clause in case.must_include_clause_ids else "answered from another clause")
                    form = "a yes-or-no question" if _YES_NO_FORM.match(str(j.part).split("?")[0].split(". ")[-1]) \
                        else "an open question"
                    split = f"the question read as {len(by_part)} parts" if len(by_part) > 1 else "one part"
                    kinds.append(f"{released_kind(j.stated, j.expected, text)}; {gold}; {form}; {split}; "
                                 f"{_engine_reading(_answering_part(by_part, j.stated))}; {_stated_shape(by_part, j.stated)}")

    pairs: list[tuple[float, int]] = []
    if case.must_include_clause_ids:
        include = set(case.must_include_clause_ids)
        seen: set[str] = set()
        for entry in _entries(response.get("sources")) + _entries(response.get("below_threshold")):
            cid, score = entry.get("clause_id"), _score(entry)
            if isinstance(cid, str) and score is not None and cid not in seen:
                seen.add(cid)
                pairs.append((score, int(cid in include)))
    missed = case.expected_status != "error" and case.expected_action != "none" and response.get("action") == "none"
    return SearchScore(run, status_ok, version_ok, violations, tuple(failures), tuple(pairs), released, tuple(kinds),
                       missed_escalation=missed)


# The form of a question part, for the released-value categories only (the judge's own words, not the engine's).
_YES_NO_FORM: Final = re.compile(r"^\s*(?:is|are|does|do|can|will|would|may|could|should|has|have)\b", re.I)


def _answering_part(parts: Mapping[str, Mapping[str, Any]], stated: str) -> str:
    for label, p in parts.items():
        value = p.get("value")
        if isinstance(value, Mapping) and str(value.get("value")) == stated:
            return label
    return ""


def _engine_reading(label: str) -> str:
    """How the engine reads the part's words (its aspect and the kind of value it asks): a diagnostic
    category for released wrong values, in structural words only."""
    from clauseguard.reading.extract import quantity_asked
    from clauseguard.retrieval.parts import asks_open, aspect_of

    aspect = aspect_of(label)
    return f"engine: aspect {aspect}, asks {quantity_asked(label, aspect)}, open {asks_open(label)}"


def _stated_shape(parts: Mapping[str, Mapping[str, Any]], stated: str) -> str:
    """The unit and counting window of the released value, in structural words."""
    for p in parts.values():
        value = p.get("value")
        if isinstance(value, Mapping) and str(value.get("value")) == stated:
            return f"unit {value.get('unit') or '-'}, window {'yes' if value.get('period') else 'no'}, " \
                   f"condition {'yes' if p.get('condition') else 'no'}"
    return ""


def _answering(parts: Mapping[str, Mapping[str, Any]], stated: str) -> tuple[str, str | None]:
    """The passage text (its sentence and excerpt) and clause id of the part that stated a value."""
    for p in parts.values():
        value = p.get("value")
        if isinstance(value, Mapping) and str(value.get("value")) == stated:
            return f"{value.get('text') or ''} {p.get('excerpt') or ''}", p.get("clause_id")
    return "", None


def search_section(scores: Sequence[SearchScore]) -> dict[str, Any]:
    """Pass rate, must-exclude violations (ids, summed over cases), status accuracy over every case,
    version accuracy over the cases expected to be answered or refused, and wrong_answer_released
    (parts answered with action none whose value contradicts the case's expected_values; must stay 0), and
    missed_escalation (cases that wanted a person answered with action none)."""
    versioned = [s for s in scores if s.version_ok is not None]
    return {
        "cases": len(scores),
        "pass_rate": _rounded(ratio(sum(s.passed for s in scores), len(scores))),
        "must_exclude_violations": sum(len(s.violations) for s in scores),
        "status_accuracy": _rounded(ratio(sum(s.status_ok for s in scores), len(scores))),
        "version_accuracy": _rounded(ratio(sum(bool(s.version_ok) for s in versioned), len(versioned))),
        "wrong_answer_released": sum(s.wrong_answers_released for s in scores),
        "missed_escalation": sum(s.missed_escalation for s in scores),
    }


def _search_row(s: SearchScore) -> dict[str, Any]:
    case = s.run.case
    response: Mapping[str, Any] = s.run.response or {}
    row: dict[str, Any] = {
        "case_id": case.case_id,
        "kind": "search",
        "trap": case.trap,
        "passed": s.passed,
        "expected": {
            "status": case.expected_status,
            "applicable_version": case.expected_applicable_version,
            "action": case.expected_action,
        },
        "actual": {
            "status": s.run.status,
            "applicable_version": response.get("applicable_version"),
            "action": response.get("action"),
        },
        "sources": _distinct(x.get("clause_id") for x in _entries(response.get("sources"))),
        "must_exclude_violations": list(s.violations),
        "wrong_answer_released": s.wrong_answers_released,
        "released_kinds": list(s.released_kinds),
        "failures": list(s.failures),
        "engine_s": round(s.run.engine_s, SECONDS_DIGITS),
    }
    if s.run.error is not None:
        row["error"] = s.run.error
    return row


# --- calibration -------------------------------------------------------------------------------


def calibration(pairs: Sequence[tuple[float, int]], bins: int = CALIBRATION_BINS) -> dict[str, float | None]:
    """Expected calibration error (equal-width bins, weighted by their share of pairs) and Brier score
    (mean squared gap between score and label)."""
    if not pairs:
        return {"ece": None, "brier": None}
    grouped: dict[int, list[tuple[float, int]]] = {}
    for score, label in pairs:
        grouped.setdefault(min(int(score * bins), bins - 1), []).append((score, label))
    ece = sum(
        len(members) / len(pairs)
        * abs(sum(s for s, _ in members) / len(members) - sum(lab for _, lab in members) / len(members))
        for members in grouped.values()
    )
    brier = sum((score - label) ** 2 for score, label in pairs) / len(pairs)
    return {"ece": round(ece, RATE_DIGITS), "brier": round(brier, RATE_DIGITS)}


def calibration_pairs(dets: Sequence[DeterminationScore], searches: Sequence[SearchScore]) -> list[tuple[float, int]]:
    """The labelled (score, relevant?) pairs the scores are judged on: every retrieved clause of a
    determination case with gold clauses (relevant = gold). Only when no such pair exists, the
    sources and below-threshold passages of search cases with must-include ids (relevant = must-include)."""
    pairs = [p for s in dets for p in s.pairs]
    return pairs if pairs else [p for s in searches for p in s.pairs]


# --- the document ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Scored:
    """Every run judged, kept for renderers; `document` is the design's JSON."""

    determinations: tuple[DeterminationScore, ...]
    searches: tuple[SearchScore, ...]
    document: dict[str, Any]


def build_scorecard(
    suite: Suite,
    runs: Sequence[Run],
    invalid: Sequence[InvalidCase],
    facts: CorpusFacts,
) -> Scored:
    """The design's scorecard: `case_set`, `corpus`, `invalid_cases`, then `retrieval` and `answer`
    (determination cases ran), `search` (search cases ran), `calibration` (labelled pairs exist), `per_case`."""
    dets = tuple(score_determination(r, facts) for r in runs if isinstance(r, DeterminationRun))
    searches = tuple(score_search(r) for r in runs if isinstance(r, SearchRun))
    doc: dict[str, Any] = {
        "case_set": {"count": suite.count, "hash": suite.hash},
        "corpus": {"fingerprint": facts.fingerprint},
        "invalid_cases": [i.as_json() for i in invalid],
    }
    if dets:
        doc["retrieval"] = retrieval_section(dets)
        doc["answer"] = answer_section(dets)
    if searches:
        doc["search"] = search_section(searches)
    pairs = calibration_pairs(dets, searches)
    if pairs:
        doc["calibration"] = calibration(pairs)
    rows = {r.run.case.case_id: _determination_row(r) for r in dets}
    rows.update({r.run.case.case_id: _search_row(r) for r in searches})
    doc["per_case"] = [rows[r.case.case_id] for r in runs]
    return Scored(dets, searches, doc)


TRAP_TOKEN: Final = re.compile(r"\bT\d+\b")


def trap_labels(trap: str) -> list[str]:
    """The trap tags a free-text trap names ("T1 stale-version + T4 compositional" -> T1, T4), else the text."""
    found = sorted(set(TRAP_TOKEN.findall(trap)), key=lambda t: int(t[1:]))
    return found or [trap.strip() or "(no trap)"]


def by_trap(per_case: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, int]]:
    """Cases and passes per trap tag (a case with two tags counts under both), tags in order."""
    table: dict[str, dict[str, int]] = {}
    for row in per_case:
        for label in trap_labels(str(row.get("trap") or "")):
            entry = table.setdefault(label, {"cases": 0, "passed": 0})
            entry["cases"] += 1
            entry["passed"] += bool(row.get("passed"))
    return dict(sorted(table.items(), key=lambda kv: (not TRAP_TOKEN.fullmatch(kv[0]), _trap_order(kv[0]))))


def _trap_order(label: str) -> tuple[int, str]:
    return (int(label[1:]), label) if TRAP_TOKEN.fullmatch(label) else (0, label)
