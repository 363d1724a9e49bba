"""Where an authored revision and the compiler both read a clause: do their trees ever answer differently?

Both trees are evaluated, by the evaluator's own rules (Kleene logic, populations, occasions,
waivers, routing, references), over generated case shapes: every criterion of either tree is set met,
not met or unknown, and the request is for each code the rules name. Criteria of the two trees that
quote the same stretch of the clause (or read the same in words) are one criterion, so a shape gives
them one value. A shape on which the clause's outcome differs is a disagreement, reported with the
shape. It never changes either tree and never judges a real request.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from clauseguard.corpus.criteria import Atom, Criteria, Ref, Service, Span, all_atoms, iter_atoms
from clauseguard.reading.evaluate import (  # the evaluator's own rules, with a shape standing in for the facts
    MET,
    NOT_MET,
    UNKNOWN,
    AtomResult,
    Value,
    _Evaluator,
    _Judged,
)
from clauseguard.reading.facts import FactSheet
from clauseguard.reading.lexicon import Lexicon, default_lexicon
from clauseguard.reading.references import References

MAX_SHAPES: Final = 2048
EXAMPLES: Final = 3


def _overlap(a: Span, b: Span) -> float:
    shared = min(a.end, b.end) - max(a.start, b.start)
    shortest = min(a.end - a.start, b.end - b.start)
    return shared / shortest if shortest > 0 and shared > 0 else 0.0


def _key(atom: Atom) -> tuple[str, int, int, str]:
    return (atom.kind, atom.span.start, atom.span.end, atom.label)


def _match(a: Atom, b: Atom) -> float:
    """How surely two criteria of the two trees are one: the same words, or the same stretch of text."""
    if a.label == b.label:
        return 3.0
    shared = _overlap(a.span, b.span)
    if a.kind == b.kind and shared >= 0.5:
        return 1.0 + shared
    longest = max(a.span.end - a.span.start, b.span.end - b.span.start)
    mutual = (min(a.span.end, b.span.end) - max(a.span.start, b.span.start)) / longest if longest else 0.0
    return mutual if mutual >= 0.8 else 0.0


class _Criteria:
    """The criteria of two trees as shared variables: each criterion of one side is paired with at most
    one of the other (the surest pairs first); a criterion written twice in one tree is one criterion."""

    def __init__(self, left: Iterable[Atom], right: Iterable[Atom]) -> None:
        lefts = {_key(a): a for a in left if not isinstance(a, Service)}
        rights = {_key(a): a for a in right if not isinstance(a, Service)}
        self.key: dict[tuple[str, int, int, str], int] = {}
        self.labels: list[str] = []
        for k, atom in lefts.items():
            self.key[k] = len(self.labels)
            self.labels.append(atom.label)
        pairs = sorted(((_match(a, b), ka, kb) for ka, a in lefts.items() for kb, b in rights.items()),
                       key=lambda p: (-p[0], p[1], p[2]))
        taken: set[tuple[str, int, int, str]] = set()
        for score, ka, kb in pairs:
            if score > 0 and kb not in self.key and ka not in taken:
                self.key[kb] = self.key[ka]
                taken.add(ka)
        for k, atom in rights.items():
            if k not in self.key:
                self.key[k] = len(self.labels)
                self.labels.append(atom.label)
        self.variables = sorted(set(self.key.values()))

    def of(self, atom: Atom) -> int | None:
        return self.key.get(_key(atom))

    def label(self, variable: int) -> str:
        return self.labels[variable]


class _ShapeEvaluator(_Evaluator):
    """The evaluator with the facts replaced by a shape: each criterion's value, and the requested code."""

    def __init__(self, criteria: Criteria, lexicon: Lexicon, references: References, here: str,
                 variables: _Criteria, shape: Mapping[int, Value], requested: str | None) -> None:
        super().__init__(criteria, FactSheet((), (), lexicon.fingerprint), lexicon, (), (), references, here)
        self.variables, self.shape, self.requested_code = variables, shape, requested

    def _atom(self, atom: Atom, role: Any, waived: frozenset[str]) -> _Judged:
        value: Value
        if isinstance(atom, Service):
            value = self._request_is(atom)
        else:
            variable = self.variables.of(atom)
            value = self.shape.get(variable, UNKNOWN) if variable is not None else UNKNOWN
        self.results[atom.id] = AtomResult(atom.id, atom.kind, atom.label, atom.span, role, value,
                                           missing=atom.label if value == UNKNOWN else None)
        if atom.id in waived:
            return _Judged(MET)
        return _Judged(value, [atom.label] if value == UNKNOWN else [])

    def _subject_match(self, service: Service) -> Value:
        return self._request_is(service)

    def _request_is(self, service: Service | None) -> Value:
        if service is None or not service.codes or self.requested_code is None:
            return MET  # a subject without codes is the document's service, as for a real request
        return MET if self.requested_code in service.codes else NOT_MET


@dataclass
class Disagreement:
    """The outcome of two trees over the same case shapes, and the shapes on which they differ."""

    clause_id: str
    shapes: int = 0
    disagreeing: int = 0
    examples: list[dict[str, Any]] = field(default_factory=list)

    @property
    def agree(self) -> bool:
        return self.disagreeing == 0

    def as_json(self) -> dict[str, Any]:
        return {"clause_id": self.clause_id, "shapes": self.shapes, "disagreeing": self.disagreeing,
                "examples": self.examples}


def _codes(criteria: Criteria) -> set[str]:
    return {c for a in all_atoms(criteria) if isinstance(a, Service) for c in a.codes}


def _shapes(variables: list[int]) -> Iterable[dict[int, Value]]:
    """Every assignment when there are few criteria; else a fixed sample (the same every run)."""
    values: tuple[Value, ...] = (MET, NOT_MET, UNKNOWN)
    if len(values) ** len(variables) <= MAX_SHAPES:
        for combo in itertools.product(values, repeat=len(variables)):
            yield dict(zip(variables, combo, strict=True))
        return
    pick = random.Random(17)  # noqa: S311 - a reproducible sample, not a secret
    every: tuple[dict[int, Value], ...] = ({v: MET for v in variables}, {v: NOT_MET for v in variables})
    yield from every
    for _ in range(MAX_SHAPES - 2):
        yield {v: pick.choice(values) for v in variables}


def disagreement(
    clause_id: str, compiled: Criteria, authored: Criteria, *, lexicon: Lexicon | None = None,
    siblings: Iterable[tuple[str, Criteria]] = (),
) -> Disagreement:
    """Both trees over generated case shapes; `siblings`: the other clauses a reference may name."""
    lex = lexicon or default_lexicon()
    others = [(cid, c) for cid, c in siblings if cid != clause_id]
    refs_compiled = References.of([*others, (clause_id, compiled)])
    refs_authored = References.of([*others, (clause_id, authored)])
    referred = _referred(compiled, clause_id, refs_compiled) + _referred(authored, clause_id, refs_authored)
    variables = _Criteria([*all_atoms(compiled), *referred], [*all_atoms(authored), *referred])
    codes: list[str | None] = [None, *sorted(_codes(compiled) | _codes(authored))]
    found = Disagreement(clause_id)
    for requested in codes:
        for shape in _shapes(variables.variables):
            left = _ShapeEvaluator(compiled, lex, refs_compiled, clause_id, variables, shape, requested).run()
            right = _ShapeEvaluator(authored, lex, refs_authored, clause_id, variables, shape, requested).run()
            found.shapes += 1
            if left.outcome == right.outcome:
                continue
            found.disagreeing += 1
            if len(found.examples) < EXAMPLES:
                found.examples.append({
                    "requested_code": requested,
                    "criteria": {variables.label(v): value for v, value in sorted(shape.items())},
                    "compiler": left.outcome, "authored": right.outcome,
                })
    return found


def _referred(criteria: Criteria, here: str, refs: References) -> list[Atom]:
    """The atoms of the criteria a tree's references name (in this clause or another)."""
    from clauseguard.authoring.check import nodes_with_paths

    found: list[Atom] = []
    for _, node in nodes_with_paths(criteria):
        if isinstance(node, Ref):
            target, _note = refs.resolve(node, here)
            found.extend(iter_atoms(target))
    return found
