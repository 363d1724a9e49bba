"""Rider amendments resolved against a base clause: which of its criteria a rider's words name.

It never decides whether a rider is attached or in effect (resolution does) and never rewrites a tree:
evaluation reads the overrides, so a rider that waives one criterion leaves the others standing.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

from clauseguard.corpus.criteria import (
    AllOf,
    Amendment,
    AmendmentAction,
    AnyOf,
    Atom,
    Condition,
    Count,
    Criteria,
    Documentation,
    Duration,
    Measure,
    Node,
    Not,
    Routing,
    Service,
    Treatment,
    Waiver,
    iter_atoms,
)
from clauseguard.reading.lexicon import Lexicon, default_lexicon, normalise

# Grammar words for requirement names, not domain terms: a head noun that names "the requirement".
_HEADS = frozenset({"requirement", "requirements", "criterion", "criteria", "limitation", "limitations", "limit",
                    "limits", "the", "a", "an", "of", "for", "in", "on", "to", "and", "or", "described", "policy"})
_LIMIT_WORDS = frozenset({"quantity", "quantities", "limitation", "limit", "frequency", "supply", "units", "unit"})


@dataclass(frozen=True)
class Override:
    """An amendment applied to one clause: the atoms it names there, and what it does to them."""

    action: AmendmentAction
    atom_ids: tuple[str, ...]
    amendment: Amendment
    rider_clause: str | None = None

    def replacement_for(self, atom: Atom) -> Atom | None:
        """The atom evaluation uses instead of `atom` (a count keeps its direction when the window matches)."""
        new = self.amendment.replacement
        if self.action != "replace" or atom.id not in self.atom_ids or not isinstance(new, Atom):
            return None
        if isinstance(new, Measure) and new.quantity == "the value" and hasattr(atom, "value"):
            # "is raised to 89 percent": the criterion keeps its kind and direction, with the new value
            return dataclasses.replace(atom, value=new.value)  # type: ignore[call-arg]
        if isinstance(atom, Count) and isinstance(new, Count) and atom.per == new.per:
            return dataclasses.replace(atom, value=new.value)
        return dataclasses.replace(new, id=atom.id)


def resolve_amendment(criteria: Criteria, amendment: Amendment, lexicon: Lexicon | None = None,
                      rider_clause: str | None = None) -> Override | None:
    """The atoms of `criteria` that the amendment's named requirement means; None when it names none."""
    lex = lexicon or default_lexicon()
    atoms = [a for a in _requirements(criteria, _population_concepts(amendment), lex) if not isinstance(a, Service)]
    name = normalise(amendment.requirement)
    new = amendment.replacement
    hits: list[Atom]
    if amendment.action == "replace" and isinstance(new, Count) and set(name.split()) & _LIMIT_WORDS:
        hits = [a for a in atoms if isinstance(a, Count) and _same_item(lex, a.item, new.item)]
    else:
        named = [m.name for m in lex.find_concepts(name)]
        hits = []
        for a in atoms:
            concept = _concept(a)
            if concept is not None and any(_same(lex, concept, n) for n in named):
                hits.append(a)
        if not hits:
            want = _words(name)
            scored = [(len(want & (_words(a.span.text) | _words(a.label))), a) for a in atoms]
            top = max((s for s, _ in scored), default=0)
            hits = [a for s, a in scored if s == top and s > 0]
    old_value = _replaced_value(amendment.span.text, lex) if isinstance(new, Count) else None
    if old_value is not None:
        # "raised from twenty (20) to thirty (30)" names the limit it changes: a count with another
        # value in the same clause (the tenth visit that triggers a progress note) is not that limit
        hits = [a for a in hits if not isinstance(a, Count) or a.value == old_value]
    if not hits:
        return None
    # a course's own details ("three or more per day with self-adjustment") go with the course
    ids = [a.id for a in hits]
    for course in [a for a in hits if isinstance(a, Duration)]:
        ids.extend(a.id for a in atoms if a.id not in ids and course.span.start <= a.span.start
                   and a.span.end <= course.span.end)
    return Override(amendment.action, tuple(ids), amendment, rider_clause)


def _replaced_value(text: str, lex: Lexicon) -> float | None:
    """The old value a replacement states ("from twenty (20) to thirty (30)" -> 20), or None."""
    words = lex.number_words()
    number = r"(?:\d+(?:\.\d+)?|[a-z]+(?:-[a-z]+)?)(?:\s*\(\s*\d+(?:\.\d+)?\s*\))?"
    m = re.search(rf"\bfrom\s+(?P<old>{number})\s+(?:[a-z]+\s+){{0,3}}?to\s+(?P<new>{number})", normalise(text))
    if m is None:
        return None
    raw = m.group("old")
    digits = re.search(r"\d+(?:\.\d+)?", raw)
    if digits:
        return float(digits.group())
    if raw in words:
        return words[raw]
    a, _, b = raw.partition("-")
    return words[a] + words[b] if a in words and b in words else None


def _population_concepts(amendment: Amendment) -> tuple[str, ...]:
    return tuple(a.concept for a in iter_atoms(amendment.population) if isinstance(a, Condition))


def _requirements(criteria: Criteria, population: tuple[str, ...] = (), lex: Lexicon | None = None) -> list[Atom]:
    """Atoms a rider can waive or replace: requirements and limits, never an exception's condition. An
    amendment for a population ("a member with X does not need ...") reaches only the rules for that
    population (or a narrower one), never a rule for another population or for everyone."""
    out: list[Atom] = []

    def walk(node: Node | None) -> None:
        if node is None:
            return
        if isinstance(node, AllOf | AnyOf):
            for child in node.children:
                walk(child)
        elif isinstance(node, Not):
            walk(node.child)
        elif isinstance(node, Waiver | Routing):
            walk(node.body)
        elif isinstance(node, Atom):
            out.append(node)

    for rule in criteria.rules:
        if population:
            named = [a.concept for a in iter_atoms(rule.population) if isinstance(a, Condition)]
            if not named or lex is None or not all(any(n == p or lex.is_a(n, p) for p in population) for n in named):
                continue
        walk(rule.population)
        walk(rule.when)
        if isinstance(rule.trigger, Count):
            out.append(rule.trigger)  # a limit's occasion ("in excess of 31 units") is a limit too
    return out


def _concept(atom: Atom) -> str | None:
    if isinstance(atom, Condition):
        return atom.concept
    if isinstance(atom, Duration | Treatment):
        return atom.therapy
    if isinstance(atom, Measure):
        return atom.quantity
    if isinstance(atom, Count | Documentation):
        return atom.item
    return None


def _same(lex: Lexicon, a: str, b: str) -> bool:
    return a == b or lex.is_a(a, b) or lex.is_a(b, a)


def _same_item(lex: Lexicon, a: str, b: str) -> bool:
    """Counted items agree when they are one concept, or name the same thing by their last word
    ("visit" and "outpatient physical therapy visit")."""
    return _same(lex, a, b) or a.split()[-1] == b.split()[-1]


def _words(text: str) -> set[str]:
    out = set()
    for word in re.findall(r"[a-z0-9]+", normalise(text)):
        if word in _HEADS or len(word) < 3:
            continue
        out.add(word[:-1] if word.endswith("s") and len(word) > 3 else word)
    return out
