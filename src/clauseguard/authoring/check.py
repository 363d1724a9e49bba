"""`criteria check`: a sheet held against the corpus before any revision is written.

Every span must be a verbatim part of its clause, every node kind and comparator valid, every
cross-reference must resolve (in the clause, or in a clause of the same version), every sentence of a
deciding clause must be covered by the tree or by a note saying why it decides nothing, no hole may
be left, and the clause text must be the one the entry was written against. Each problem names the
clause, the key path and what would be valid; the tree is rendered back in plain words.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from clauseguard.authoring.draft import Reading, compiler_reading, current_reading, find_document
from clauseguard.authoring.plain import criteria_words
from clauseguard.authoring.revisions import DECIDING_ROLES, ROLES, Revision, clause_sha256
from clauseguard.authoring.sheet import Entry, Sheet, with_span_text
from clauseguard.corpus.criteria import (
    AllOf,
    AnyOf,
    AtLeast,
    Criteria,
    Node,
    Not,
    Ref,
    Routing,
    Span,
    Waiver,
    criteria_from_json,
    criteria_to_json,
)
from clauseguard.corpus.model import Clause, Corpus, Version
from clauseguard.errors import CriteriaError
from clauseguard.reading.lexicon import Lexicon, default_lexicon
from clauseguard.reading.references import References, marks_in
from clauseguard.text import sentences


@dataclass(frozen=True)
class SheetProblem:
    """One thing wrong with a sheet: the clause, the key path in the file, and what would be valid."""

    clause_id: str | None
    path: str
    message: str

    def __str__(self) -> str:
        where = f"{self.clause_id}: " if self.clause_id else ""
        return f"{where}{self.path}: {self.message}"

    def as_json(self) -> dict[str, Any]:
        return {"clause_id": self.clause_id, "path": self.path, "message": self.message}


@dataclass
class CheckedEntry:
    """A sheet entry read against its clause: the role and tree it gives, and the compiler's reading."""

    entry: Entry
    clause: Clause
    version: Version
    role: str
    compiler: Reading
    criteria: Criteria | None = None
    data: dict[str, Any] | None = None  # the criteria as they would be stored (spans with their text)

    @property
    def deciding(self) -> bool:
        return self.role in DECIDING_ROLES

    @property
    def words(self) -> list[str]:
        return criteria_words(self.criteria) if self.criteria is not None else []

    def same_as_compiler(self) -> bool:
        """True when the entry says what the compiler (or the corpus's own criteria) already reads."""
        mine = self.data if self.deciding else None
        theirs = _stored(self.compiler.result) if self.compiler.deciding else None
        return self.role == self.compiler.role and mine == theirs


@dataclass
class CheckReport:
    sheet: Sheet
    problems: list[SheetProblem] = field(default_factory=list)
    entries: list[CheckedEntry] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def as_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok, "document": self.sheet.document, "problems": [p.as_json() for p in self.problems],
            "clauses": [{"id": e.clause.id, "role": e.role, "deciding": e.deciding,
                         "authored": not e.same_as_compiler(), "plain": e.words} for e in self.entries],
        }


def _stored(result: Criteria | Any) -> dict[str, Any] | None:
    if not isinstance(result, Criteria):
        return None
    data = criteria_to_json(result)
    data.pop("schema", None)
    return data


def nodes_with_paths(criteria: Criteria) -> Iterator[tuple[str, Node]]:
    """Every node of a clause's criteria with its key path in the criteria JSON."""

    def walk(node: Node | None, path: str) -> Iterator[tuple[str, Node]]:
        if node is None:
            return
        yield path, node
        if isinstance(node, AllOf | AnyOf | AtLeast):
            for i, child in enumerate(node.children):
                yield from walk(child, f"{path}.children[{i}]")
        elif isinstance(node, Not):
            yield from walk(node.child, f"{path}.child")
        elif isinstance(node, Waiver):
            yield from walk(node.body, f"{path}.body")
            yield from walk(node.condition, f"{path}.condition")
        elif isinstance(node, Routing):
            yield from walk(node.body, f"{path}.body")
            yield from walk(node.condition, f"{path}.condition")
            yield from walk(node.target, f"{path}.target")

    for i, rule in enumerate(criteria.rules):
        for name in ("subject", "population", "trigger", "when"):
            yield from walk(getattr(rule, name), f".rules[{i}].{name}")
    for i, d in enumerate(criteria.designations):
        yield from walk(d.subject, f".designations[{i}].subject")
    for i, a in enumerate(criteria.amendments):
        yield from walk(a.replacement, f".amendments[{i}].replacement")
        yield from walk(a.population, f".amendments[{i}].population")
    for i, node in enumerate(criteria.referenced):
        yield from walk(node, f".referenced[{i}]")


def spans_of(criteria: Criteria) -> list[Span]:
    """Every stretch of the clause the criteria account for: rules, criteria, references, notes."""
    found = [r.span for r in criteria.rules] + [d.span for d in criteria.designations]
    found += [a.span for a in criteria.amendments] + [n.span for n in criteria.notes]
    found += [s for _, node in nodes_with_paths(criteria) if isinstance(s := getattr(node, "span", None), Span)]
    return found


class _Checker:
    def __init__(self, sheet: Sheet, corpus: Corpus, lexicon: Lexicon, revisions: Mapping[str, Revision]) -> None:
        self.sheet = sheet
        self.lex = lexicon
        self.revisions = revisions
        self.report = CheckReport(sheet)
        doc = find_document(corpus, sheet.document)
        self.where = {c.id: (v, c) for v in doc.versions for c in v.clauses
                      if sheet.version is None or v.version == sheet.version}

    def problem(self, entry: Entry | None, path: str, message: str) -> None:
        self.report.problems.append(SheetProblem(entry.clause_id if entry else None, path, message))

    def run(self) -> CheckReport:
        for entry in self.sheet.entries:
            found = self.where.get(entry.clause_id)
            if found is None:
                sample = ", ".join(list(self.where)[:6])
                scope = f"version {self.sheet.version} of " if self.sheet.version else ""
                self.problem(entry, f"{entry.path}.id", f"is not a clause of {scope}{self.sheet.document}; "
                                                        f"its clauses are {sample}, ...")
                continue
            checked = self.entry(entry, *found)
            if checked is not None:
                self.report.entries.append(checked)
        self.references()
        return self.report

    def entry(self, entry: Entry, version: Version, clause: Clause) -> CheckedEntry | None:
        text = clause.text
        if entry.text_sha256 is not None and entry.text_sha256 != clause_sha256(text):
            self.problem(entry, f"{entry.path}.text_sha256", "the clause text is not the one this entry was written "
                                                             "against; draft the clause again and re-author it")
        if entry.text is not None and entry.text != text:
            self.problem(entry, f"{entry.path}.text", "differs from the clause text in the store; draft it again")
        compiler = compiler_reading(clause, self.lex)
        if entry.role not in ROLES:
            self.problem(entry, f"{entry.path}.role", f"{entry.role!r} is not a clause role; use one of {', '.join(ROLES)}")
            return None
        for i, hole in enumerate(entry.holes):
            span = hole.get("span") if isinstance(hole, dict) else None
            at = f"{span.get('start')}..{span.get('end')}" if isinstance(span, dict) else "?"
            reason = hole.get("reason") if isinstance(hole, dict) else None
            self.problem(entry, f"{entry.path}.holes[{i}]",
                         f"the stretch at {at} is still unread ({reason or 'no reason given'}): write the criteria it "
                         "states (or a note saying why it decides nothing) in `criteria`, then delete the hole")
        checked = CheckedEntry(entry, clause, version, entry.role, compiler)
        if entry.role not in DECIDING_ROLES:
            return self.non_deciding(checked)
        if entry.criteria is None:
            self.problem(entry, f"{entry.path}.criteria", f"{_a(entry.role)} clause needs its criteria (rules, "
                                                          "designations or amendments); or give it a role that decides "
                                                          "nothing (administrative, definition, framing, reference) "
                                                          "with a reason")
            return checked
        criteria = self.tree(entry, text)
        if criteria is None:
            return checked
        if criteria.empty:
            self.problem(entry, f"{entry.path}.criteria", f"{_a(entry.role)} clause states at least one rule; give its "
                                                          "rules, or a role that decides nothing with a reason")
        self.coverage(entry, text, criteria)
        data = criteria_to_json(criteria)
        data.pop("schema", None)
        checked.criteria, checked.data = criteria, data
        return checked

    def non_deciding(self, checked: CheckedEntry) -> CheckedEntry:
        entry = checked.entry
        if entry.role != checked.compiler.role and not (entry.reason or "").strip():
            self.problem(entry, f"{entry.path}.reason", f"the compiler reads this clause as {checked.compiler.role}; "
                                                        f"say why it is {entry.role} (a clause that decides nothing "
                                                        "needs a reason when its role is corrected)")
        if entry.criteria is not None:
            criteria = self.tree(entry, checked.clause.text)
            if criteria is not None and not criteria.empty:
                self.problem(entry, f"{entry.path}.criteria", f"{_a(checked.role)} clause decides nothing: remove its "
                                                              "rules, or give it a role that decides (criteria, "
                                                              "limitation, exclusion)")
        checked.criteria = Criteria()
        return checked

    def tree(self, entry: Entry, text: str) -> Criteria | None:
        """The entry's criteria loaded strictly; every rule's first problem is reported."""
        spans: list[tuple[str, str]] = []
        raw = with_span_text(entry.criteria, text, "", spans)
        for path, message in spans:
            self.problem(entry, f"{entry.path}.criteria{path}", message)
        if spans:
            return None
        try:
            return criteria_from_json(raw, text)
        except CriteriaError as whole:
            rules = raw.get("rules") if isinstance(raw, dict) else None
            reported = False
            for i, rule in enumerate(rules if isinstance(rules, list) else []):
                try:
                    criteria_from_json({"rules": [rule]}, text)
                except CriteriaError as exc:
                    reported = True
                    path = exc.path.replace(".rules[0]", f".rules[{i}]", 1)
                    self.problem(entry, f"{entry.path}.criteria{path}", _message(exc))
            if not reported:
                self.problem(entry, f"{entry.path}.criteria{whole.path}", _message(whole))
            return None

    def coverage(self, entry: Entry, text: str, criteria: Criteria) -> None:
        spans = spans_of(criteria)
        for s in sentences(text):
            if any(sp.start < s.end and sp.end > s.start for sp in spans):
                continue
            head = s.text if len(s.text) <= 60 else s.text[:57] + "..."
            self.problem(entry, f"{entry.path}.criteria",
                         f"the sentence at {s.start}..{s.end} ({head!r}) is covered by no criterion; add what it "
                         f"requires, or a note {{kind: <why it decides nothing>, span: {{start: {s.start}, end: {s.end}}}}}")

    def references(self) -> None:
        """Every reference names criteria that exist: in its clause, or in a clause of the same version."""
        checked = {e.clause.id: e for e in self.report.entries}
        for entry in self.report.entries:
            if entry.criteria is None:
                continue
            siblings = [c for c in entry.version.clauses]
            readings: list[tuple[str, Criteria]] = []
            for c in siblings:
                mine = checked.get(c.id)
                result = mine.criteria if mine is not None else current_reading(c, self.lex, self.revisions).result
                if isinstance(result, Criteria):
                    readings.append((c.id, result))
            refs = References.of(readings)
            ids = [c.id for c in siblings]
            for path, node in nodes_with_paths(entry.criteria):
                if not isinstance(node, Ref):
                    continue
                where = f"{entry.entry.path}.criteria{path}"
                if node.clause is not None and node.clause not in ids:
                    self.problem(entry.entry, f"{where}.clause", f"{node.clause!r} is not a clause of version "
                                                                 f"{entry.version.version}; use one of {', '.join(ids)}")
                    continue
                target, note = refs.resolve(node, entry.clause.id)
                if target is None:
                    owner = node.clause or entry.clause.id
                    marks = sorted(marks_in(dict(readings).get(owner, Criteria())))
                    valid = f"marked in {owner}: {', '.join(marks)}" if marks else f"{owner} marks no criterion"
                    self.problem(entry.entry, where, f"the reference does not resolve ({note}); {valid}")


def _a(role: str) -> str:
    return ("an " if role[:1] in "aeiou" else "a ") + role


def _message(exc: CriteriaError) -> str:
    return str(exc).removeprefix(f"criteria{exc.path}: ")


def check_sheet(sheet: Sheet, corpus: Corpus, *, lexicon: Lexicon | None = None,
                revisions: Mapping[str, Revision] | None = None) -> CheckReport:
    """Every problem of a sheet against the corpus (an empty list: it may be added)."""
    return _Checker(sheet, corpus, lexicon or default_lexicon(), revisions or {}).run()
