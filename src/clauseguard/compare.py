"""Compare: one question against two targets (documents, versions, riders, plans, contracts).

Each side is answered like a search over its own scope; clauses of the two scopes are aligned by
kind, benefit and article, and their amounts, rates, durations and counts are compared as values.
It reports differences and unpaired clauses; it never decides which side is right.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import Final

from clauseguard.corpus.model import Clause, Corpus, Document, Version
from clauseguard.corpus.store import CorpusStore
from clauseguard.errors import NotFoundError, RequestError
from clauseguard.requests import CompareRequest, SearchRequest
from clauseguard.responses import CompareResponse, CompareSide, Difference, DifferenceSide
from clauseguard.retrieval import RetrievalIndex, split_question
from clauseguard.retrieval.tokens import article_number, content_terms
from clauseguard.search import answer_over, resolve_target
from clauseguard.versions import pick_version

TARGET_KINDS: Final = ("document", "rider", "plan", "contract")
ASPECT_OF_KIND: Final[dict[str, str]] = {
    "waiting_period": "waiting_period",
    "limit": "limit",
    "exclusion": "exclusion",
    "documents": "documents",
    "criteria": "condition",
}

_UNIT_DAYS: Final[dict[str, float]] = {"day": 1, "week": 7, "month": 30.4375, "year": 365.25}
_WORD_NUMBERS: Final[dict[str, float]] = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "eighteen": 18, "twenty": 20, "twenty-four": 24,
    "thirty": 30, "sixty": 60, "ninety": 90,
}
_NUM: Final = r"(?P<n>\d[\d,]*(?:\.\d+)?|" + "|".join(sorted(_WORD_NUMBERS, key=len, reverse=True)) + r")"
_VALUE_PATTERNS: Final[tuple[tuple[str, re.Pattern[str]], ...]] = (
    ("amount", re.compile(r"(?P<cur>[£$€]|\b(?:GBP|USD|EUR|CHF)\b)\s?(?P<n>\d[\d,]*(?:\.\d+)?)", re.I)),
    ("rate", re.compile(_NUM + r"\s?(?:%|per ?cent\b|percent\b)", re.I)),
    ("duration", re.compile(_NUM + r"(?:\s*\((?P<paren>\d+)\))?[\s-]*(?:calendar |consecutive |full )?(?P<u>day|week|month|year)s?\b", re.I)),
    ("count", re.compile(_NUM + r"(?:\s*\((?P<paren>\d+)\))?\s+(?P<what>sessions?|visits?|treatments?|units?|nights?|procedures?|implants?|pairs?|devices?|hearing aids?)\b", re.I)),
)


def _number(match: re.Match[str]) -> float:
    paren = match.groupdict().get("paren")
    raw = paren or match.group("n")
    raw = raw.lower().replace(",", "")
    return _WORD_NUMBERS[raw] if raw in _WORD_NUMBERS else float(raw)


def values_of(text: str) -> dict[str, tuple[str, ...]]:
    """The amounts, rates, durations and counts a clause states, normalised for comparison."""
    found: dict[str, set[str]] = defaultdict(set)
    taken: list[tuple[int, int]] = []
    for name, pattern in _VALUE_PATTERNS:
        for m in pattern.finditer(text):
            if any(m.start() < e and s < m.end() for s, e in taken):
                continue
            taken.append((m.start(), m.end()))
            value = _number(m)
            if name == "amount":
                cur = m.group("cur").upper().replace("£", "GBP").replace("$", "USD").replace("€", "EUR")
                found[name].add(f"{cur} {value:g}")
            elif name == "rate":
                found[name].add(f"{value:g}%")
            elif name == "duration":
                days = value * _UNIT_DAYS[m.group("u").lower()]
                found[name].add(f"{value:g} {m.group('u').lower()}(s) (~{days:.0f} days)")
            else:
                found[name].add(f"{value:g} {m.group('what').lower().rstrip('s')}")
    return {k: tuple(sorted(v)) for k, v in sorted(found.items())}


# ----------------------------------------------------------------------------- targets


@dataclass(frozen=True)
class SideScope:
    """The clauses one side of a comparison may use, and the date they are read on."""

    label: str
    eligible: tuple[str, ...]
    day: date
    reasons: dict[str, str]
    versions: dict[str, str]

    def reason(self, clause_id: str) -> str | None:
        if clause_id in self._eligible_set:
            return None
        return self.reasons.get(clause_id, f"not part of {self.label}")

    @property
    def _eligible_set(self) -> frozenset[str]:
        return frozenset(self.eligible)


def _document(corpus: Corpus, ident: str, kind: str) -> Document:
    doc = next((d for d in corpus.documents if d.id == ident), None)
    if doc is None:
        raise NotFoundError("document", ident)
    if kind == "rider" and doc.kind != "rider":
        raise RequestError("target", f"'{ident}' is a {doc.kind}, not a rider; use document:{ident}")
    return doc


def _pick_version(doc: Document, label: str | None, day: date | None) -> Version:
    found = pick_version(doc, label, day)
    if found is None:
        assert day is not None
        raise RequestError("as_of_date", f"no version of {doc.id} is in effect on {day.isoformat()}")
    return found


def _clauses(corpus: Corpus) -> dict[str, tuple[Document, Version, Clause]]:
    return {c.id: (d, v, c) for d in corpus.documents for v in d.versions for c in v.clauses}


def resolve_side(corpus: Corpus, target: str, as_of: date | None, field: str) -> SideScope:
    """A target string as the scope of clauses it stands for."""
    kind, _, rest = target.partition(":")
    if kind not in TARGET_KINDS or not rest:
        raise RequestError(field, f"'{target}' is not a target; use one of document:ID, document:ID@VERSION, "
                           "rider:ID, plan:ID, contract:ID")
    if kind in ("document", "rider"):
        ident, _, label = rest.partition("@")
        doc = _document(corpus, ident, kind)
        version = _pick_version(doc, label or None, as_of)
        ids = tuple(c.id for c in version.clauses)
        day = as_of if as_of is not None and version.covers(as_of) else version.effective_start
        return SideScope(target, ids, day, {}, {doc.id: version.version})
    request = (
        SearchRequest(question="compare", contract_id=rest, effective_date=as_of)
        if kind == "contract"
        else _plan_request(corpus, rest, as_of, field)
    )
    resolved = resolve_target(corpus, request)
    if resolved.eligibility is None:
        raise RequestError(field, resolved.uncovered or f"nothing governs {target}")
    elig = resolved.eligibility
    reasons = {cid: r for cid, r in elig.reasons.items() if r is not None}
    return SideScope(target, elig.eligible, elig.day, reasons, dict(resolved.applicable_versions or {}))


def _plan_request(corpus: Corpus, plan_id: str, as_of: date | None, field: str) -> SearchRequest:
    plan = next((p for p in corpus.plans if p.id == plan_id), None)
    if plan is None:
        raise NotFoundError("plan", plan_id)
    if as_of is None:
        raise RequestError("as_of_date", f"{field}: a plan target needs --as-of to pick the versions in effect")
    return SearchRequest(question="compare", payer_id=plan.payer, plan_id=plan.id, effective_date=as_of)


# ----------------------------------------------------------------------------- alignment


def _key(clause: Clause) -> tuple[str, str]:
    """Alignment key: kind and benefit when the clause names a benefit, else kind and article number."""
    kind = clause.kind or "other"
    if clause.benefit:
        return kind, f"benefit:{clause.benefit}"
    number = article_number(clause.article)
    if number:
        return kind, f"article:{number}"
    return kind, f"section:{clause.section.lower()}"


def _similarity(a: Clause, b: Clause) -> float:
    ta, tb = set(content_terms(a.text)), set(content_terms(b.text))
    return len(ta & tb) / max(1, len(ta | tb))


def align(a: Sequence[Clause], b: Sequence[Clause]) -> tuple[list[tuple[Clause, Clause]], list[Clause], list[Clause]]:
    """Pairs of counterpart clauses (same kind and benefit or article; most similar text first) and the rest."""
    pairs: list[tuple[Clause, Clause]] = []
    left = {c.id: c for c in a}
    right = {c.id: c for c in b}
    by_key_b: dict[tuple[str, str], list[Clause]] = defaultdict(list)
    for c in b:
        by_key_b[_key(c)].append(c)
    for c in a:
        options = [o for o in by_key_b.get(_key(c), []) if o.id in right]
        if not options:
            continue
        best = max(options, key=lambda o: (_similarity(c, o), o.id))
        pairs.append((c, best))
        del left[c.id], right[best.id]
    # A second pass by kind and text similarity catches renumbered articles without a benefit tag.
    for c in sorted(left.values(), key=lambda x: x.id):
        options = [o for o in right.values() if (o.kind or "other") == (c.kind or "other")]
        scored = [(s, o) for o in options if (s := _similarity(c, o)) >= 0.35]
        if scored:
            _, best = max(scored, key=lambda so: (so[0], so[1].id))
            pairs.append((c, best))
            del left[c.id], right[best.id]
    return pairs, sorted(left.values(), key=lambda x: x.id), sorted(right.values(), key=lambda x: x.id)


def _aspect(clause: Clause) -> str:
    return ASPECT_OF_KIND.get(clause.kind or "", "coverage")


def _value_aspect(name: str, clause: Clause, aspect: str) -> str:
    """Amounts, rates and counts are limits; a duration is a waiting period only in a waiting-period clause."""
    if name in ("amount", "rate", "count") and clause.kind != "exclusion":
        return "limit"
    return aspect


def _side(clause: Clause | None, value: str | None = None) -> DifferenceSide | None:
    if clause is None:
        return None
    if value is not None:
        return DifferenceSide(clause_id=clause.id, value=value)
    return DifferenceSide(clause_id=clause.id, text=clause.text)


def differences(pairs: list[tuple[Clause, Clause]], only_a: list[Clause], only_b: list[Clause]) -> tuple[list[Difference], list[str]]:
    """Point-by-point differences (values compared as values) and the clauses with no counterpart."""
    found: list[Difference] = []
    for ca, cb in pairs:
        if " ".join(ca.text.split()) == " ".join(cb.text.split()):
            continue
        va, vb = values_of(ca.text), values_of(cb.text)
        aspect = _aspect(ca)
        changed = [name for name in sorted(set(va) | set(vb)) if va.get(name) != vb.get(name)]
        for name in changed:
            a_val, b_val = ", ".join(va.get(name, ())) or "none stated", ", ".join(vb.get(name, ())) or "none stated"
            found.append(Difference(
                aspect=_value_aspect(name, ca, aspect), a=_side(ca, a_val), b=_side(cb, b_val),
                summary=f"{name}: {a_val} in {ca.id} vs {b_val} in {cb.id}",
            ))
        if not changed and not va and not vb:
            found.append(Difference(aspect=aspect, a=_side(ca), b=_side(cb),
                                    summary=f"wording differs between {ca.id} and {cb.id}"))
    not_compared: list[str] = []
    for side, clauses in (("a", only_a), ("b", only_b)):
        for c in clauses:
            if c.kind in ("exclusion", "limit", "waiting_period", "documents"):
                present, absent = (_side(c), None)
                found.append(Difference(
                    aspect=_aspect(c), a=present if side == "a" else absent, b=present if side == "b" else absent,
                    summary=f"{c.kind.replace('_', ' ')} {c.id} has no counterpart on side {'b' if side == 'a' else 'a'}",
                ))
            else:
                not_compared.append(c.id)
    return found, sorted(not_compared)


def compare(request: CompareRequest, *, corpus: Corpus, store: CorpusStore, index: RetrievalIndex) -> CompareResponse:
    """Each side's answer to the question, and how the two sides' terms differ."""
    sides = {name: resolve_side(corpus, getattr(request, name), request.as_of_date, name) for name in ("a", "b")}
    parts = split_question(request.question)
    clauses = _clauses(corpus)
    answered = {
        name: CompareSide(
            target=scope.label, as_of_date=scope.day.isoformat(), applicable_versions=scope.versions,
            **dict(answer_over(index, store, parts, scope, request.threshold, request.k,
                               corpus=corpus, question=request.question)),
        )
        for name, scope in sides.items()
    }
    pairs, only_a, only_b = align(
        [clauses[c][2] for c in sides["a"].eligible], [clauses[c][2] for c in sides["b"].eligible]
    )
    found, not_compared = differences(pairs, only_a, only_b)
    return CompareResponse(question=request.question, a=answered["a"], b=answered["b"], differences=found,
                           not_compared=not_compared)
