"""Small walks over criteria trees the compiler needs while lowering a clause: the references a rule
makes, the atoms under list marks or named by words, and the diagnosis a criteria list opens with."""

from __future__ import annotations

import dataclasses
import re

from clauseguard.corpus.criteria import (
    AllOf,
    AnyOf,
    Atom,
    Condition,
    Node,
    Not,
    Ref,
    Rule,
    Tenure,
    iter_atoms,
)
from clauseguard.reading.grammar.blocks import ItemList, Para
from clauseguard.text import fold


def walk_refs(rule: Rule) -> list[Ref]:
    out: list[Ref] = []

    def walk(n: Node | None) -> None:
        if n is None:
            return
        if isinstance(n, Ref):
            out.append(n)
        for child in getattr(n, "children", ()) or ():
            walk(child)
        for name in ("child", "body", "condition"):
            walk(getattr(n, name, None))

    for part in (rule.population, rule.trigger, rule.when):
        walk(part)
    return out


def leading_diagnosis(when: list[Node]) -> tuple[list[Node], list[Node]]:
    """The diagnosis a criteria list opens with ("1. The beneficiary has diabetes"; "A. The member has
    one of the following conditions") is who the rule is for: its population, not a requirement."""
    if len(when) != 1 or not isinstance(when[0], AllOf) or len(when[0].children) < 2:
        return when, []
    first = when[0].children[0]
    diagnosis = isinstance(first, Condition) and not first.documented or (
        isinstance(first, AnyOf) and all(isinstance(c, Condition) for c in first.children))
    if not diagnosis:
        return when, []
    rest = when[0].children[1:]
    body = rest[0] if len(rest) == 1 else dataclasses.replace(when[0], children=tuple(rest))
    return [body], [first]


def first_list(children: list[Para | ItemList]) -> ItemList | None:
    return next((c for c in children if isinstance(c, ItemList)), None)


def all_of(nodes: list[Node]) -> Node | None:
    if not nodes:
        return None
    return nodes[0] if len(nodes) == 1 else AllOf(tuple(nodes))


def marked_atoms(node: Node, marks: tuple[str, ...]) -> list[Atom]:
    out: list[Atom] = []

    def walk(n: Node | None, inside: bool) -> None:
        if n is None:
            return
        hit = inside or getattr(n, "mark", None) in marks
        if isinstance(n, Atom):
            if hit:
                out.append(n)
            return
        for child in getattr(n, "children", ()) or ():
            walk(child, hit)
        for name in ("child", "body", "condition"):
            walk(getattr(n, name, None), hit)

    walk(node, False)
    return out


def named_atoms(body: Node, what: str) -> list[Atom]:
    """The atoms of `body` an exception names by their words ("the six-month injection requirement")."""
    words = {w for w in re.findall(r"[a-z0-9]+", what) if len(w) > 3} - {"requirement", "apply", "does", "criterion"}
    found = []
    for atom in iter_atoms(body):
        own = set(re.findall(r"[a-z0-9]+", fold(atom.span.text + " " + atom.label)))
        if words and len(words & own) >= max(1, len(words) // 2):
            found.append(atom)
    return found


def diagnoses_first(population: list[Node]) -> tuple[list[Node], list[Node]]:
    """"for a beneficiary with moderate to severe asthma who has tried and failed two controllers": the
    diagnosis is who the rule is for (design: a clause decides for the population it names); what the
    person must also have done or meet is a requirement."""
    if len(population) == 1 and isinstance(population[0], Ref):
        return [], population  # "for members for whom the pump itself is covered": the rules covering it
    if len(population) != 1 or not isinstance(population[0], AllOf):
        return population, []
    kids = population[0].children
    names: list[Node] = [k for k in kids if isinstance(k, (Condition, AnyOf)) and all(isinstance(a, Condition) for a in iter_atoms(k))]
    rest = [k for k in kids if k not in names]
    if not names or not rest:
        return population, []
    return [all_of(names)], rest  # type: ignore[list-item]


def lifted(rule: Rule, lifts: list[Node]) -> Rule:
    """A waiting-period rule with the clause's "no waiting period applies where X" as NOT X."""
    if rule.effect != "not_covered" or not any(isinstance(a, Tenure) for a in iter_atoms(rule.trigger)):
        return rule
    nots: list[Node] = [Not(n) for n in lifts]
    parts = [rule.trigger, *nots] if rule.trigger is not None else nots
    return dataclasses.replace(rule, trigger=AllOf(tuple(parts)))  # type: ignore[arg-type]


def stated_diagnosis(title: Node, when: list[Node]) -> tuple[Node | None, list[Node]]:
    """The criteria list's own statement of the diagnosis a heading names ("Initial Approval (plaque
    psoriasis)" over "1. ... chronic moderate to severe plaque psoriasis"): it is the population, with
    its severity, and no longer a requirement beside it (drug policy, medical policy)."""
    if not isinstance(title, Condition) or len(when) != 1 or not isinstance(when[0], AllOf):
        return None, when
    named = set(title.concept.split())

    def same(node: Node) -> bool:
        return isinstance(node, Condition) and named <= set(node.concept.split())

    kids = when[0].children
    for n, kid in enumerate(kids):
        inner = kid.children if isinstance(kid, AllOf) else ()
        if same(kid):
            rest = kids[:n] + kids[n + 1:]
        elif any(same(k) for k in inner):  # "1. The patient is an adult with chronic ... plaque psoriasis"
            found = next(k for k in inner if same(k))
            left = tuple(k for k in inner if k is not found)
            kid, rest = found, kids[:n] + (left[0] if len(left) == 1 else dataclasses.replace(kids[n], children=left),) + kids[n + 1:]  # type: ignore[arg-type]
        else:
            continue
        body: Node = rest[0] if len(rest) == 1 else dataclasses.replace(when[0], children=rest)
        return kid, [body]
    return None, when
