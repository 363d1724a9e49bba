"""A criteria tree judged by strong Kleene logic: all-of, any-of, at-least-n, references, negation, waivers
and routing UNLESS, down to each criterion, read once by the reader of its kind with rider overrides applied.

It never says what a rule or a clause decides (clause.py does).
"""

from __future__ import annotations

from clauseguard.corpus.criteria import (
    Age,
    AllOf,
    Amount,
    AnyOf,
    AtLeast,
    Atom,
    Condition,
    Count,
    Designation,
    Documentation,
    Duration,
    Event,
    Measure,
    Node,
    Not,
    Prescriber,
    Ref,
    Routing,
    Service,
    Tenure,
    Treatment,
    Waiver,
    iter_atoms,
    iter_refs,
)
from clauseguard.reading.evaluate.conditions import ConditionReader
from clauseguard.reading.evaluate.documents import DocumentReader
from clauseguard.reading.evaluate.kleene import (
    MET,
    NOT_MET,
    UNKNOWN,
    Value,
    _Judged,
    k_and,
    k_at_least,
    k_not,
    k_or,
)
from clauseguard.reading.evaluate.quantities import QuantityReader
from clauseguard.reading.evaluate.relatives import RelativeReader
from clauseguard.reading.evaluate.results import AtomResult, Role
from clauseguard.reading.evaluate.services import ServiceReader
from clauseguard.reading.evaluate.therapies import TherapyReader


class TreeJudge(ConditionReader, QuantityReader, TherapyReader, DocumentReader, ServiceReader, RelativeReader):
    """Judges a criteria tree over the readers of every criterion kind."""

    # --- structure ---------------------------------------------------------------------------

    def _judge(self, node: Node | None, role: Role, waived: frozenset[str] = frozenset()) -> _Judged:
        if node is None:
            return _Judged(MET)
        if isinstance(node, AllOf):
            parts = [self._judge(c, role, waived) for c in node.children]
            value = k_and(p.value for p in parts)
            return _Judged(value, self._missing(parts, value), _first_route(parts))
        if isinstance(node, AnyOf):
            child_role: Role = "alternative" if role == "requirement" else role
            parts = [self._judge(c, child_role, waived) for c in node.children]
            value = k_or(p.value for p in parts)
            if value == NOT_MET and role == "requirement" and self._unpresented(node):
                return self._left_open(node)
            return _Judged(value, self._missing(parts, value), _first_route(parts))
        if isinstance(node, AtLeast):
            child_role = "alternative" if role == "requirement" else role
            parts = [self._judge(c, child_role, waived) for c in node.children]  # type: ignore[arg-type]
            value = k_at_least(node.n, [p.value for p in parts])
            if value == NOT_MET and role == "requirement" and self._unpresented(node):
                return self._left_open(node)
            return _Judged(value, self._missing(parts, value), _first_route(parts))
        if isinstance(node, Ref):
            target, where = self.references.resolve(node, self.here)
            if target is None:
                return _Judged(UNKNOWN, [where])
            for population in self.references.populations(node, self.here):
                judged = self._judge(population, "population", waived)
                if judged.value == UNKNOWN:
                    # the population the named criteria are for is not established: no decision either way
                    return _Judged(UNKNOWN, judged.missing)
            # what a reference names is required where it is defined, whatever words surround it
            return self._judge(target, "requirement", waived)
        if isinstance(node, Not):
            # "denied if criteria (1)-(2) and the certification above are not met": a negation over
            # criteria it refers to negates requirements, not an occasion; left unstated they are unknown, so
            # silence never fires the denial. "X without red-flag features is not covered" keeps its occasion.
            negates_criteria = role == "exception" and next(iter_refs(node.child), None) is not None
            inner = self._judge(node.child, "requirement" if negates_criteria else role, waived)
            return _Judged(k_not(inner.value), inner.missing if inner.value == UNKNOWN else [])
        if isinstance(node, Waiver):
            cond = self._judge(node.condition, "exception", waived)
            lifted = self._judge(node.body, role, waived | frozenset(node.waives))
            plain = self._judge(node.body, role, waived)
            if cond.value == MET:
                for atom_id in node.waives:
                    self._mark_waived(atom_id)
                self._note_narrative_waiver(node, lifted.value != plain.value)
                return _Judged(lifted.value, lifted.missing)
            if cond.value == NOT_MET:
                return _Judged(plain.value, plain.missing)
            value = k_or([k_and([UNKNOWN, lifted.value]), k_and([UNKNOWN, plain.value])])
            return _Judged(value, (cond.missing + plain.missing) if value == UNKNOWN else [])
        if isinstance(node, Routing):
            cond = self._judge(node.condition, "exception", waived)
            body = self._judge(node.body, role, waived) if node.body is not None else _Judged(MET)
            if node.target is not None:
                self._record(node.target, role, self._request_is(node.target), note="the service the exception routes to")
            if cond.value == MET:
                route = node.target.concept if node.target is not None else "another rule"
                return _Judged(NOT_MET, [], route)
            value = k_and([body.value, k_not(cond.value)])
            missing = (body.missing if body.value == UNKNOWN else []) + (cond.missing if cond.value == UNKNOWN else [])
            return _Judged(value, missing if value == UNKNOWN else [])
        return self._atom(node, role, waived)

    def _unpresented(self, node: AnyOf | AtLeast) -> bool:
        """Whether a requirement written as alternatives failed only because the request states none
        of them, and not all of them are conditions. A request is judged on the conditions it presents
        (an indication or a listed comorbidity it does not present is absent), but a requirement met
        by a treatment received or a documented history ("insulin-treated; or a history of problematic
        hypoglycemia") that the request is silent on is a fact to ask for, not a failed requirement."""
        results = [self.results[a.id] for a in iter_atoms(node) if a.id in self.results]
        failed = [r for r in results if r.status == NOT_MET]
        return (bool(failed) and any(r.kind != "condition" for r in failed)
                and all(r.fact is None and r.narrative_span is None and not r.waived for r in failed))

    def _left_open(self, node: AnyOf | AtLeast) -> _Judged:
        """A requirement the request says nothing of is unknown, whatever form it takes: a request
        silent on every way of meeting it ("insulin-treated; or a history of problematic
        hypoglycemia") is asked for that documentation, not denied (design.md, what is not stated)."""
        atoms = [a for a in iter_atoms(node) if a.id in self.results and self.results[a.id].status == NOT_MET]
        named = " or ".join(dict.fromkeys(self.results[a.id].label for a in atoms))
        for a in atoms:
            self.results[a.id] = AtomResult(**{**self.results[a.id].__dict__, "status": UNKNOWN, "missing": named,
                                               "note": "not stated: no way of meeting this requirement is presented"})
        return _Judged(UNKNOWN, [named])

    @staticmethod
    def _missing(parts: list[_Judged], value: Value) -> list[str]:
        if value != UNKNOWN:
            return []
        out: list[str] = []
        for p in parts:
            if p.value == UNKNOWN:
                out.extend(m for m in p.missing if m not in out)
        return out

    def _note_narrative_waiver(self, node: Waiver, decisive: bool) -> None:
        """A waiver that changed the answer on facts read from the narrative alone (no code, no
        structured field): one misread sentence would flip the answer, so a person confirms it."""
        found = [self.results[a.id] for a in iter_atoms(node.condition) if a.id in self.results]
        if decisive and found and all((r.source or "narrative") == "narrative" for r in found):
            said = "; ".join(r.fact or r.label for r in found)
            lifted = ", ".join(self.results[i].label if i in self.results else i for i in node.waives)
            self.rests_on.append(f"{said} (read from the narrative) lifts the requirement of {lifted}")

    def _mark_waived(self, atom_id: str) -> None:
        result = self.results.get(atom_id)
        if result is not None:
            self.results[atom_id] = AtomResult(**{**result.__dict__, "waived": True,
                                                  "note": "waived: the exception's condition is present"})

    # --- atoms -------------------------------------------------------------------------------

    def _atom(self, atom: Atom, role: Role, waived: frozenset[str]) -> _Judged:
        if atom.id in self.results:
            result = self.results[atom.id]
        else:
            for override in self.overrides:
                substitute = override.replacement_for(atom)
                if substitute is not None:
                    atom = substitute
                    break
            reader = {
                Condition: self._condition, Measure: self._measure, Duration: self._duration,
                Treatment: self._treatment, Age: self._age, Count: self._count,
                Tenure: self._tenure, Amount: self._amount, Documentation: self._documentation, Designation: self._designation, Service: self._service,
                Prescriber: self._prescriber, Event: self._event,
            }[type(atom)]
            if self._of_relative(atom):
                result = self._relative(atom, role, reader)  # type: ignore[arg-type]
            else:
                result = self._by_caregiver(atom, role, reader(atom, role))  # type: ignore[operator]
            if any(atom.id in o.atom_ids and o.action == "replace" for o in self.overrides):
                rider = next(o.rider_clause for o in self.overrides if atom.id in o.atom_ids)
                result = AtomResult(**{**result.__dict__, "note": f"as amended by rider {rider or ''}".strip()})
            if atom.id in self.rider_waived:
                rider = self.rider_waived[atom.id].rider_clause
                result = AtomResult(**{**result.__dict__, "waived": True,
                                       "note": f"waived by rider {rider or ''}".strip()})
            self.results[atom.id] = result
        if atom.id in waived or atom.id in self.rider_waived:
            return _Judged(MET)
        return _Judged(result.status, [result.missing] if result.status == UNKNOWN and result.missing else [])


def _walk(node: Node | None) -> list[Node]:
    if node is None:
        return []
    out: list[Node] = [node]
    if isinstance(node, AllOf | AnyOf):
        for c in node.children:
            out.extend(_walk(c))
    elif isinstance(node, Not):
        out.extend(_walk(node.child))
    elif isinstance(node, Waiver | Routing):
        out.extend(_walk(node.body))
        out.extend(_walk(node.condition))
    return out


def _first_route(parts: list[_Judged]) -> str | None:
    return next((p.routed_to for p in parts if p.routed_to), None)
