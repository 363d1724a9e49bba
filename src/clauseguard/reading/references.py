"""What a cross-reference names, and the criteria kinds the rule compiler added: at-least-N lists,
references to labelled criteria (in the clause, in a sibling clause, or to "the rules that cover X"),
prescribers and events in a window, therapy counts and the clause's own example lists.

`References` is built once per request from the compiled clauses of the governing versions; the
evaluator asks it for the node a reference names and judges that node as a requirement (what a
reference names is required where it is defined, whatever the words around the reference).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass, field

from clauseguard.corpus.criteria import AllOf, AnyOf, Atom, Criteria, Node, Ref, Rule, Service, map_atoms
from clauseguard.text import content_words


def marks_in(criteria: Criteria) -> dict[str, Node]:
    """Every marked node of a clause's criteria ("1", "b", "iii"), first occurrence wins."""
    found: dict[str, Node] = {}
    for rule in criteria.rules:
        for part in (rule.population, rule.trigger, rule.when):
            _marks_under(part, found)
    for node in criteria.referenced:
        _marks_under(node, found)
    return found


def _marks_under(node: Node | None, found: dict[str, Node]) -> None:
    if node is None:
        return
    mark = getattr(node, "mark", None)
    if mark:
        found.setdefault(mark.lower(), node)
    for child in getattr(node, "children", ()) or ():
        _marks_under(child, found)
    for name in ("child", "body", "condition"):
        _marks_under(getattr(node, name, None), found)


def population_marks(criteria: Criteria) -> set[str]:
    """The marks of the nodes that name a rule's population ("(1) The beneficiary has diabetes")."""
    found: dict[str, Node] = {}
    for rule in criteria.rules:
        _marks_under(rule.population, found)
    return set(found)


@dataclass
class References:
    """The labelled criteria and covering rules a request's governing clauses may refer to."""

    marks: dict[str, dict[str, Node]] = field(default_factory=dict)  # clause id -> mark -> node
    covering: list[tuple[str, Rule]] = field(default_factory=list)  # (clause id, a rule that covers)
    order: list[str] = field(default_factory=list)  # clause ids in document order
    population_marks: dict[str, set[str]] = field(default_factory=dict)  # clause id -> marks of its populations

    @classmethod
    def of(cls, compiled: Iterable[tuple[str, Criteria]]) -> References:
        refs = cls()
        for clause_id, criteria in compiled:
            refs.order.append(clause_id)
            refs.marks[clause_id] = marks_in(criteria)
            refs.population_marks[clause_id] = population_marks(criteria)
            refs.covering.extend((clause_id, r) for r in criteria.rules if r.effect == "covered" and r.subject is not None)
        return refs

    def resolve(self, ref: Ref, here: str) -> tuple[Node | None, str]:
        """The node a reference names (atom ids renamed by where they live), and a note of where.
        A reference without a clause names this clause's marks, else the nearest clause before it
        that holds all the marks ("criteria (1)-(2) above")."""
        if ref.service is not None:
            return self._covering(ref.service, here)
        labels = [label.lower() for label in ref.labels]
        if not labels:
            return None, "a reference that names no criterion"
        clause_id = self._holder(ref, here)
        if clause_id is None:
            return None, f"criteria {', '.join(ref.labels)} named by the reference are in no governing clause"
        marks = self.marks.get(clause_id, {})
        nodes = [_renamed(marks[label], clause_id) for label in labels]
        node = nodes[0] if len(nodes) == 1 else AllOf(tuple(nodes))
        return node, f"criteria {', '.join(ref.labels)} of {clause_id}"

    def populations(self, ref: Ref, here: str) -> list[Node]:
        """The populations among the criteria a reference names ("criteria (1)-(4)" where (1) is "has
        diabetes"): a clause decides only for the population it names, also where another restates it."""
        clause_id = None if ref.service is not None else self._holder(ref, here)
        if clause_id is None:
            return []
        wanted = self.population_marks.get(clause_id, set())
        marks = self.marks.get(clause_id, {})
        return [_renamed(marks[label.lower()], clause_id) for label in ref.labels if label.lower() in wanted]

    def _holder(self, ref: Ref, here: str) -> str | None:
        """The clause holding every mark a reference names: its own clause, else the nearest before it."""
        labels = [label.lower() for label in ref.labels]
        candidates = [ref.clause] if ref.clause else [here, *reversed(self.order[:self.order.index(here)] if here in self.order else [])]
        for clause_id in candidates:
            if labels and all(label in self.marks.get(clause_id or "", {}) for label in labels):
                return clause_id or here
        return None

    def _covering(self, service: str, here: str) -> tuple[Node | None, str]:
        """"for whom the pump itself is covered": the requirements of the rules covering it."""
        wanted = set(content_words(service))
        found: list[Node] = []
        where: list[str] = []
        for clause_id, rule in self.covering:
            if clause_id == here and rule.subject is not None and set(content_words(rule.subject.concept)) == wanted:
                continue
            subject = rule.subject
            assert subject is not None
            words = set(content_words(subject.concept + " " + " ".join(subject.codes)))
            if wanted and wanted <= words:
                parts = [p for p in (rule.population, rule.when) if p is not None]
                if parts:
                    node = parts[0] if len(parts) == 1 else AllOf(tuple(parts))
                    found.append(_renamed(node, clause_id))
                    where.append(clause_id)
        if not found:
            return None, f"no governing rule covers {service}"
        return (found[0] if len(found) == 1 else AnyOf(tuple(found))), f"the rules covering {service} ({', '.join(where)})"


def renamed(node: Node, clause_id: str) -> Node:
    """The node with its atom ids placed in the clause they live in (`clause#a1`)."""
    return _renamed(node, clause_id)


def _renamed(node: Node, clause_id: str) -> Node:
    def rename(atom: Atom) -> Node:
        renamed: Node = dataclasses.replace(atom, id=f"{clause_id}#{atom.id}")  # type: ignore[assignment]
        return renamed

    out = map_atoms(node, rename)
    assert out is not None
    return out


__all__ = ["References", "Service", "marks_in"]
