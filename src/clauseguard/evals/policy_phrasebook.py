"""The policy phrasebook's judge: a compiled clause against the tree a blind author expected.

It owns the comparison rules the authors were told (evals/briefs/policy-phrasebook.md): role and
effects exact; composite structure exact up to child order, single-child and same-kind nesting;
atoms matched by kind and by the author's quote overlapping the compiler's span, then every typed
field exact; free-text names compared loosely. Verdicts: exact / refused / wrong (and why). It never
compiles anything itself: the caller hands it the compiler's result.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from clauseguard.corpus.criteria import (
    AllOf,
    AnyOf,
    AtLeast,
    Atom,
    Criteria,
    Node,
    Not,
    Ref,
    Routing,
    Rule,
    Span,
    Waiver,
)
from clauseguard.text import STOP_WORDS, stem, words

COMPOSITES: Final = ("all", "any", "at_least", "not", "waiver", "routing", "ref")
# Typed fields compared exactly when the author gives them (free-text names are compared loosely).
EXACT_FIELDS: Final = ("comparator", "value", "unit", "per", "severity", "statuses", "count", "within", "codes",
                       "designation", "currency", "of", "consultation")
LOOSE_FIELDS: Final = ("quantity", "therapy", "item", "concept", "specialties")
_UNITS: Final = {"%": "percent", "percentage": "percent", "pct": "percent"}
_PER_UNITS: Final = {"night": "day", "policy_year": "contract_year", "benefit_year": "contract_year"}


@dataclass(frozen=True)
class Verdict:
    category: str  # exact | refused | wrong
    why: str = ""


def _quote_spans(text: str, quote: str) -> list[tuple[int, int]]:
    out, at = [], text.find(quote)
    while at >= 0:
        out.append((at, at + len(quote)))
        at = text.find(quote, at + 1)
    return out


def _overlaps(span: Span | None, places: Sequence[tuple[int, int]]) -> bool:
    if span is None:
        return False
    return any(span.start < e and s < span.end for s, e in places)


def _stems(text: str) -> set[str]:
    return {stem(w) for w in words(text) if w not in STOP_WORDS and len(w) > 1}


def _loosely(expected: Any, got: Any, quote: str) -> bool:
    want = " ".join(expected) if isinstance(expected, list) else str(expected)
    have = " ".join(got) if isinstance(got, tuple | list) else str(got or "")
    pool = _stems(have)
    return bool(pool & _stems(want)) or bool(pool & _stems(quote)) or not _stems(want)


def _per(value: Any) -> tuple[float, str] | None:
    if value is None:
        return None
    if isinstance(value, str):
        unit = _PER_UNITS.get(value, value)
        return (1.0, unit)
    if isinstance(value, Mapping):
        unit = str(value.get("unit"))
        return (float(value.get("length", 1)), _PER_UNITS.get(unit, unit))
    length = float(getattr(value, "length", 1))
    unit = str(getattr(value, "unit", ""))
    return (length, _PER_UNITS.get(unit, unit))


def _field(atom: Atom, name: str) -> Any:
    value = getattr(atom, name, None)
    if name in ("per", "within"):
        return _per(value)
    if name == "unit":
        return _UNITS.get(str(value).lower(), str(value).lower()) if value else ""
    if name in ("severity", "statuses", "codes"):
        return frozenset(value or ())
    if name == "value":
        return float(value) if value is not None else None
    return value


def _expected_field(spec: Mapping[str, Any], name: str) -> Any:
    value = spec[name]
    if name in ("per", "within"):
        return _per(value)
    if name == "unit":
        return _UNITS.get(str(value).lower(), str(value).lower())
    if name in ("severity", "statuses", "codes"):
        return frozenset(value)
    if name == "value":
        return float(value)
    return value


class _Judge:
    def __init__(self, text: str, marks: Mapping[str, Node]) -> None:
        self.text = text
        self.marks = marks  # compiled nodes by mark, for in-entry references

    def atom(self, spec: Mapping[str, Any], got: Node) -> str | None:
        if not isinstance(got, Atom) or got.kind != spec.get("kind"):
            return f"expected a {spec.get('kind')} atom, got {getattr(got, 'kind', type(got).__name__)}"
        places = self.places(spec)
        quote = self.text[places[0][0]:places[0][1]] if places else ""
        if places and not _overlaps(got.span, places):
            return f"{got.kind} span {got.span.text!r} does not overlap {quote!r}"
        for name in EXACT_FIELDS:
            if name in spec and _expected_field(spec, name) != _field(got, name):
                return f"{got.kind} {name}: expected {spec[name]!r}, got {getattr(got, name, None)!r}"
        if spec.get("certainty") in ("suspected", "high_probability") and getattr(got, "certainty", None) != spec["certainty"]:
            return f"condition certainty: expected {spec['certainty']}"
        for name in LOOSE_FIELDS:
            if name in spec and not _loosely(spec[name], getattr(got, name, None), quote):
                return f"{got.kind} {name}: {getattr(got, name, None)!r} shares no word with {spec[name]!r}"
        return None

    def subject_places(self, subject: Any) -> list[tuple[int, int]]:
        if isinstance(subject, str):
            return _quote_spans(self.text, subject)
        return self.places(subject) if isinstance(subject, Mapping) else []

    def places(self, spec: Mapping[str, Any]) -> list[tuple[int, int]]:
        """Where the author's criterion is: `at: [start, end]`, or every occurrence of its quote."""
        if "at" in spec:
            return [(int(spec["at"][0]), int(spec["at"][1]))]
        quote = str(spec.get("quote", ""))
        return _quote_spans(self.text, quote) if quote else []

    def node(self, spec: Any, got: Node | None) -> str | None:
        if got is None:
            return "expected a criterion, got none"
        got = self.expand(got)
        spec = self.expand_spec(spec)
        key = next((k for k in COMPOSITES if isinstance(spec, Mapping) and k in spec), None)
        if key is None:
            return self.atom(spec, got)
        if key in ("all", "any"):
            cls = AllOf if key == "all" else AnyOf
            if not isinstance(got, cls):
                return f"expected {key.upper()} of {len(spec[key])}, got {type(got).__name__}"
            return self.children(spec[key], got.children, key)
        if key == "at_least":
            if not isinstance(got, AtLeast) or got.n != int(spec["at_least"]["n"]):
                return f"expected at least {spec['at_least']['n']} of, got {type(got).__name__}"
            return self.children(spec["at_least"]["of"], got.children)
        if key == "not":
            if not isinstance(got, Not):
                return f"expected NOT, got {type(got).__name__}"
            return self.node(spec["not"], got.child)
        if key == "waiver":
            if not isinstance(got, Waiver):
                return f"expected a waiver UNLESS, got {type(got).__name__}"
            return self.node(spec["waiver"]["body"], got.body) or self.node(spec["waiver"]["unless"], got.condition)
        if key == "routing":
            if not isinstance(got, Routing):
                return f"expected a routing UNLESS, got {type(got).__name__}"
            body = spec["routing"].get("body")
            if body is not None and (why := self.node(body, got.body)):
                return why
            return self.node(spec["routing"]["unless"], got.condition)
        ref = spec["ref"]
        if not isinstance(got, Ref):
            return f"expected a reference to {ref.get('to')}, got {type(got).__name__}"
        if {str(x).strip("()").lower() for x in ref.get("to", ())} != {x.lower() for x in got.labels}:
            return f"reference to {ref.get('to')}, got {list(got.labels)}"
        if ref.get("clause") and got.clause not in (None, ref["clause"]):
            return f"reference to clause {ref['clause']}, got {got.clause}"
        return None

    def children(self, specs: Sequence[Any], got: Sequence[Node], key: str = "all") -> str | None:
        flat_specs = self.flatten_spec(specs, key)
        got = self.flatten(got, AllOf if key == "all" else AnyOf)
        if len(flat_specs) != len(got):
            return f"expected {len(flat_specs)} items, got {len(got)}"
        left = list(got)
        for spec in flat_specs:
            for i, candidate in enumerate(left):
                if self.node(spec, candidate) is None:
                    del left[i]
                    break
            else:
                return f"no compiled item matches {_describe(spec)}" + (
                    f" ({self.node(spec, left[0])})" if len(left) == 1 else "")
        return None

    def flatten_spec(self, specs: Sequence[Any], key: str = "all") -> list[Any]:
        """Children with unmarked same-kind nesting spliced in: ALL of (ALL of a, b), c is ALL of a, b, c."""
        out: list[Any] = []
        for s in specs:
            s = self.expand_spec(s)
            if isinstance(s, Mapping) and key in ("all", "any") and key in s and "label" not in s:
                out.extend(self.flatten_spec(s[key], key))
            else:
                out.append(s)
        return out

    def flatten(self, nodes: Sequence[Node], cls: type) -> list[Node]:
        out: list[Node] = []
        for n in nodes:
            n = self.expand(n)
            if isinstance(n, cls) and getattr(n, "mark", None) is None:
                out.extend(self.flatten(getattr(n, "children", ()), cls))
            else:
                out.append(n)
        return out

    def expand(self, node: Node) -> Node:
        """A single-child ALL/ANY is its child; an in-entry reference is the node it names."""
        if isinstance(node, AllOf | AnyOf) and len(node.children) == 1:
            return self.expand(node.children[0])
        if isinstance(node, Ref) and node.clause is None and node.labels and all(m in self.marks for m in node.labels):
            found = [self.marks[m] for m in node.labels]
            return found[0] if len(found) == 1 else AllOf(tuple(found))
        return node

    def expand_spec(self, spec: Any) -> Any:
        if isinstance(spec, Mapping):
            for key in ("all", "any"):
                if key in spec and len(spec[key]) == 1:
                    return self.expand_spec(spec[key][0])
        return spec

    def rule(self, spec: Mapping[str, Any], got: Rule) -> str | None:
        if spec.get("effect") != got.effect:
            return f"effect {got.effect}, expected {spec.get('effect')}"
        if spec.get("approval") and spec["approval"] != got.approval:
            return f"approval {got.approval}, expected {spec['approval']}"
        if spec.get("approval_period") and _per(spec["approval_period"]) != _per(got.approval_period):
            return f"approval period {got.approval_period}, expected {spec['approval_period']}"
        subject = spec.get("subject")
        places = self.subject_places(subject)
        if places and got.subject is not None and not _overlaps(got.subject.span, places):
            codes = set(subject.get("codes", ())) if isinstance(subject, Mapping) else set()
            if not codes or codes != set(got.subject.codes):
                return f"subject {got.subject.span.text!r} is not {self.text[places[0][0]:places[0][1]]!r}"
        for part in ("population", "trigger", "when"):
            want, have = spec.get(part), getattr(got, part)
            if want is None and have is None:
                continue
            if want is None or have is None:
                return f"{part}: expected {'none' if want is None else _describe(want)}, got " \
                       f"{'none' if have is None else type(have).__name__}"
            if (why := self.node(want, have)) is not None:
                return f"{part}: {why}"
        return None


def _describe(spec: Any) -> str:
    if isinstance(spec, Mapping):
        if "kind" in spec:
            return f"{spec['kind']} {spec.get('quote', '')!r}"
        key = next((k for k in COMPOSITES if k in spec), "?")
        return f"{key.upper()}"
    return repr(spec)


def marks_of(criteria: Criteria) -> dict[str, Node]:
    found: dict[str, Node] = {}

    def walk(node: Node | None) -> None:
        if node is None:
            return
        mark = getattr(node, "mark", None)
        if mark:
            found.setdefault(mark, node)
        for child in getattr(node, "children", ()) or ():
            walk(child)
        for name in ("child", "body", "condition"):
            walk(getattr(node, name, None))

    for rule in criteria.rules:
        for part in (rule.population, rule.trigger, rule.when):
            walk(part)
    for node in criteria.referenced:
        walk(node)
    return found


def judge_tree(text: str, expected: Any, compiled: Criteria | None) -> Verdict:
    """exact / refused / wrong for one entry; `compiled` None means the compiler refused."""
    if compiled is None:
        return Verdict("refused" if expected != "none" else "wrong", "refused a text that decides nothing"
                       if expected == "none" else "")
    if expected == "refuse":
        return Verdict("wrong", "compiled a text the author says no compiler should claim to read")
    if expected == "none":
        return Verdict("exact") if compiled.empty else Verdict("wrong", "read a rule from a text that decides nothing")
    judge = _Judge(text, marks_of(compiled))
    rules = list(expected.get("rules", ()))
    # One rule over a list of subjects states what one rule per subject states: a compiled rule may
    # answer for several expected rules that differ only in their subject.
    used: set[int] = set()
    for spec in rules:
        reasons = []
        for i, got in enumerate(compiled.rules):
            why = judge.rule(spec, got)
            if why is None:
                used.add(i)
                break
            reasons.append(why)
        else:
            return Verdict("wrong", f"rule {spec.get('effect')}: " + (reasons[0] if reasons else "no rule to match"))
    # "X is covered up to N per month": one author writes the limit alone, another the coverage and
    # the limit; a compiled coverage of a limit's own service and population, with nothing else to
    # check, states only what the limit implies (the service is covered within the bound).
    limits = [compiled.rules[i] for i in used if compiled.rules[i].effect == "limit"]
    used |= {i for i, r in enumerate(compiled.rules) if i not in used and r.effect == "covered" and r.when is None
             and r.trigger is None and any(_same_service(r, lim) for lim in limits)}
    if len(used) != len(compiled.rules):
        extra = next(r for i, r in enumerate(compiled.rules) if i not in used)
        return Verdict("wrong", f"expected {len(rules)} rule(s), got {len(compiled.rules)}: an extra {extra.effect} rule")
    want_amend = len(expected.get("amendments", ()))
    if want_amend != len(compiled.amendments):
        return Verdict("wrong", f"expected {want_amend} amendment(s), got {len(compiled.amendments)}")
    return Verdict("exact")


def _same_service(a: Rule, b: Rule) -> bool:
    def shape(node: Node | None) -> str:  # the node without the ids it was given
        return re.sub(r"id='[^']*'", "", repr(node))

    return (a.subject is not None and b.subject is not None and a.subject.concept == b.subject.concept
            and shape(a.population) == shape(b.population))


def atoms_quote_the_text(text: str, compiled: Criteria) -> bool:
    """Every compiled span is a verbatim stretch of the text (the criteria loader's own rule)."""
    from clauseguard.corpus.criteria import all_atoms

    return all(text[a.span.start:a.span.end] == a.span.text for a in all_atoms(compiled)) and \
        all(text[r.span.start:r.span.end] == r.span.text for r in compiled.rules)

