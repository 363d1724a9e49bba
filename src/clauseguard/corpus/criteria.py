"""The criteria tree: ALL / ANY / NOT and waiver / routing UNLESS over atoms that quote the clause.

It owns the shape of policy-as-code (`Clause.criteria`, part of the corpus format) and checks every
quoted span on load; it never reads clause prose (reading/compiler.py) and never judges a request
(reading/evaluate/).
"""

from __future__ import annotations

import dataclasses
import functools
import re
import types
import typing
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, ClassVar, Final, Literal, Union

from clauseguard.errors import CriteriaError

SCHEMA_ID: Final = "clauseguard.criteria/v1"

Comparator = Literal[">=", ">", "<=", "<", "=="]
COMPARATORS: Final[tuple[str, ...]] = (">=", ">", "<=", "<", "==")
Effect = Literal["covered", "not_covered", "withheld", "limit"]
"""What a rule says when it applies: covered / medically necessary; excluded / not medically
necessary; no standing decision ("requires individual consideration"); a quantity limit."""
Certainty = Literal["suspected", "high_probability", "stated", "confirmed"]
"""How sure a condition statement must be; an unhedged statement counts as confirmed."""
TreatmentStatus = Literal["treated", "failed", "intolerant", "contraindicated"]
TimeUnit = Literal["day", "week", "month", "year"]
PeriodUnit = Literal[
    "hour", "day", "week", "month", "year", "calendar_year", "contract_year", "policy_year", "benefit_year", "lifetime",
    "session", "episode",
]
"""A counting window: a length of time, or an occasion ("per operative session", "per episode of care")."""
AgeOf = Literal["member", "onset"]
AmendmentAction = Literal["waive", "keep", "replace", "add"]
Approval = Literal["initial", "continuation"]


_NUMBER: Final = re.compile(r"-?\d+(?:\.\d+)?")


@dataclass(frozen=True)
class Span:
    """A verbatim stretch of the clause text: `text == clause_text[start:end]`."""

    start: int
    end: int
    text: str

    def shifted(self, offset: int) -> Span:
        return Span(self.start + offset, self.end + offset, self.text)


@dataclass(frozen=True)
class Period:
    """A counting window: `length` units, e.g. 12 months, 31 days, 1 calendar year, 1 lifetime."""

    length: float
    unit: PeriodUnit
    rolling: bool = False

    @property
    def label(self) -> str:
        if self.unit == "lifetime":
            return "lifetime"
        unit = self.unit.replace("_", " ")
        size = _num_text(self.length)
        base = unit if size == "1" else f"{size}-{unit}"
        return ("rolling " if self.rolling else "") + base


# --- atoms -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Atom:
    """One criterion a fact can meet; `id` is unique in its criteria and `span` quotes the clause.
    `mark` is the item's number or letter as printed ("2", "b", "iii"), when a reference may name it."""

    kind: ClassVar[str] = "atom"
    id: str
    span: Span
    mark: str | None = field(default=None, kw_only=True)

    @property
    def label(self) -> str:  # pragma: no cover - every atom kind overrides it
        return self.kind


@dataclass(frozen=True)
class Condition(Atom):
    """A condition, diagnosis or finding is present, with the qualifiers the clause asks for."""

    kind: ClassVar[str] = "condition"
    concept: str
    severity: tuple[str, ...] = ()  # the levels that count, e.g. ("moderate", "severe"); empty = any
    certainty: Certainty = "stated"
    documented: bool = False
    history: bool = False  # "a history of X": a past episode counts
    qualifiers: tuple[str, ...] = ()  # e.g. ("active",), ("uncomplicated",)
    within: Period | None = None  # an expected or planned condition, due within this window
    codes: tuple[str, ...] = ()  # ICD-10-CM codes or families the clause names for it

    @property
    def label(self) -> str:
        if self.within is not None:
            return f"{dataclasses.replace(self, within=None).label} within {self.within.label}"
        words = []
        if self.certainty == "confirmed":
            words.append("confirmed")
        elif self.certainty == "suspected":
            words.append("suspected")
        elif self.certainty == "high_probability":
            words.append("high pre-test probability of")
        if self.history:
            words.append("history of")
        if self.severity:
            words.append(_severity_text(self.severity))
        words.extend(q for q in self.qualifiers if " " not in q)
        words.append(self.concept)
        words.extend(q for q in self.qualifiers if " " in q)  # "in the same compartment" follows the concept
        return " ".join(words)


@dataclass(frozen=True)
class Measure(Atom):
    """A stated number compared with a threshold: A1c >= 8.0 percent, fingerstick tests >= 4 per day."""

    kind: ClassVar[str] = "measure"
    quantity: str
    comparator: Comparator
    value: float
    unit: str = ""
    per: Period | None = None

    @property
    def label(self) -> str:
        unit = f" {self.unit}" if self.unit else ""
        per = f" per {self.per.label}" if self.per else ""
        return f"{self.quantity} {self.comparator} {_num_text(self.value)}{unit}{per}"


@dataclass(frozen=True)
class Duration(Atom):
    """How long a therapy or trial lasted: at least 3 months of a conventional synthetic DMARD."""

    kind: ClassVar[str] = "duration"
    therapy: str
    comparator: Comparator
    value: float
    unit: TimeUnit
    outcome: str | None = None  # e.g. "inadequate response"
    including: tuple[str, ...] = ()  # therapies the course must include

    @property
    def label(self) -> str:
        text = f"{self.therapy} for {self.comparator} {_num_text(self.value)} {self.unit}(s)"
        if self.including:
            text += " including " + ", ".join(self.including)
        if self.outcome:
            text += f" with {self.outcome}"
        return text


@dataclass(frozen=True)
class Treatment(Atom):
    """Treatment status: treated with / failed / intolerant to / contraindicated (any listed status)."""

    kind: ClassVar[str] = "treatment"
    therapy: str
    statuses: tuple[TreatmentStatus, ...] = ("treated",)
    count: int = 1  # how many distinct agents of the class ("two TNF inhibitors")
    examples: tuple[str, ...] = ()  # the clause's own "(e.g., A, B, C)" list: members of the class

    @property
    def label(self) -> str:
        agents = f"{self.count} of " if self.count > 1 else ""
        return f"{' or '.join(self.statuses)}: {agents}{self.therapy}"


@dataclass(frozen=True)
class Age(Atom):
    """The member's age (or the age at onset of the condition), in years."""

    kind: ClassVar[str] = "age"
    comparator: Comparator
    value: float
    of: AgeOf = "member"

    @property
    def label(self) -> str:
        who = "age at onset" if self.of == "onset" else "age"
        return f"{who} {self.comparator} {_num_text(self.value)} years"


@dataclass(frozen=True)
class Count(Atom):
    """How many of a service per period, the requested one included: once per 12-month period."""

    kind: ClassVar[str] = "count"
    item: str
    comparator: Comparator
    value: float
    per: Period

    @property
    def label(self) -> str:
        return f"{self.item} {self.comparator} {_num_text(self.value)} per {self.per.label}"


@dataclass(frozen=True)
class Tenure(Atom):
    """How long the member has been insured under the contract on the date of the service: a waiting
    period ("payable only after twelve months from joining") or a qualifying period of cover."""

    kind: ClassVar[str] = "tenure"
    comparator: Comparator
    value: float
    unit: TimeUnit

    @property
    def label(self) -> str:
        return f"insured for {self.comparator} {_num_text(self.value)} {self.unit}(s)"


@dataclass(frozen=True)
class Amount(Atom):
    """A money amount compared with a cap: up to GBP 200 per insured person in any 24-month period."""

    kind: ClassVar[str] = "amount"
    currency: str
    comparator: Comparator
    value: float
    per: Period | None = None

    @property
    def label(self) -> str:
        per = f" per {self.per.label}" if self.per else ""
        return f"amount {self.comparator} {self.currency} {_num_text(self.value)}{per}"


@dataclass(frozen=True)
class Documentation(Atom):
    """Something the request must document (a change in clinical status, imaging that corroborates X)."""

    kind: ClassVar[str] = "documentation"
    item: str
    about: str | None = None
    # what the clause itself takes as the evidence of the item (training shown by the prescription the
    # practitioner writes): read only when the request says nothing of the item itself
    evidenced_by: str | None = None

    @property
    def label(self) -> str:
        return f"documentation of {self.item}" + (f" for {self.about}" if self.about else "")


@dataclass(frozen=True)
class Service(Atom):
    """The requested service: a rule's subject, or the service a routing UNLESS sends the case to."""

    kind: ClassVar[str] = "service"
    concept: str
    codes: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        return self.concept + (f" ({', '.join(self.codes)})" if self.codes else "")


@dataclass(frozen=True)
class Prescriber(Atom):
    """Who prescribes or orders: "prescribed by or in consultation with a rheumatologist"."""

    kind: ClassVar[str] = "prescriber"
    specialties: tuple[str, ...]
    consultation: bool = False  # "or in consultation with" counts

    @property
    def label(self) -> str:
        how = "prescribed by or in consultation with" if self.consultation else "prescribed by"
        return f"{how} {' or '.join(self.specialties)}"


@dataclass(frozen=True)
class Event(Atom):
    """Something that took place within a window before the request: a visit, a test, an evaluation."""

    kind: ClassVar[str] = "event"
    item: str
    within: Period | None = None  # None: it must have taken place ("before the sleep test, an evaluation")

    @property
    def label(self) -> str:
        if self.within is None:
            return f"{self.item} before the request"
        return f"{self.item} within {self.within.label} before the request"


@dataclass(frozen=True)
class Designation(Atom):
    """The requested service carries a designation: investigational, experimental, ..."""

    kind: ClassVar[str] = "designation"
    designation: str

    @property
    def label(self) -> str:
        return f"designated {self.designation}"


# --- composites --------------------------------------------------------------------------------


@dataclass(frozen=True)
class AllOf:
    """Every child must hold (a false child decides; an unknown one with no false child is missing)."""

    kind: ClassVar[str] = "all"
    children: tuple[Node, ...]
    mark: str | None = field(default=None, kw_only=True)


@dataclass(frozen=True)
class AnyOf:
    """One child suffices; an alternative the request does not present is absent."""

    kind: ClassVar[str] = "any"
    children: tuple[Node, ...]
    mark: str | None = field(default=None, kw_only=True)


@dataclass(frozen=True)
class AtLeast:
    """At least `n` children must hold ("at least two of the following")."""

    kind: ClassVar[str] = "at_least"
    n: int
    children: tuple[Node, ...]
    mark: str | None = field(default=None, kw_only=True)


@dataclass(frozen=True)
class Not:
    """The child must not hold ("has no significant comorbid condition")."""

    kind: ClassVar[str] = "not"
    child: Node
    mark: str | None = field(default=None, kw_only=True)


@dataclass(frozen=True)
class Ref:
    """A cross-reference to labelled criteria ("the basic coverage criteria (1)-(2) above"), of this
    clause or of another clause of the same version; read with the criteria it names, never alone."""

    kind: ClassVar[str] = "ref"
    span: Span
    labels: tuple[str, ...]
    clause: str | None = None  # another clause of the same version; None: this clause
    service: str | None = None  # "when X is covered": the criteria of the rules that cover X
    mark: str | None = field(default=None, kw_only=True)


@dataclass(frozen=True)
class Waiver:
    """`body` UNLESS `condition`, in which case the requirements `waives` (atom ids in body) do not apply."""

    kind: ClassVar[str] = "waiver"
    body: Node
    condition: Node
    waives: tuple[str, ...]
    span: Span


@dataclass(frozen=True)
class Routing:
    """`body` UNLESS `condition` [, in which case `target` is required]: with the condition present
    the requested service is not covered under this rule; the condition never discharges the body."""

    kind: ClassVar[str] = "routing"
    condition: Node
    span: Span
    body: Node | None = None  # None: nothing else is required
    target: Service | None = None


Node = Union[  # noqa: UP007 - a runtime alias the JSON reader dispatches on
    AllOf, AnyOf, AtLeast, Not, Waiver, Routing, Ref,
    Condition, Measure, Duration, Treatment, Age, Count, Tenure, Amount, Documentation, Service, Designation,
    Prescriber, Event,
]
ATOM_TYPES: Final[tuple[type[Atom], ...]] = (
    Condition, Measure, Duration, Treatment, Age, Count, Tenure, Amount, Documentation, Service, Designation,
    Prescriber, Event,
)
NODE_TYPES: Final[tuple[type, ...]] = (AllOf, AnyOf, AtLeast, Not, Waiver, Routing, Ref, *ATOM_TYPES)
_BY_KIND: Final[dict[str, type]] = {t.kind: t for t in NODE_TYPES}  # type: ignore[attr-defined]


# --- clause level ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Note:
    """A sentence or phrase read and deliberately not turned into a criterion (scope, a removed
    requirement, a benefit label), kept so every part of the clause is accounted for."""

    kind: str
    span: Span


@dataclass(frozen=True)
class Rule:
    """One statement of the clause: when `population` and `trigger` apply, `when` decides `effect`.

    `population` names who the rule is for (unknown -> the rule cannot decide; false -> it is for
    someone else); `trigger` is an exclusion's or a limit's occasion (unstated -> absent); `when`
    holds the requirements.
    """

    effect: Effect
    span: Span
    subject: Service | None = None
    population: Node | None = None
    trigger: Node | None = None
    when: Node | None = None
    remarks: tuple[Note, ...] = ()
    approval: Approval | None = None  # drug policies: an initial or a continuation approval
    approval_period: Period | None = None  # "Approve for 6 months"


@dataclass(frozen=True)
class DesignationStatement:
    """The clause designates a service: "X (0501T) is designated investigational"."""

    subject: Service
    designation: str
    span: Span


@dataclass(frozen=True)
class Amendment:
    """A rider's change to a named requirement of another document's clauses."""

    action: AmendmentAction
    requirement: str
    span: Span
    targets: tuple[str, ...] = ()  # document ids the rider names
    replacement: Node | None = None
    population: Node | None = None  # only for this population ("a member with type 1 diabetes ...")


@dataclass(frozen=True)
class Criteria:
    """Everything a clause says that can be checked against facts, plus what was read and set aside."""

    rules: tuple[Rule, ...] = ()
    designations: tuple[DesignationStatement, ...] = ()
    amendments: tuple[Amendment, ...] = ()
    notes: tuple[Note, ...] = ()
    referenced: tuple[Node, ...] = ()  # marked criteria the rules name ("criteria (a)-(c) below") but hold elsewhere

    @property
    def empty(self) -> bool:
        return not (self.rules or self.designations or self.amendments)


# --- traversal ---------------------------------------------------------------------------------


def with_mark(node: Node, mark: str | None) -> Node:
    """The node with the item mark a reference names it by ("2", "b")."""
    return dataclasses.replace(node, mark=mark)  # type: ignore[arg-type, type-var]


def iter_atoms(node: Node | None) -> Iterator[Atom]:
    """Atoms of a node in document order (routing targets included)."""
    if node is None:
        return
    if isinstance(node, AllOf | AnyOf | AtLeast):
        for child in node.children:
            yield from iter_atoms(child)
    elif isinstance(node, Not):
        yield from iter_atoms(node.child)
    elif isinstance(node, Ref):
        return
    elif isinstance(node, Waiver):
        yield from iter_atoms(node.body)
        yield from iter_atoms(node.condition)
    elif isinstance(node, Routing):
        yield from iter_atoms(node.body)
        yield from iter_atoms(node.condition)
        if node.target is not None:
            yield node.target
    else:
        yield node


def iter_refs(node: Node | None) -> Iterator[Ref]:
    """The cross-references of a node, in document order."""
    if node is None:
        return
    if isinstance(node, Ref):
        yield node
    elif isinstance(node, AllOf | AnyOf | AtLeast):
        for child in node.children:
            yield from iter_refs(child)
    elif isinstance(node, Not):
        yield from iter_refs(node.child)
    elif isinstance(node, Waiver | Routing):
        yield from iter_refs(node.body)
        yield from iter_refs(node.condition)


def rule_atoms(rule: Rule) -> Iterator[Atom]:
    if rule.subject is not None:
        yield rule.subject
    for part in (rule.population, rule.trigger, rule.when):
        yield from iter_atoms(part)


def all_atoms(criteria: Criteria) -> Iterator[Atom]:
    for rule in criteria.rules:
        yield from rule_atoms(rule)
    for statement in criteria.designations:
        yield statement.subject
    for amendment in criteria.amendments:
        yield from iter_atoms(amendment.replacement)
        yield from iter_atoms(amendment.population)


def map_atoms(node: Node | None, fn: Callable[[Atom], Node]) -> Node | None:
    """A copy of `node` with every atom replaced by `fn(atom)` (waiver references follow the ids)."""
    if node is None:
        return None
    if isinstance(node, AllOf | AnyOf | AtLeast):
        return dataclasses.replace(node, children=tuple(_required(map_atoms(c, fn)) for c in node.children))
    if isinstance(node, Not):
        return dataclasses.replace(node, child=_required(map_atoms(node.child, fn)))
    if isinstance(node, Ref):
        return node
    if isinstance(node, Waiver):
        return Waiver(_required(map_atoms(node.body, fn)), _required(map_atoms(node.condition, fn)),
                      node.waives, node.span)
    if isinstance(node, Routing):
        target = fn(node.target) if node.target is not None else None
        if target is not None and not isinstance(target, Service):
            raise ValueError("a routing target must stay a service")
        return Routing(_required(map_atoms(node.condition, fn)), node.span, map_atoms(node.body, fn), target)
    return fn(node)


def _required(node: Node | None) -> Node:
    if node is None:  # pragma: no cover - map_atoms only returns None for None
        raise ValueError("a tree node went missing")
    return node


def renumber(criteria: Criteria) -> Criteria:
    """Atom ids a1, a2, ... in document order; waiver references are rewritten to match."""
    mapping: dict[str, str] = {}
    counter = iter(range(1, 1_000_000))

    def fresh(atom: Atom) -> Node:
        new_id = f"a{next(counter)}"
        mapping.setdefault(atom.id, new_id)
        return dataclasses.replace(atom, id=new_id)  # type: ignore[return-value]

    def fresh_service(service: Service) -> Service:
        new_id = f"a{next(counter)}"
        mapping.setdefault(service.id, new_id)
        return dataclasses.replace(service, id=new_id)

    rules = []
    for rule in criteria.rules:
        subject = fresh_service(rule.subject) if rule.subject is not None else None
        population = map_atoms(rule.population, fresh)
        trigger = map_atoms(rule.trigger, fresh)
        when = map_atoms(rule.when, fresh)
        rules.append(dataclasses.replace(rule, subject=subject, population=population, trigger=trigger, when=when))
    designations = tuple(
        dataclasses.replace(d, subject=fresh_service(d.subject)) for d in criteria.designations
    )
    amendments = tuple(
        dataclasses.replace(a, replacement=map_atoms(a.replacement, fresh), population=map_atoms(a.population, fresh))
        for a in criteria.amendments
    )

    def fix(node: Node | None) -> Node | None:
        if node is None:
            return None
        if isinstance(node, AllOf | AnyOf | AtLeast):
            return dataclasses.replace(node, children=tuple(_required(fix(c)) for c in node.children))
        if isinstance(node, Not):
            return dataclasses.replace(node, child=_required(fix(node.child)))
        if isinstance(node, Waiver):
            return Waiver(_required(fix(node.body)), _required(fix(node.condition)),
                          tuple(mapping.get(w, w) for w in node.waives), node.span)
        if isinstance(node, Routing):
            return Routing(_required(fix(node.condition)), node.span, fix(node.body), node.target)
        return node

    rules = [dataclasses.replace(r, population=fix(r.population), trigger=fix(r.trigger), when=fix(r.when))
             for r in rules]
    # the labelled criteria a reference names ("criteria (a) - (c) below") are numbered with the rest
    referenced = tuple(_required(fix(map_atoms(n, fresh))) for n in criteria.referenced)
    return Criteria(tuple(rules), designations, amendments, criteria.notes, referenced)  # type: ignore[arg-type]


def check_references(criteria: Criteria) -> None:
    """Atom ids are unique and every waiver names atoms of its own body; raises CriteriaError."""
    seen: set[str] = set()
    for atom in all_atoms(criteria):
        if atom.id in seen:
            raise CriteriaError("", f"atom id {atom.id!r} is used twice; give every atom its own id")
        seen.add(atom.id)

    def visit(node: Node | None) -> None:
        if node is None:
            return
        if isinstance(node, AllOf | AnyOf | AtLeast):
            for c in node.children:
                visit(c)
        elif isinstance(node, Not):
            visit(node.child)
        elif isinstance(node, Waiver):
            inside = {a.id for a in iter_atoms(node.body)}
            for ref in node.waives:
                if ref not in inside:
                    raise CriteriaError("", f"waiver names {ref!r}, which is not an atom of its body; "
                                            f"use one of {sorted(inside)}")
            visit(node.body)
            visit(node.condition)
        elif isinstance(node, Routing):
            visit(node.body)
            visit(node.condition)

    for rule in criteria.rules:
        for part in (rule.population, rule.trigger, rule.when):
            visit(part)


# --- JSON --------------------------------------------------------------------------------------


def _num_text(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def _severity_text(levels: tuple[str, ...]) -> str:
    return levels[0] if len(levels) == 1 else f"{levels[0]} to {levels[-1]}"


def _json_name(f: dataclasses.Field[Any]) -> str:
    return str(f.metadata.get("json", f.name))


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    """A node class's field types, resolved once per class (resolving them is slow)."""
    return typing.get_type_hints(cls, globalns=globals())


def to_json(value: Any) -> Any:
    """The JSON form of any tree value: nodes carry `kind`; fields at their default are left out."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out: dict[str, Any] = {}
        kind = getattr(type(value), "kind", None)
        if kind is not None:
            out["kind"] = kind
        for f in dataclasses.fields(value):
            item = getattr(value, f.name)
            if f.default is not dataclasses.MISSING and item == f.default:
                continue
            out[_json_name(f)] = to_json(item)
        return out
    if isinstance(value, tuple | list):
        return [to_json(v) for v in value]
    if isinstance(value, float):
        return int(value) if value.is_integer() else value
    return value


def criteria_to_json(criteria: Criteria) -> dict[str, Any]:
    """Criteria as JSON (what `Clause.criteria` holds), with the schema id first."""
    return {"schema": SCHEMA_ID, **to_json(criteria)}


class _Reader:
    """Reads criteria JSON strictly; a span may be written as its text when the clause text is known."""

    def __init__(self, clause_text: str | None) -> None:
        self.clause_text = clause_text

    def read(self, data: Any, tp: Any, path: str) -> Any:
        origin = typing.get_origin(tp)
        if tp is Node or (origin in (Union, types.UnionType) and any(a in NODE_TYPES for a in typing.get_args(tp))):
            if data is None and type(None) in typing.get_args(tp):
                return None
            return self.node(data, path)
        if origin in (Union, types.UnionType):
            args = typing.get_args(tp)
            if data is None and type(None) in args:
                return None
            inner = [a for a in args if a is not type(None)]
            return self.read(data, inner[0], path)
        if origin is Literal:
            allowed = typing.get_args(tp)
            if data not in allowed:
                raise CriteriaError(path, f"{data!r} is not one of {', '.join(map(str, allowed))}")
            return data
        if origin is tuple:
            if not isinstance(data, list):
                raise CriteriaError(path, "must be a list")
            item_type = typing.get_args(tp)[0]
            return tuple(self.read(v, item_type, f"{path}[{i}]") for i, v in enumerate(data))
        if tp is Span:
            return self.span(data, path)
        if dataclasses.is_dataclass(tp):
            return self.record(data, tp, path)  # type: ignore[arg-type]
        # The corpus's YAML reader keeps every plain scalar as written text, so numbers and booleans
        # of policy-as-code may arrive as text ("45", "true"); text that reads as one is accepted.
        if tp is float:
            if isinstance(data, str) and _NUMBER.fullmatch(data.strip()):
                return float(data)
            if isinstance(data, bool) or not isinstance(data, int | float):
                raise CriteriaError(path, "must be a number")
            return float(data)
        if tp is bool:
            if isinstance(data, str) and data.strip().lower() in ("true", "false"):
                return data.strip().lower() == "true"
            if not isinstance(data, bool):
                raise CriteriaError(path, "must be true or false")
            return data
        if tp is int:
            if isinstance(data, str) and data.strip().lstrip("-").isdigit():
                return int(data)
            if isinstance(data, bool) or not isinstance(data, int):
                raise CriteriaError(path, "must be an integer")
            return data
        if tp is str:
            if not isinstance(data, str) or not data.strip():
                raise CriteriaError(path, "must be non-empty text")
            return data
        raise CriteriaError(path, f"cannot read a {tp!r}")  # pragma: no cover

    def node(self, data: Any, path: str) -> Any:
        if not isinstance(data, dict) or "kind" not in data:
            raise CriteriaError(path, f"must be an object with a kind ({', '.join(sorted(_BY_KIND))})")
        cls = _BY_KIND.get(data["kind"])
        if cls is None:
            raise CriteriaError(f"{path}.kind", f"{data['kind']!r} is not a node kind; use one of "
                                                 f"{', '.join(sorted(_BY_KIND))}")
        return self.record(data, cls, path)

    def record(self, data: Any, cls: type, path: str) -> Any:
        if not isinstance(data, dict):
            raise CriteriaError(path, f"must be an object ({cls.__name__})")
        kind = getattr(cls, "kind", None)
        fields = {_json_name(f): f for f in dataclasses.fields(cls)}
        allowed = set(fields) | ({"kind"} if kind is not None else set())
        unknown = sorted(set(data) - allowed)
        if unknown:
            raise CriteriaError(f"{path}.{unknown[0]}", f"unknown key; {cls.__name__} takes {', '.join(sorted(allowed))}")
        hints = _hints(cls)
        values: dict[str, Any] = {}
        for name, f in fields.items():
            if name not in data:
                if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                    raise CriteriaError(f"{path}.{name}", "is required")
                continue
            values[f.name] = self.read(data[name], hints[f.name], f"{path}.{name}")
        return cls(**values)

    def span(self, data: Any, path: str) -> Span:
        text = self.clause_text
        if isinstance(data, str):
            if text is None:
                raise CriteriaError(path, "a span written as text needs the clause text; give {start, end, text}")
            at = text.find(data)
            if not data.strip() or at < 0:
                raise CriteriaError(path, f"{data!r} is not a verbatim part of the clause text")
            return Span(at, at + len(data), data)
        span = self.record(data, Span, path)
        if span.start < 0 or span.end < span.start:
            raise CriteriaError(path, "start and end must satisfy 0 <= start <= end")
        if text is not None and text[span.start:span.end] != span.text:
            raise CriteriaError(path, f"{span.text!r} is not the clause text at {span.start}..{span.end}")
        return span


def criteria_from_json(data: Any, clause_text: str | None = None) -> Criteria:
    """Load criteria JSON (policy-as-code); every span must quote `clause_text` verbatim when given.

    Atoms without an `id` are numbered a1, a2, ... in document order; waivers must then name ids, so
    an authored tree that uses a waiver gives its atoms ids.
    """
    if not isinstance(data, dict):
        raise CriteriaError("", "must be a JSON object with rules, designations, amendments, notes")
    data = dict(data)
    schema = data.pop("schema", SCHEMA_ID)
    if schema != SCHEMA_ID:
        raise CriteriaError(".schema", f"{schema!r} is not {SCHEMA_ID!r}")
    reader = _Reader(clause_text)
    filled = _fill_ids(data)
    criteria: Criteria = reader.record(filled, Criteria, "")
    check_references(criteria)
    return criteria


def _fill_ids(data: Any) -> Any:
    """Give id-less atoms fresh ids (x1, x2, ...) that cannot clash with authored ones."""
    taken: set[str] = set()

    def collect(value: Any) -> None:
        if isinstance(value, dict):
            if value.get("kind") in {t.kind for t in ATOM_TYPES} and isinstance(value.get("id"), str):
                taken.add(value["id"])
            for v in value.values():
                collect(v)
        elif isinstance(value, list):
            for v in value:
                collect(v)

    collect(data)
    counter = iter(range(1, 1_000_000))

    def fill(value: Any) -> Any:
        if isinstance(value, dict):
            out = {k: fill(v) for k, v in value.items()}
            if out.get("kind") in {t.kind for t in ATOM_TYPES} and "id" not in out:
                new = f"a{next(counter)}"
                while new in taken:
                    new = f"a{next(counter)}"
                taken.add(new)
                out["id"] = new
            return out
        if isinstance(value, list):
            return [fill(v) for v in value]
        return value

    return fill(data)


# --- JSON Schema -------------------------------------------------------------------------------


def _schema_for(tp: Any) -> dict[str, Any]:
    origin = typing.get_origin(tp)
    if tp is Node:
        return {"$ref": "#/$defs/node"}
    if origin in (Union, types.UnionType):
        args = typing.get_args(tp)
        inner = [a for a in args if a is not type(None)]
        if all(a in NODE_TYPES for a in inner) and len(inner) > 1:
            return {"anyOf": [{"$ref": "#/$defs/node"}, {"type": "null"}]}
        parts = [_schema_for(a) for a in inner]
        if type(None) in args:
            parts.append({"type": "null"})
        return parts[0] if len(parts) == 1 else {"anyOf": parts}
    if origin is Literal:
        return {"enum": list(typing.get_args(tp))}
    if origin is tuple:
        return {"type": "array", "items": _schema_for(typing.get_args(tp)[0])}
    if tp is Span:
        return {"$ref": "#/$defs/span"}
    if dataclasses.is_dataclass(tp):
        return {"$ref": f"#/$defs/{_def_name(tp)}"}  # type: ignore[arg-type]
    scalars: dict[Any, dict[str, Any]] = {float: {"type": "number"}, int: {"type": "integer"},
                                          bool: {"type": "boolean"}, str: {"type": "string", "minLength": 1}}
    return scalars[tp]


def _def_name(cls: type) -> str:
    kind = getattr(cls, "kind", None)
    return str(kind) if kind is not None else cls.__name__.lower()


def _record_schema(cls: type) -> dict[str, Any]:
    hints = _hints(cls)
    props: dict[str, Any] = {}
    required: list[str] = []
    kind = getattr(cls, "kind", None)
    if kind is not None:
        props["kind"] = {"const": kind}
        required.append("kind")
    for f in dataclasses.fields(cls):
        name = _json_name(f)
        props[name] = _schema_for(hints[f.name])
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            required.append(name)
    if kind is not None and "id" in required:
        required.remove("id")  # atoms without an id are numbered on load
    doc = (cls.__doc__ or "").strip().split("\n\n")[0]
    return {"type": "object", "description": " ".join(doc.split()), "properties": props,
            "required": required, "additionalProperties": False}


def criteria_schema() -> dict[str, Any]:
    """The JSON Schema of `Clause.criteria` (policy-as-code), for the corpus schema to embed."""
    defs: dict[str, Any] = {}
    for cls in (Period, Note, Rule, DesignationStatement, Amendment, *NODE_TYPES):
        defs[_def_name(cls)] = _record_schema(cls)
    defs["span"] = {
        "description": "A verbatim part of the clause text: its text alone, or offsets and text.",
        "anyOf": [
            {"type": "string", "minLength": 1},
            {"type": "object", "properties": {"start": {"type": "integer", "minimum": 0},
                                              "end": {"type": "integer", "minimum": 0},
                                              "text": {"type": "string"}},
             "required": ["start", "end", "text"], "additionalProperties": False},
        ],
    }
    defs["node"] = {"oneOf": [{"$ref": f"#/$defs/{_def_name(t)}"} for t in NODE_TYPES]}
    top = _record_schema(Criteria)
    top["properties"] = {"schema": {"const": SCHEMA_ID}, **top["properties"]}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": "clauseguard criteria (policy-as-code) v1",
        **top,
        "$defs": defs,
    }
