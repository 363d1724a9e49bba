"""The rule compiler: clause prose -> criteria tree, or an honest refusal naming what it could not read.

Grammar here, words from the lexicon; a word it cannot place refuses the sentence, so a clause compiles
whole or not at all. It never guesses and never keys a rule on any corpus's ids or sentences.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from clauseguard.corpus.criteria import (
    Age,
    AllOf,
    Amendment,
    Amount,
    AnyOf,
    Atom,
    Comparator,
    Condition,
    Count,
    Criteria,
    Designation,
    DesignationStatement,
    Documentation,
    Duration,
    Measure,
    Node,
    Not,
    Note,
    Period,
    Routing,
    Rule,
    Service,
    Span,
    Tenure,
    Treatment,
    Waiver,
    criteria_from_json,
    iter_atoms,
    map_atoms,
    renumber,
)
from clauseguard.reading.grammar.result import Refusal, Unread
from clauseguard.reading.lexicon import Lexicon, default_lexicon, normalise

# Grammar words: the closed-class words the grammar itself is made of (articles, auxiliaries,
# prepositions). Domain vocabulary never appears here; it is read from the lexicon.
_ARTICLES: Final = ("a", "an", "the", "any")
_STOP: Final = frozenset(
    "is are was were be been being has have had must may will shall can cannot could should would does do did "
    "not no nor when if unless which that who whom whose where while per than more less least most after before "
    "within during until from by to and or but either neither both each every all following because since "
    "despite without however means including include includes also only solely then there this these those "
    "regardless whether whereas although though with alone "
    "it its they them he she his her their our your we you i".split()
)
GRAMMAR_WORDS: Final = _STOP | frozenset(_ARTICLES)  # for readers that set the grammar aside
_CODE = re.compile(r"\s*\(\s*((?:[A-Z]\d{4}|\d{4}[A-Z0-9])(?:\s*,\s*(?:[A-Z]\d{4}|\d{4}[A-Z0-9]))*)\s*\)")


class _Unread(Exception):
    """A stretch of the clause the grammar cannot account for."""

    def __init__(self, start: int, end: int, reason: str) -> None:
        super().__init__(reason)
        self.start = start
        self.end = end
        self.reason = reason
        self.subject: Service | None = None  # the service the unreadable sentence is about, when read
        self.population: Node | None = None  # the population it is for, when read


class _Ambiguous(_Unread):
    """Words that read two ways (AND and OR mixed without a list): no other split may rescue them."""


def compile_clause(text: str, lexicon: Lexicon | None = None) -> Criteria | Refusal:
    """Compile clause prose into criteria; any sentence it cannot read whole refuses the clause."""
    return _Compiler(text, lexicon or default_lexicon()).run()


def criteria_for_clause(clause: Any, lexicon: Lexicon | None = None) -> Criteria | Refusal:
    """The clause's own `criteria` (policy-as-code) when present, else the compiled prose."""
    if getattr(clause, "criteria", None) is not None:
        return criteria_from_json(clause.criteria, clause.text)
    return compile_clause(clause.text, lexicon)


# --- the compiler ------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Seg:
    start: int
    end: int


@dataclass
class _RuleDraft:
    effect: str
    span: Span
    subject: Service | None = None
    population: list[Node] = dataclasses.field(default_factory=list)
    trigger: list[Node] = dataclasses.field(default_factory=list)
    when: list[Node] = dataclasses.field(default_factory=list)
    remarks: list[Note] = dataclasses.field(default_factory=list)
    anaphor: str | None = None  # the condition a bare "disease" refers back to
    pending_count: tuple[float, str, int, int] | None = None  # "One X is covered per ..." awaits its period
    also: list[Service] = dataclasses.field(default_factory=list)  # more subjects: "Crowns and bridges are ..."
    caps: list[Amount] = dataclasses.field(default_factory=list)  # money caps: a limit rule of their own


def _alt(phrases: Sequence[str]) -> str:
    """A regex alternation of phrases, longest first, spaces matching any whitespace."""
    items = sorted({p for p in phrases if p}, key=lambda p: (-len(p), p))
    return "(?:" + "|".join(r"\s+".join(re.escape(w) for w in p.split()) for p in items) + ")"


class _Grammar:
    """The compiler's patterns, built from one lexicon's phrase lists: once per lexicon instance
    (kept on it by `Lexicon.derived`), never per clause and never shared between lexicons."""

    def __init__(self, lex: Lexicon) -> None:
        P = "phrasing.yaml"
        self.words = {k: v for k, v in lex.number_words().items() if k not in lex.article_numbers()}
        units = [w for w in self.words if w.isalpha() and self.words[w] < 10]
        tens = [w for w in self.words if w.isalpha() and self.words[w] in (20, 30, 40, 50, 60, 70, 80, 90)]
        word_num = rf"(?:{_alt(tens)}-{_alt(units)}|{_alt(list(self.words))})"
        self.NUM = rf"(?:\d+(?:\.\d+)?|{word_num}(?:\s*\(\s*\d+(?:\.\d+)?\s*\))?)"
        self.num_re = re.compile(rf"^{self.NUM}$", re.I)
        comparators = lex.data[P]["comparators"]
        self.cmp_pre = {normalise(p): op for op, ps in comparators["prefix"].items() for p in ps}
        self.cmp_suf = {normalise(p): op for op, ps in comparators["suffix"].items() for p in ps}
        self.PRE = _alt(list(self.cmp_pre))
        self.SUF = _alt(list(self.cmp_suf))
        self.time_units = lex.time_units()
        self.TIME = _alt(list(self.time_units))
        self.units = lex.units()
        self.UNIT = "(?:" + "|".join(
            re.escape(u) if u == "%" else r"\s+".join(re.escape(w) for w in u.split())
            for u in sorted(self.units, key=lambda u: (-len(u), u))
        ) + ")"
        self.period_names = lex.period_names()
        self.PNAME = _alt(list(self.period_names))
        self.rolling = _alt(lex.phrases(P, "rolling_words"))
        self.pnoun = _alt(lex.phrases(P, "period_nouns"))
        self.effects = lex.phrase_map(P, "effects")
        self.effect_re = lex.pattern([p for ps in self.effects.values() for p in ps], "effects")
        self.effect_of = {p: eff for eff, ps in self.effects.items() for p in ps}
        self.requires_re = lex.pattern(lex.phrases(P, "requires"), "requires")
        self.qualify_re = lex.pattern(lex.phrases(P, "qualify"), "qualify")
        self.designations = lex.phrases(P, "designations")
        self.DESIG = _alt(list(self.designations))
        self.DESIG_VERB = _alt(lex.phrases(P, "designation_verbs"))
        intros = lex.phrase_map(P, "condition_intros")
        self.when_intro = _alt(list(intros["when"]))
        self.pop_intro = _alt(lex.phrases(P, "population_intros"))
        self.MEMBER = _alt(lex.phrases(P, "member_words"))
        self.AND = _alt([*lex.phrases(P, "and_words"), *lex.phrases(P, "cause_words")])
        self.exceptions_re = lex.pattern(lex.phrases(P, "exceptions"), "exceptions")
        self.waiver_conseq = _alt(lex.phrases(P, "waiver_consequents"))
        self.routing_conseq = _alt(lex.phrases(P, "routing_consequents"))
        self.ABSENCE = _alt(lex.phrases(P, "absence"))
        lists = lex.phrase_map(P, "lists")
        self.LIST_ALL = _alt(list(lists["all"]))
        self.LIST_ANY = _alt(list(lists["any"]))
        self.notes = lex.phrase_map(P, "notes")
        self.remarks = lex.phrases(P, "remarks")
        self.amend = lex.phrase_map(P, "amendments")
        self.generic_services = frozenset(lex.phrases(P, "generic_services"))
        self.verbs = frozenset(lex.phrases(P, "verbs"))
        self.DOCUMENTERS = _alt(lex.phrases(P, "documenters"))
        self.therapy_heads = lex.phrases(P, "therapy_heads")
        self.anaphora = frozenset(lex.phrases(P, "anaphora"))
        self.outcomes = {p: name for name, ps in lex.phrase_map("cues.yaml", "outcomes").items() for p in ps}
        self.OUTCOME = _alt(list(self.outcomes))
        self.amendment_remarks = lex.phrases(P, "amendment_remarks")
        comparator_words = {w for p in [*self.cmp_pre, *self.cmp_suf] for w in p.split()
                            if len(w) > 2 and w not in ("the", "and", "for")}
        self.not_concepts = frozenset(lex.phrases(P, "not_concepts")) | comparator_words | set(self.time_units)
        C = "cues.yaml"
        self.severity_levels = lex.phrases(C, "severity_levels")
        self.qualifier_words = lex.phrases(C, "qualifiers")
        status = lex.phrase_map(C, "treatment_status")
        self.failed_words = status["failed"]
        self.AMEND_KEEP = _alt(self.amend["keep"])
        self.AMEND_VERB = _alt(self.amend["waive"] + self.amend["replace"])
        self.times = lex.times_words()
        self.TIMES = "|".join(re.escape(w) for w in self.times)
        self.remark_patterns = tuple((phrase, lex.pattern([phrase], f"remark-{phrase}"))
                                     for phrase in sorted(self.remarks, key=lambda p: -len(p)))
        rates = lex.phrase_map(P, "rates")
        percent = _alt([form for form, unit in self.units.items() if unit == "percent"])
        self.rate_re = re.compile(
            rf"(?<![\w-])at\s+(?:{self.NUM}\s*{percent}|{_alt(list(rates['shown']))})"
            rf"(?:\s+of\s+{_alt(list(rates['bases']))})?(?![\w-])", re.I)
        self.allowance_re = re.compile(
            r"(?<![\w-])(?:within|under)\s+(?:the|an?|its)\s+(?:annual\s+|yearly\s+)?(?:[a-z\-]+\s+){0,2}allowance(?![\w-])",
            re.I)
        self.deductible_re = re.compile(
            r"(?<![\w-])(?:after|once)\s+the\s+(?:annual\s+|yearly\s+)?deductible"
            r"(?:\s+(?:has\s+been|is)\s+(?:met|satisfied|paid))?(?![\w-])", re.I)
        caps = lex.phrase_map(P, "caps")
        self.currencies = lex.currencies()
        currency = "(?:" + "|".join(
            r"\s+".join(map(re.escape, c.split())) for c in sorted(self.currencies, key=lambda c: (-len(c), c))) + ")"
        money = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
        self.cap_re = re.compile(
            rf"(?:(?:to\s+)?{_alt(list(caps['before']))}\s+|within\s+an?\s+(?P<annual>annual\s+|yearly\s+)?"
            rf"(?:[a-z\-]+\s+)?cap\s+of\s+)"
            rf"(?:(?P<cur>{currency})\s*(?P<n>{money})|(?P<n2>{money})\s*(?P<cur2>{currency}))"
            rf"(?:\s+{_alt(list(caps['per_person']))})?"
            rf"(?:\s+(?:per|in\s+any|in\s+a|in\s+each|each|every|a)\s+(?P<p>.+))?", re.I)
        approval = lex.phrase_map(P, "approval")
        self.approval_item = approval["item"][0]
        self.approval_re = re.compile(
            rf"^{_alt(list(approval['approvers']))}\s+{_alt(list(approval['verbs']))}\s+(?P<what>.+?)\s+"
            rf"(?:{_alt(list(approval['timing']))}\s+(?P<ev>.+)|{_alt(list(approval['advance']))})$", re.I)
        excl = lex.phrase_map(P, "contract_exclusions")
        self.contract_exclusion_re = re.compile(
            rf"^(?:{_alt(list(excl['holders']))}\s+{_alt(list(excl['verbs']))}"
            rf"|{_alt(list(excl['no_benefit']))}(?:\s+(?:under|by)\s+(?:this|the)\s+(?:rider|policy|contract|plan))?"
            rf"\s+for)\s+(?P<list>.+)$", re.I | re.S)
        definitions = lex.phrase_map(P, "definitions")
        self.definition_re = re.compile(
            rf"^(?:{_alt(list(definitions['intros']))},?\s+)?['‘\"“][^'’\"”]+['’\"”]\s+{_alt(list(definitions['verbs']))}\s",
            re.I)
        waiting = lex.phrase_map(P, "waiting")
        self.WAIT_FROM = _alt(list(waiting["starts"]))
        self.WAIT_DURING = _alt(list(waiting["during"]))
        self.INSURED = _alt(list(waiting["insured"]))
        self.UNDER = _alt(list(waiting["under"]))
        self.occasions = {phrase: unit for unit, ps in lex.phrase_map(P, "occasions").items() for phrase in ps}
        self.SITE = _alt(lex.phrases(P, "sites"))
        first = lex.phrase_map(P, "first_line")
        covered = _alt(list(self.effects["covered"]))
        states = _alt(list(first["states"]))
        self.first_line = re.compile(
            rf"^(?P<subj>.+?)\s+{covered}\s+{_alt(list(first['roles']))}\s+"
            rf"(?:{_alt(list(first['before']))}\s+(?:(?:a|an|the)\s+)?(?P<state>{states})\s+diagnosis"
            rf"|{_alt(list(first['once']))}\s+the\s+diagnosis\s+(?:is|has\s+been)\s+(?P<state2>{states}))$", re.I)


def _grammar(lex: Lexicon) -> _Grammar:
    return lex.derived("compiler.grammar", _Grammar)


class _Compiler:
    def __init__(self, text: str, lexicon: Lexicon) -> None:
        self.text = text
        self.lex = lexicon
        self.ids = iter(range(1, 1_000_000))
        self.loose: set[int] = set()  # nodes made by splitting at a connective (not by a list)
        self.listed: set[int] = set()  # nodes made from an explicit list ("one of the following: ...")
        self.bare = 0  # > 0 where a bare noun phrase may name a condition (lists, populations, indications)
        self.keep_alive: list[Node] = []
        self.g = _grammar(lexicon)
        self.last_waiting: Tenure | None = None  # the waiting period a later sentence's "that period" means
        self.last_subjects: list[Service] = []  # what "such treatment" in a later sentence means
        self.last_count: Count | None = None  # the allowance "earlier replacement" in a later sentence exceeds

    # --- driver ------------------------------------------------------------------------------

    def run(self) -> Criteria | Refusal:
        rules: list[Rule] = []
        designations: list[DesignationStatement] = []
        amendments: list[Amendment] = []
        notes: list[Note] = []
        unread: list[Unread] = []
        for seg in self._sentences():
            try:
                out = self._sentence(seg)
            except _Unread as problem:
                start, end = problem.start, problem.end
                if end <= start:
                    start, end = seg.start, seg.end
                unread.append(Unread(self._span(start, end), problem.reason, problem.subject, problem.population))
                continue
            for item in out:
                if isinstance(item, Rule):
                    rules.append(item)
                elif isinstance(item, DesignationStatement):
                    designations.append(item)
                elif isinstance(item, Amendment):
                    amendments.append(item)
                else:
                    notes.append(item)
        if unread:
            read = Criteria(tuple(rules), tuple(designations), tuple(amendments), tuple(notes))
            return Refusal(tuple(unread), None if read.empty else renumber(read))
        criteria = Criteria(tuple(rules), tuple(designations), tuple(amendments), tuple(notes))
        if criteria.empty and not criteria.notes:
            return Refusal((Unread(self._span(0, len(self.text)), "no statement the compiler can read"),))
        return renumber(criteria)

    def _span(self, start: int, end: int) -> Span:
        start, end = self._trim(start, end)
        return Span(start, end, self.text[start:end])

    def _trim(self, start: int, end: int) -> tuple[int, int]:
        text = self.text
        while start < end and text[start] in " \t\n,;:":
            start += 1
        while end > start and text[end - 1] in " \t\n,;:.":
            end -= 1
        return start, end

    def _t(self, seg: _Seg) -> str:
        return self.text[seg.start:seg.end]

    def _sentences(self) -> list[_Seg]:
        text = self.text
        out: list[_Seg] = []
        depth = 0
        start = 0
        i = 0
        while i < len(text):
            ch = text[i]
            if ch == "(":
                depth += 1
            elif ch == ")":
                depth = max(0, depth - 1)
            elif ch == "." and depth == 0:
                nxt = text[i + 1:i + 3]
                prev = text[max(0, i - 4):i].lower()
                is_number = i > 0 and text[i - 1].isdigit() and i + 1 < len(text) and text[i + 1].isdigit()
                is_abbrev = prev.endswith(("e.g", "i.e", " vs", "etc"))
                if not is_number and not is_abbrev and (i + 1 >= len(text) or (nxt[:1].isspace())):
                    seg = _Seg(*self._trim(start, i))
                    if seg.end > seg.start:
                        out.append(seg)
                    start = i + 1
            i += 1
        tail = _Seg(*self._trim(start, len(text)))
        if tail.end > tail.start:
            out.append(tail)
        return [part for seg in out for part in self._statements(seg)]

    def _statements(self, seg: _Seg) -> list[_Seg]:
        """A sentence of two statements joined by ';' ("One X is reimbursed per knee; codes A and B are not
        billed together"): split where the part after ';' makes a statement of its own. A list (after ':')
        keeps its ';'."""
        text = self._t(seg)
        if ":" in text or ";" not in text:
            return [seg]
        out: list[_Seg] = []
        start = seg.start
        for m in re.finditer(r";\s*", text):
            after = text[m.end():]
            nxt = after.split(";", 1)[0]
            notes = [p for kind in ("billing", "removed", "elsewhere") for p in self.g.notes[kind]]
            if self.g.effect_re.search(nxt) or self.lex.pattern(notes, "statement-notes").search(nxt):
                out.append(_Seg(*self._trim(start, seg.start + m.start())))
                start = seg.start + m.end()
        out.append(_Seg(*self._trim(start, seg.end)))
        return [s for s in out if s.end > s.start]

    def fresh(self) -> str:
        return f"t{next(self.ids)}"

    # --- sentences ---------------------------------------------------------------------------

    def _sentence(self, seg: _Seg) -> list[Any]:
        text = self._t(seg)
        note = self._note(seg, text)
        if note is not None:
            return [note]
        amendments = self._amendment(seg)
        if amendments is not None:
            return list(amendments)
        designation = self._designation(seg)
        if designation is not None:
            return designation
        restated = self._first_line(seg)
        if restated is not None:
            return [restated]
        waiting = self._waiting(seg)
        if waiting is not None:
            return waiting
        excluded = self._contract_exclusion(seg)
        if excluded is not None:
            return excluded
        return self._rule_sentence(seg)

    # --- group terms: waiting periods, what the contract does not cover ------------------------

    def _waiting(self, seg: _Seg) -> list[Any] | None:
        """'X become payable only after a waiting period of N months from joining' and 'A waiting period
        of N months from entry into the contract applies to X': while the member has been insured for
        less than the period, X is not covered."""
        text = self._t(seg)
        N, T = self.g.NUM, self.g.TIME
        m = re.match(
            rf"^(?P<subj>.+?)\s+(?:become|becomes|are|is)\s+(?:payable|reimbursed|covered|paid)\s+only\s+after\s+"
            rf"(?P<wait>(?:a|the)\s+waiting\s+period\s+of\s+(?P<n>{N})[\s-]*(?P<t>{T})(?:\s+(?P<from>.+?))?)$", text, re.I)
        if m is None:
            m = re.match(
                rf"^(?P<wait>(?:a|the)\s+waiting\s+period\s+of\s+(?P<n>{N})[\s-]*(?P<t>{T})(?:\s+(?P<from>.+?))?)\s+"
                rf"applies\s+to\s+(?P<subj>.+)$", text, re.I)
        if m is None:
            return self._during_waiting(seg)
        if m.group("from") is not None and not re.fullmatch(self.g.WAIT_FROM, m.group("from"), re.I):
            raise _Unread(seg.start + m.start("from"), seg.start + m.end("from"),
                          "a waiting period counted from a date other than entry into the contract")
        subjects = self._subject_list(_Seg(seg.start + m.start("subj"), seg.start + m.end("subj")))
        if not subjects:
            raise _Unread(seg.start + m.start("subj"), seg.start + m.end("subj"),
                          "the services a waiting period applies to, as services the lexicon knows")
        unit, _ = self.g.time_units[normalise(m.group("t"))]
        tenure = Tenure(self.fresh(), self._span(seg.start + m.start("wait"), seg.start + m.end("wait")), "<",
                        self._number(m.group("n"), seg.start + m.start("n")), unit)  # type: ignore[arg-type]
        self.last_waiting = tenure
        self.last_subjects = subjects
        span = self._span(seg.start, seg.end)
        return [Rule("not_covered", span, subject=s, trigger=dataclasses.replace(tenure, id=self.fresh()))
                for s in subjects]

    def _during_waiting(self, seg: _Seg) -> list[Any] | None:
        """'X started during that period is not reimbursed': the waiting period the clause just named."""
        text = self._t(seg)
        m = re.match(
            rf"^(?P<subj>.+?)\s+(?:started|begun|begins|fitted|provided|received|carried\s+out|performed|placed)\s+"
            rf"(?P<during>{self.g.WAIT_DURING})\s+(?:is|are)\s+not\s+(?:reimbursed|covered|payable|paid)$", text, re.I)
        if m is None:
            return None
        if self.last_waiting is None:
            raise _Unread(seg.start + m.start("during"), seg.start + m.end("during"),
                          "a waiting period the clause does not state")
        subj = _Seg(seg.start + m.start("subj"), seg.start + m.end("subj"))
        if re.fullmatch(r"such\s+(?:treatment|services|care|benefits)", self._t(subj).strip(), re.I):
            subjects = list(self.last_subjects)
        else:
            subjects = self._subject_list(subj) or []
        if not subjects:
            raise _Unread(subj.start, subj.end, "the services a waiting period applies to, as services the lexicon knows")
        span = self._span(seg.start, seg.end)
        trigger = dataclasses.replace(self.last_waiting, span=self._span(seg.start + m.start("during"),
                                                                          seg.start + m.end("during")))
        return [Rule("not_covered", span, subject=dataclasses.replace(s, id=self.fresh()),
                     trigger=dataclasses.replace(trigger, id=self.fresh())) for s in subjects]

    def _contract_exclusion(self, seg: _Seg) -> list[Any] | None:
        """'The contract does not cover A, B or C' / 'No benefit is paid under this rider for A or for B':
        not covered when the request is for (or presents) one of them."""
        m = self.g.contract_exclusion_re.match(self._t(seg))
        if m is None:
            return None
        start, end = self._trim(seg.start + m.start("list"), seg.end)
        text = self.text[start:end]
        # items introduced by their own "for" ("for stays in X, or for admissions for Y") stay whole
        pieces = list(re.finditer(r"(?:,\s*(?:or|and)\s+|,\s*|\s+(?:or|and)\s+)for\s+", text, re.I))
        bounds: list[tuple[int, int]] = []
        pos = 0
        for piece in pieces:
            bounds.append((pos, piece.start()))
            pos = piece.end()
        bounds.append((pos, len(text)))
        items: list[_Seg] = []
        if len(bounds) > 1:
            for a, b in bounds:
                if re.search(r",|\s(?:or|and)\s", text[a:b], re.I):
                    raise _Unread(start + a, start + b, "a list inside a listed exclusion")
                items.append(_Seg(start + a, start + b))
        else:
            for a, b in self._plain_list(text):
                items.append(_Seg(start + a, start + b))
        nodes: list[Node] = []
        for item in items:
            node = self._excluded_item(item)
            if node is None:
                raise _Unread(item.start, item.end, "an excluded item the compiler cannot name")
            nodes.append(node)
        trigger = nodes[0] if len(nodes) == 1 else AnyOf(tuple(nodes))
        return [Rule("not_covered", self._span(seg.start, seg.end), trigger=trigger)]

    @staticmethod
    def _plain_list(text: str) -> list[tuple[int, int]]:
        """'A, B or C' / 'A and B': the items' offsets in `text`."""
        out: list[tuple[int, int]] = []
        pos = 0
        for m in re.finditer(r",\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+", text, re.I):
            out.append((pos, m.start()))
            pos = m.end()
        out.append((pos, len(text)))
        return out

    def _excluded_item(self, seg: _Seg) -> Node | None:
        """One excluded item: a service the lexicon knows (the request is for it), a condition it knows,
        or a short plain phrase read as a condition the request must present literally."""
        start, end = self._trim(seg.start, seg.end)
        phrase = re.sub(r"^(?:a|an|the|any)\s+", "", normalise(self.text[start:end]))
        concept = self.lex.concept_named(phrase)
        span = self._span(start, end)
        if concept is not None:
            if self.lex.concepts[concept].domain == "condition":
                return Condition(self.fresh(), span, concept)
            return Service(self.fresh(), span, concept)
        words = phrase.split()
        if len(words) > 6 or set(words) & {"for", "of", "to", "by", "from", "with", "than", "as", "which", "that"}:
            return None
        if not self._free_ok(phrase, max_words=6):
            return None
        return Condition(self.fresh(), span, phrase)

    def _subject_list(self, seg: _Seg) -> list[Service] | None:
        """Services named as a list ('Crowns, bridges and dentures', 'to implant treatment and to crowns',
        'Benefits for dental prosthetics, including crowns and bridges'): every item a service the
        lexicon knows, else None. An item may borrow the last item's head ('prosthetic or implant
        treatment'); 'including' names kinds of the head, kept only where the lexicon does not already
        place them under it."""
        start, end = self._trim(seg.start, seg.end)
        text = self.text[start:end]
        lead = re.match(r"^(?:(?:the\s+)?(?:benefits?|cover|costs?)\s+(?:for|of)\s+)", text, re.I)
        if lead:
            start += lead.end()
            text = self.text[start:end]
        inc = re.match(r"^(?P<head>.+?),?\s+including\s+(?P<ex>.+)$", text, re.I)
        if inc:
            heads = self._known_services(start, start + inc.end("head"))
            examples = self._known_services(start + inc.start("ex"), end)
            if heads is None or examples is None:
                return None
            extra = [e for e in examples if not any(self.lex.is_a(e.concept, h.concept) for h in heads)]
            return heads + extra
        return self._known_services(start, end)

    def _known_services(self, start: int, end: int) -> list[Service] | None:
        text = self.text[start:end]
        parts = [(a, b) for a, b in self._plain_list(text) if text[a:b].strip()]
        out: list[Service] = []
        last = re.sub(r"^(?:to\s+)?(?:(?:a|an|the|any|all)\s+)?", "", normalise(text[parts[-1][0]:parts[-1][1]]))
        for a, b in parts:
            item = text[a:b]
            lead = re.match(r"^\s*(?:to\s+)?(?:(?:a|an|the|any|all)\s+)?", item, re.I)
            s0 = start + a + (lead.end() if lead else 0)
            phrase = normalise(self.text[s0:start + b])
            alone = self.lex.concept_named(phrase)
            borrowed = None
            if phrase != last and (alone is None or len(phrase.split()) == 1):
                # "prosthetic or implant treatment": an item may borrow the last item's head (a lone
                # modifier borrows it first)
                words = last.split()
                for k in range(1, len(words)):
                    borrowed = self.lex.concept_named(f"{phrase} {' '.join(words[-k:])}")
                    if borrowed is not None:
                        break
            concept = (borrowed or alone) if len(phrase.split()) == 1 else (alone or borrowed)
            if concept is None or self.lex.concepts[concept].domain == "condition":
                return None
            if any(o.concept == concept for o in out):
                continue  # "general practitioner and specialist consultations": one service
            codes = tuple(re.findall(r"[A-Z]\d{4}|\d{4}[A-Z0-9]", self.text[s0:start + b]))
            out.append(Service(self.fresh(), self._span(s0, start + b), concept, codes))
        return out

    def _with_subject(self, rule: Rule, subject: Service) -> Rule:
        """The same rule for another subject of a listed subject: atoms copied with their own ids, and a
        count of the first subject counts the new one."""
        first = rule.subject.concept if rule.subject is not None else None
        mapping: dict[str, str] = {}

        def copy(atom: Atom) -> Node:
            new_id = self.fresh()
            mapping[atom.id] = new_id
            if isinstance(atom, Count) and first is not None and atom.item == first:
                return dataclasses.replace(atom, id=new_id, item=subject.concept)
            return dataclasses.replace(atom, id=new_id)  # type: ignore[return-value]

        def fix(node: Node | None) -> Node | None:
            if isinstance(node, AllOf | AnyOf):
                return type(node)(tuple(fix(c) for c in node.children))  # type: ignore[misc]
            if isinstance(node, Not):
                return Not(fix(node.child))  # type: ignore[arg-type]
            if isinstance(node, Waiver):
                return Waiver(fix(node.body), fix(node.condition), tuple(mapping.get(w, w) for w in node.waives),  # type: ignore[arg-type]
                              node.span)
            if isinstance(node, Routing):
                return Routing(fix(node.condition), node.span, fix(node.body), node.target)  # type: ignore[arg-type]
            return node

        parts = [fix(map_atoms(part, copy)) for part in (rule.population, rule.trigger, rule.when)]
        return dataclasses.replace(rule, subject=subject, population=parts[0], trigger=parts[1], when=parts[2])

    def _first_line(self, seg: _Seg) -> Amendment | None:
        """'X may be authorized as first-line treatment upon confirmed diagnosis': X needs no earlier
        therapy, and the diagnosis it means (naming none) is the one the amended clause names. It adds
        no criterion: it restates that the diagnosis requirement stands."""
        m = self.g.first_line.match(self._t(seg))
        if m is None:
            return None
        if self._subject_np(_Seg(seg.start + m.start("subj"), seg.start + m.end("subj"))) is None:
            raise _Unread(seg.start, seg.start + m.end("subj"), "a subject the compiler cannot name")
        state = normalise(m.group("state") or m.group("state2"))
        return Amendment("keep", f"{state} diagnosis", self._span(seg.start, seg.end))

    def _note(self, seg: _Seg, text: str) -> Note | None:
        has_effect = self.g.effect_re.search(text) is not None
        low = normalise(text)
        for kind in ("scope", "claims"):
            for phrase in self.g.notes[kind]:
                if low.startswith(phrase):
                    return Note(kind, self._span(seg.start, seg.end))
        if self.g.definition_re.match(text):
            return Note("definition", self._span(seg.start, seg.end))
        if has_effect:
            return None
        for kind in ("removed", "precedence", "elsewhere", "billing"):
            if self.lex.pattern(self.g.notes[kind], f"note-{kind}").search(text):
                return Note(kind, self._span(seg.start, seg.end))
        return None

    def _amendment(self, seg: _Seg) -> list[Amendment] | None:
        text = self._t(seg)
        keep = re.match(
            rf"^(?:this|the)\s+(?:rider|endorsement|amendment)\s+{self.g.AMEND_KEEP}\s+"
            rf"(?:the\s+)?(?:requirements?\s+(?:for|of)\s+)?(?P<req>.+)$", text, re.I)
        if keep:
            return self._kept(_Seg(seg.start + keep.start("req"), seg.end), self._span(seg.start, seg.end))
        plan = r"(?:(?:(?:for|in)\s+members\s+(?:enrolled\s+in|on|of|covered\s+under)|under)\s+[^,]+,\s+)?"
        doc = r"[A-Z][A-Z0-9]*(?:[-.][A-Z0-9]+)+"
        # "The plan of care, the progress note and the exclusion in policy D continue to apply" / "Apart from
        # the authorization added by article 1, the criteria and the exclusions of policy D apply unchanged"
        still = re.match(
            rf"^(?:apart\s+from\s+[^,]+,\s+)?(?P<list>.+?)\s+(?:in|of)\s+(?:the\s+)?(?:policy|bulletin|document)\s+"
            rf"(?P<doc>{doc})\s+(?:continues?\s+to\s+apply|still\s+appl(?:y|ies)|appl(?:y|ies)\s+unchanged|remains?\s+in\s+force)$",
            text, re.I)
        if still:
            span = self._span(seg.start, seg.end)
            items = self._plain_list(still.group("list"))
            out: list[Amendment] = []
            for a, b in items:
                name = re.sub(r"^(?:the|a|an)\s+", "", normalise(still.group("list")[a:b]))
                if not name or not re.fullmatch(r"[a-z0-9][a-z0-9'\- ]*", name):
                    raise _Unread(seg.start + still.start("list") + a, seg.start + still.start("list") + b,
                                  "a kept requirement the compiler cannot name")
                out.append(Amendment("keep", name, span, (still.group("doc"),)))
            return out
        # "Under plan P, a member with X does not need the R that policy D requires before S; that one
        # requirement is waived": a waiver of R for members with X
        need = re.match(
            rf"^{plan}(?:(?:a|an|the|any)\s+)?(?:members?|patients?|enrollees?)\s+(?:with|diagnosed\s+with)\s+(?P<pop>.+?)\s+"
            rf"(?:does|do)\s+not\s+need\s+(?:the\s+)?(?P<req>.+?)\s+(?:that|which)\s+(?:the\s+)?(?:policy|bulletin|document)\s+"
            rf"(?P<doc>{doc})\s+requires(?:\s+(?:before|for)\s+[^;]+?)?"
            rf"(?:\s*;\s*(?:that|this)\s+(?:one\s+)?requirement\s+is\s+(?:hereby\s+)?waived)?$", text, re.I)
        if need:
            probe = _RuleDraft("covered", self._span(seg.start, seg.end))
            nodes = self._condition_list(_Seg(seg.start + need.start("pop"), seg.start + need.end("pop")), probe)
            req = self._requirement_name(seg.start + need.start("req"), seg.start + need.end("req"))
            population = nodes[0] if len(nodes) == 1 else AllOf(tuple(nodes))
            return [Amendment("waive", req, self._span(seg.start, seg.end), (need.group("doc"),), population=population)]
        m = re.match(
            rf"^{plan}(?P<req>.+?)\s+(?:(?:described|set\s+out|stated)\s+)?in\s+(?:the\s+[a-z ]+?\s+section\s+of\s+)?"
            rf"(?:the\s+)?(?:policy|bulletin|document)\s+(?P<doc>{doc})\s+"
            rf"(?P<verb>{self.g.AMEND_VERB})(?P<rest>.*)$", text, re.I)
        if not m:
            return None
        req = self._requirement_name(seg.start + m.start("req"), seg.start + m.end("req"))
        verb = normalise(m.group("verb"))
        rest = m.group("rest")
        span = self._span(seg.start, seg.end)
        if verb in self.g.amend["waive"]:
            if rest.strip():
                raise _Unread(seg.start + m.start("rest"), seg.end, "a waiver limited by further conditions")
            return [Amendment("waive", req, span, (m.group("doc"),))]
        lead = re.match(rf"^\s*(?:allow\s+)?(?:from\s+{self.g.NUM}\s+to\s+)?", rest, re.I)
        start = seg.start + m.start("rest") + (lead.end() if lead else 0)
        stop = seg.end
        tail = self.lex.pattern(self.g.amendment_remarks, "amendment-remarks").search(self.text, start, seg.end)
        if tail is not None and self.text[tail.end():seg.end].strip(" .") == "":
            stop = tail.start()
        replacement = self._count_phrase(_Seg(start, stop), item_default=None, limit=True)
        if replacement is None:
            raise _Unread(start, seg.end, "a replacement the compiler cannot read")
        return [Amendment("replace", req, span, (m.group("doc"),), replacement)]

    def _kept(self, seg: _Seg, span: Span) -> list[Amendment]:
        """'does not waive A or B, and it does not change C of policy D': each named requirement stands."""
        text = self._t(seg)
        groups = [(0, len(text))]
        more = re.search(r",\s+and\s+(?:it|this\s+rider)\s+(?:does|do)\s+not\s+(?:change|alter|affect|modify)\s+(?:the\s+)?",
                         text, re.I)
        if more:
            groups = [(0, more.start()), (more.end(), len(text))]
        out: list[Amendment] = []
        for a, b in groups:
            targets: tuple[str, ...] = ()
            of = re.search(r"\s+(?:of|in)\s+(?:the\s+)?(?:policy|bulletin|document)\s+(?P<doc>[A-Z][A-Z0-9]*(?:[-.][A-Z0-9]+)+)$",
                           text[a:b])
            if of:
                targets = (of.group("doc"),)
                b = a + of.start()
            pos = a
            for m in [*re.finditer(r"\s+or\s+(?:the\s+)?|\s+and\s+(?:the\s+)?", text[a:b], re.I), None]:
                stop = a + m.start() if m is not None else b
                out.append(Amendment("keep", self._requirement_name(seg.start + pos, seg.start + stop), span, targets))
                if m is not None:
                    pos = a + m.end()
        return out

    def _requirement_name(self, start: int, end: int) -> str:
        phrase = normalise(self.text[start:end])
        phrase = re.sub(r"^(?:the|a|an)\s+", "", phrase)
        phrase = re.sub(r"^(?:requirements?\s+(?:for|of)\s+)?(?:(?:the|a|an)\s+)?", "", phrase)
        phrase = re.sub(r"\s+(?:requirements?|limitations?|limits?)$", "", phrase)
        allowed = {"and", "or", "of", "for", "to", "with", "by", "from"}
        if not phrase or any(w in _STOP and w not in allowed for w in re.findall(r"[a-z]+", phrase)) or "," in phrase:
            raise _Unread(start, end, "the requirement is not named as one plain phrase")
        return phrase

    def _designation(self, seg: _Seg) -> list[Any] | None:
        text = self._t(seg)
        m = re.match(
            rf"^(?P<subj>.+?)\s+{self.g.DESIG_VERB}\s+(?P<desig>{self.g.DESIG})"
            rf"(?P<rest>\s+and\s+(?P<eff>.+))?$", text, re.I)
        if not m:
            return None
        subject = self._subject_np(_Seg(seg.start + m.start("subj"), seg.start + m.end("subj")))
        if subject is None:
            raise _Unread(seg.start, seg.start + m.end("subj"), "a designated subject the compiler cannot name")
        designation = normalise(m.group("desig"))
        span = self._span(seg.start, seg.end)
        out: list[Any] = []
        if m.group("rest"):
            eff_text = m.group("eff").strip()
            remark = self.lex.pattern(self.g.remarks, "remarks-all").search(eff_text)
            if remark is not None and remark.end() == len(eff_text):
                eff_text = eff_text[:remark.start()].strip()
            em = self.g.effect_re.fullmatch(eff_text)
            if em is None or self.g.effect_of[normalise(em.group(0))] != "not_covered":
                raise _Unread(seg.start + m.start("rest"), seg.end, "a designation followed by an unreadable effect")
            out.append(Rule("not_covered", span, subject=subject))
        out.append(DesignationStatement(subject, designation, span))
        return out

    # --- rules -------------------------------------------------------------------------------

    def _rule_sentence(self, seg: _Seg) -> list[Any]:
        text = self._t(seg)
        span = self._span(seg.start, seg.end)
        qualify = self.g.qualify_re.search(text)
        effects = list(self.g.effect_re.finditer(text))
        if qualify and not effects:
            return [self._qualify_rule(seg, qualify, span)]
        if not effects:
            req = self.g.requires_re.search(text)
            if req is None:
                raise _Unread(seg.start, seg.end, "no coverage statement (covered, excluded, limited, requires)")
            return [self._requires_rule(seg, req, span)]
        first = effects[0]
        effect = self.g.effect_of[normalise(first.group(0))]
        eff_end = first.end()
        # "are not covered under a standing policy and require individual consideration": one effect
        for later in effects[1:]:
            between = text[eff_end:later.start()]
            if re.fullmatch(r"\s*and\s*", between) and self.g.effect_of[normalise(later.group(0))] == effect:
                eff_end = later.end()
            else:
                raise _Unread(seg.start + later.start(), seg.start + later.end(), "a second coverage statement")
        draft = _RuleDraft(effect, span)
        try:
            self._pre_effect(draft, _Seg(seg.start, seg.start + first.start()))
            self._post_effect(draft, _Seg(seg.start + eff_end, seg.end))
            rule = self._finish(draft)
        except _Unread as problem:
            problem.subject = problem.subject or draft.subject
            problem.population = problem.population or self._population_of(draft)
            raise
        rules = [rule, *(self._with_subject(rule, s) for s in draft.also)]
        if draft.caps:
            # a money cap on a covered benefit is a limit of its own, for each subject
            cap = draft.caps[0] if len(draft.caps) == 1 else AllOf(tuple(draft.caps))
            for r in list(rules):
                rules.append(self._with_subject(Rule("limit", span, r.subject, r.population, None, cap),
                                                r.subject) if r.subject is not None else Rule("limit", span, when=cap))
        if rule.subject is not None:
            self.last_subjects = [rule.subject, *draft.also]
        return rules

    def _qualify_rule(self, seg: _Seg, qualify: re.Match[str], span: Span) -> Rule:
        text = self._t(seg)
        head = re.match(rf"^(?:{self.g.MEMBER})\s+with\s+(?P<pop>.+)$", text[:qualify.start()].rstrip(), re.I)
        if head is None:
            raise _Unread(seg.start, seg.start + qualify.start(), "who qualifies is not stated as members with a condition")
        draft = _RuleDraft("covered", span)
        pop_seg = _Seg(seg.start + head.start("pop"), seg.start + head.end("pop"))
        draft.population.extend(self._condition_list(pop_seg, draft))
        try:
            rest = _Seg(seg.start + qualify.end(), seg.end)
            rest_text = self._t(rest)
            intro = re.search(rf"\s+(?:{self.g.when_intro})\s+", rest_text, re.I)
            subj_end = rest.start + (intro.start() if intro else len(rest_text))
            subject = self._subject_np(_Seg(rest.start, subj_end))
            if subject is None:
                raise _Unread(rest.start, subj_end, "the service members qualify for")
            draft.subject = subject
            if intro:
                self._post_effect(draft, _Seg(subj_end, seg.end))
            return self._finish(draft)
        except _Unread as problem:
            problem.subject = problem.subject or draft.subject
            problem.population = problem.population or self._population_of(draft)
            raise

    def _population_of(self, draft: _RuleDraft) -> Node | None:
        """The population a draft has read so far, when it names diagnoses only (for a refusal)."""
        parts = [p for p in draft.population if self._is_population(p)]
        if not parts or len(parts) != len(draft.population):
            return None
        return parts[0] if len(parts) == 1 else AllOf(tuple(parts))

    def _requires_rule(self, seg: _Seg, req: re.Match[str], span: Span) -> Rule:
        draft = _RuleDraft("covered", span)
        try:
            self._pre_effect(draft, _Seg(seg.start, seg.start + req.start()), requires=True)
        except _Unread as problem:
            problem.subject = problem.subject or draft.subject
            raise
        if not draft.trigger:
            missing = _Unread(seg.start, seg.start + req.start(), "a requirement without the occasion it applies to")
            missing.subject = draft.subject
            raise missing
        need = _Seg(seg.start + req.end(), seg.end)
        draft.when.append(self._documentation_or_conditions(need, draft))
        return self._finish(draft)

    def _documentation_or_conditions(self, seg: _Seg, draft: _RuleDraft) -> Node:
        text = self._t(seg).strip()
        m = re.match(r"^documentation\s+of\s+(?P<what>.+)$", text, re.I)
        lead = len(self._t(seg)) - len(self._t(seg).lstrip())
        if m:
            inner = _Seg(seg.start + lead + m.start("what"), seg.end)
            return self._documentation_items(inner, draft)
        if re.fullmatch(r"(?:additional|further|supporting)\s+documentation", text, re.I):
            return Documentation(self.fresh(), self._span(seg.start, seg.end), normalise(text))
        return self._conditions(seg, draft)

    # --- before the effect: population prefix, subject, triggers -----------------------------

    def _pre_effect(self, draft: _RuleDraft, seg: _Seg, requires: bool = False) -> None:
        text = self._t(seg)
        start = seg.start
        prefix = re.match(rf"^\s*(?:(?:{self.g.pop_intro})|for)\s+(?P<pop>[^,]+),\s*", text, re.I)
        if prefix and re.match(r"^\s*(?:for|in)\s+members\s+(?:enrolled|on|of|covered)\b", text, re.I):
            problem = _Unread(seg.start, seg.start + prefix.end(), "a statement limited to a plan (read by the engine)")
            try:
                self._subject_phrase(draft, _Seg(seg.start + prefix.end(), seg.end), requires)
            except _Unread:
                pass
            problem.subject = draft.subject
            raise problem
        if prefix:
            pop_seg = _Seg(start + prefix.start("pop"), start + prefix.end("pop"))
            nodes = self._condition_list(pop_seg, draft)
            draft.population.extend(nodes)
            atoms = [a for n in nodes for a in iter_atoms(n)]
            if len(atoms) == 1 and isinstance(atoms[0], Condition):
                draft.anaphor = atoms[0].concept
            start += prefix.end()
            text = self.text[start:seg.end]
        subj = _Seg(start, seg.end)
        self._subject_phrase(draft, subj, requires)

    def _subject_phrase(self, draft: _RuleDraft, seg: _Seg, requires: bool) -> None:
        text = self._t(seg)
        stripped = text.strip()
        lead = len(text) - len(text.lstrip())
        base = seg.start + lead
        benefit = re.match(r"^(?:the\s+)?(?:benefits?|cover|costs?)\s+(?:for|of)\s+", stripped, re.I)
        if benefit:
            base += benefit.end()
            stripped = stripped[benefit.end():]
        # "More than two X per rolling 36-month period" / "Quantities in excess of N X per P"
        m = re.match(rf"^(?P<pre>{self.g.PRE})\s+(?P<rest>.+)$", stripped, re.I)
        if m and self.g.cmp_pre[normalise(m.group("pre"))] in (">", ">="):
            count = self._count_phrase(_Seg(base, base + len(stripped)), item_default=None, limit=False,
                                       subject_count=True)
            if count is None:
                raise _Unread(base, base + len(stripped), "a quantity the compiler cannot read")
            generic = self._generic_item(count.item)
            if not generic:
                draft.subject = Service(self.fresh(), count.span, count.item)
            draft.trigger.append(count)
            return
        m = re.match(r"^(?:quantities|quantity|amounts?)\s+(?P<rest>.+)$", stripped, re.I)
        if m:
            inner = _Seg(base + m.start("rest"), base + len(stripped))
            count = self._count_phrase(inner, item_default=None, limit=False)
            if count is None:
                raise _Unread(inner.start, inner.end, "a quantity the compiler cannot read")
            draft.trigger.append(count)
            return
        # "Earlier replacement is covered only when ...": more than the allowance the clause just stated
        m = re.fullmatch(r"(?:an?\s+)?(?:earlier|early|more\s+frequent|additional)\s+replacements?", stripped, re.I)
        if m:
            allowance = self.last_count
            if allowance is None or allowance.comparator not in ("<=", "<"):
                raise _Unread(base, base + len(stripped), "a replacement interval the clause does not state")
            span = self._span(base, base + len(stripped))
            draft.subject = Service(self.fresh(), span, allowance.item)
            value = allowance.value if allowance.comparator == "<=" else allowance.value - 1
            draft.trigger.append(Count(self.fresh(), span, allowance.item, ">", value, allowance.per))
            return
        # "Repeat X within a 12-month period"
        m = re.match(r"^(?:repeat|repeated|additional)\s+(?P<what>.+?)\s+(?:within|in)\s+(?P<per>.+)$", stripped, re.I)
        if m:
            subject = self._subject_np(_Seg(base + m.start("what"), base + m.end("what")))
            period = self._period(_Seg(base + m.start("per"), base + m.end("per")))
            if subject is None or period is None:
                raise _Unread(base, base + len(stripped), "a repeat occasion the compiler cannot read")
            draft.subject = subject
            draft.trigger.append(Count(self.fresh(), self._span(base, base + len(stripped)), subject.concept, ">", 1.0, period))
            return
        # "One bariatric procedure is covered per member per lifetime"
        m = re.match(rf"^(?P<num>{self.g.NUM})\s+(?P<what>.+)$", stripped, re.I)
        if m and not requires:
            subject = self._subject_np(_Seg(base + m.start("what"), base + len(stripped)))
            if subject is None:
                raise _Unread(base, base + len(stripped), "a counted subject the compiler cannot name")
            draft.subject = subject
            draft.pending_count = (self._number(m.group("num"), base), subject.concept, base, base + len(stripped))
            return
        # "Services designated as experimental or investigational"
        m = re.match(r"^(?P<what>.+?)\s+designated\s+(?:as\s+)?(?P<d>.+)$", stripped, re.I)
        if m:
            draft.trigger.append(self._designation_list(_Seg(base + m.start("d"), base + len(stripped))))
            subject = self._subject_np(_Seg(base + m.start("what"), base + m.end("what")))
            if subject is not None and not self._generic_item(subject.concept):
                draft.subject = subject
            return
        # "Brain MRI for uncomplicated headache without red flags" / "X dispensed solely for Y"
        m = re.match(
            r"^(?P<what>.+?)\s+(?:(?:performed|dispensed|used|provided|billed|prescribed|requested)\s+)?"
            r"(?P<solely>(?:solely|only|exclusively)\s+)?for\s+(?P<ind>.+)$", stripped, re.I)
        if m:
            if draft.effect not in ("not_covered", "withheld"):
                ind = _Seg(base + m.start("ind"), base + len(stripped))
                node = self._bare(lambda: self._conditions(ind, draft))
                if m.group("solely") or not self._is_population(node):
                    raise _Unread(base, base + len(stripped),
                                  "a service named with its purpose ('X for Y'): whether the member must have Y is unclear")
                subject = self._subject_np(_Seg(base + m.start("what"), base + m.end("what")))
                if subject is None:
                    raise _Unread(base, base + m.end("what"), "a subject the compiler cannot name")
                draft.subject = subject
                draft.population.append(node)
                return
            subject = self._subject_np(_Seg(base + m.start("what"), base + m.end("what")))
            if subject is None:
                raise _Unread(base, base + m.end("what"), "a subject the compiler cannot name")
            draft.subject = subject
            ind_start, ind_end = base + m.start("ind"), base + len(stripped)
            # "... for convenience alone, for a member with no X": the purpose, and whom the request is for
            who = re.search(r",\s+for\s+(?:an?\s+|the\s+)?(?:member|patient|insured\s+person|individual)s?\s+"
                            r"(?P<who>(?:with|who|whose)\s.+?),?$", self.text[ind_start:ind_end], re.I)
            whom: Node | None = None
            if who:
                whom = self._conditions(_Seg(ind_start + who.start("who"), ind_start + who.end("who")), draft)
                ind_end = ind_start + who.start()
            alone = re.search(r"\s+(?:alone|only)$", self.text[ind_start:ind_end], re.I)
            if alone:
                ind_end = ind_start + alone.start()
            ind = _Seg(ind_start, ind_end)
            node = self._bare(lambda: self._conditions(ind, draft))
            if m.group("solely") or alone:
                node = self._mark_solely(node)
            draft.trigger.append(node)
            if whom is not None:
                draft.trigger.append(whom)
            return
        m = re.match(r"^(?P<what>.+?)\s+(?:performed|dispensed|used|provided|billed|prescribed|requested)$", stripped, re.I)
        if m:
            stripped = m.group("what")
        subject = self._subject_np(_Seg(base, base + len(stripped)))
        if subject is None:
            listed = self._subject_list(_Seg(base, base + len(stripped)))
            if not listed:
                raise _Unread(base, base + len(stripped), "a subject the compiler cannot name")
            subject, draft.also = listed[0], listed[1:]
        if not self._generic_item(subject.concept):
            draft.subject = subject

    def _mark_solely(self, node: Node) -> Node:
        if isinstance(node, Condition):
            return dataclasses.replace(node, qualifiers=(*node.qualifiers, "solely"))
        if isinstance(node, AllOf) and node.children and isinstance(node.children[0], Condition):
            first = dataclasses.replace(node.children[0], qualifiers=(*node.children[0].qualifiers, "solely"))
            return AllOf((first, *node.children[1:]))
        raise _Unread(0, 0, "'solely for' something other than a condition")

    def _generic_item(self, concept: str) -> bool:
        """'services', 'testing', 'units': words that stand for whatever service is requested."""
        return concept in self.g.generic_services

    def _subject_np(self, seg: _Seg) -> Service | None:
        start, end = self._trim(seg.start, seg.end)
        text = self.text[start:end]
        codes: tuple[str, ...] = ()
        m = _CODE.search(text)
        billed = re.search(r"\s+(?:billed|coded|reported)\s+(?:under|as|with)\s+(?:codes?\s+)?"
                           r"(?P<codes>(?:[A-Z]\d{4}|\d{4}[A-Z0-9])(?:\s*(?:,|or|and)\s*(?:[A-Z]\d{4}|\d{4}[A-Z0-9]))*)$", text)
        if m and m.end() == len(text):
            codes = tuple(c.strip() for c in m.group(1).split(","))
            text = text[:m.start()]
        elif billed:
            codes = tuple(re.findall(r"[A-Z]\d{4}|\d{4}[A-Z0-9]", billed.group("codes")))
            text = text[:billed.start()]
        phrase = normalise(text)
        phrase = re.sub(r"^(?:a|an|the|any|all)\s+", "", phrase)
        if not phrase:
            return None
        concept = self.lex.concept_named(phrase)
        if concept is None:
            by_code = {c for code in codes for c in self.lex.services_for_code(code)}
            if len(by_code) == 1:
                concept = by_code.pop()  # the code names the service the prose describes
            elif not self._free_ok(phrase, max_words=7):
                return None
            else:
                concept = phrase
        return Service(self.fresh(), self._span(start, end), concept, codes)

    def _free_ok(self, phrase: str, max_words: int = 6) -> bool:
        """A phrase the lexicon lacks may stand for itself only if it reads as a plain noun phrase."""
        words = phrase.split()
        if not words or len(words) > max_words or words[0] in self.g.verbs:
            return False
        for w in words:
            if w in _STOP or w in self.g.not_concepts or not re.fullmatch(r"[a-z][a-z'\-]*", w):
                return False
        return True

    # --- after the effect: conditions, counts, exceptions, remarks ---------------------------

    def _post_effect(self, draft: _RuleDraft, seg: _Seg) -> None:
        start, end = seg.start, seg.end
        text = self.text[start:end]
        # remarks ("with no member cost share", "as a preventive service") are noted, not criteria
        for _phrase, pat in self.g.remark_patterns:
            for m in pat.finditer(text):
                draft.remarks.append(Note("remark", self._span(start + m.start(), start + m.end())))
        # a reimbursement rate, an allowance, a deductible: what is paid, not whether it is covered
        for pat in (self.g.rate_re, self.g.allowance_re, self.g.deductible_re):
            for m in pat.finditer(text):
                draft.remarks.append(Note("remark", self._span(start + m.start(), start + m.end())))
        if draft.remarks:
            text = self._blank_remarks(text, start, draft.remarks)
        # the exception: ", UNLESS ..." / ", except where ..."
        exc = None
        for m in self.g.exceptions_re.finditer(text):
            exc = m
            break
        main_text = text[:exc.start()] if exc else text
        main_text = main_text.rstrip(" ,")
        main = _Seg(start, start + len(main_text))
        nodes = self._modifiers(main, draft, main_text)
        if draft.pending_count is not None:
            raise _Unread(draft.pending_count[2], draft.pending_count[3], "a count without its period")
        target = draft.trigger if draft.effect in ("not_covered", "withheld") else draft.when
        target.extend(nodes)
        self._extract_population(draft)
        if exc:
            self._exception(draft, _Seg(start + exc.start(), end), exc)

    def _blank_remarks(self, text: str, start: int, remarks: list[Note]) -> str:
        chars = list(text)
        for note in remarks:
            for i in range(note.span.start - start, note.span.end - start):
                chars[i] = " "
        out = "".join(chars)
        out = re.sub(r",\s*(?=,|$)", lambda m: " " * len(m.group(0)), out)
        return out

    def _modifiers(self, seg: _Seg, draft: _RuleDraft, text: str) -> list[Node]:
        """Segments after the effect, left to right: counts, 'for members ...', 'when ...'."""
        nodes: list[Node] = []
        pos = 0
        while True:
            while pos < len(text) and text[pos] in " ,":
                pos += 1
            if pos >= len(text):
                break
            rest = text[pos:]
            here = seg.start + pos
            # when / only when / if / provided that ...
            m = re.match(rf"(?:{self.g.when_intro})\s+", rest, re.I) or \
                re.match(r"once\s+(?=(?:the|a|an|they|he|she|it|their|his|her)\s)", rest, re.I)
            if m and not re.match(r"for\s", rest, re.I):
                inner = _Seg(here + m.end(), seg.start + len(text))
                nodes.append(self._conditions(inner, draft))
                break
            # for members with X [who ...] / for members aged ... / for X
            m = re.match(rf"(?:{self.g.pop_intro})\s+", rest, re.I)
            if m:
                end = self._next_modifier(text, pos + m.end())
                inner = _Seg(here + m.end(), seg.start + end)
                self._population_phrase(inner, draft, nodes)
                pos = end
                continue
            m = re.match(rf"(?:for|in)\s+(?:{self.g.MEMBER})\s+(?=aged|age|who|that|of|over|under|older|younger)", rest, re.I)
            if m:
                end = self._next_modifier(text, pos + m.end())
                inner = _Seg(here + m.end(), seg.start + end)
                nodes.append(self._conditions(inner, draft))
                pos = end
                continue
            m = re.match(rf"for\s+(?={self.g.LIST_ANY}|{self.g.LIST_ALL})", rest, re.I)
            if m:
                nodes.append(self._conditions(_Seg(here + m.end(), seg.start + len(text)), draft))
                break
            m = re.match(r"for\s+", rest, re.I)
            if m:
                end = self._next_modifier(text, pos + m.end())
                inner = _Seg(here + m.end(), seg.start + end)
                self._indication(inner, draft, nodes)
                pos = end
                continue
            # once per calendar year / every ten (10) years / up to N X per P / to N X per P
            end = self._next_modifier(text, pos)
            amount = self._amount_phrase(_Seg(here, seg.start + end))
            if amount is not None:
                if draft.effect == "limit":
                    nodes.append(amount)
                else:
                    draft.caps.append(amount)
                pos = end
                continue
            count = self._count_phrase(_Seg(here, seg.start + end), item_default=self._count_item(draft),
                                       limit=True, pending=draft.pending_count)
            if count is not None:
                draft.pending_count = None
                nodes.append(count)
                pos = end
                continue
            if draft.pending_count is not None:
                # "per member per day", "per knee per operative session": up to the next listed allowance
                stop = re.search(r",\s+and\s+(?=(?:no\s+more\s+than|not\s+more\s+than|up\s+to|at\s+most)\s)", rest, re.I)
                upto = seg.start + pos + (stop.start() if stop else len(rest))
                found = self._per_member_period(_Seg(here, upto))
                if found is not None:
                    period, site = found
                    value, item, s0, _ = draft.pending_count
                    item = f"{item} per {site}" if site else item
                    nodes.append(Count(self.fresh(), self._span(s0, upto), item, "<=", value, period))
                    draft.pending_count = None
                    if stop is None:
                        break
                    pos += stop.end()
                    continue
            raise _Unread(here, seg.start + len(text), "words the compiler cannot place")
        return nodes

    def _next_modifier(self, text: str, pos: int) -> int:
        """Where the next post-effect segment starts (a 'for members', 'when', or count phrase), or the
        end; blanked remarks and trailing commas are left out of the segment."""
        pattern = re.compile(
            rf"(?:,\s*|\s+)(?=(?:{self.g.when_intro})\s|(?:{self.g.pop_intro})\s|for\s+(?:{self.g.MEMBER})\s|"
            rf"(?:once|twice)\s|every\s)", re.I)
        end = len(text)
        for m in pattern.finditer(text, pos):
            if m.start() > pos:
                end = m.start()
                break
        return len(text[:end].rstrip(" ,"))

    def _count_item(self, draft: _RuleDraft) -> str | None:
        return draft.subject.concept if draft.subject is not None else None

    def _population_phrase(self, seg: _Seg, draft: _RuleDraft, nodes: list[Node]) -> None:
        """'members with X [who ...]': X is the population when it names conditions, else a requirement."""
        text = self._t(seg)
        rel = re.search(r"\s+(?:who|that|whose)\s+", text, re.I)
        head_end = seg.start + (rel.start() if rel else len(text))
        head = _Seg(seg.start, head_end)
        node = self._bare(lambda: self._conditions(head, draft))
        for part in (node.children if isinstance(node, AllOf) else (node,)):
            if self._is_population(part):
                draft.population.append(part)
            else:
                nodes.append(part)
        if len(draft.population) == 1 and isinstance(draft.population[0], Condition):
            draft.anaphor = draft.population[0].concept
        if rel:
            inner_start = seg.start + rel.end()
            if rel.group(0).strip().lower() == "whose":
                inner_start = seg.start + rel.start() + len(rel.group(0)) - len(rel.group(0).lstrip())
            nodes.append(self._conditions(_Seg(inner_start, seg.end), draft))

    def _bare(self, fn: Callable[[], Node]) -> Node:
        """Parse where a noun phrase alone names a condition ("(a) loud snoring", "for members with X")."""
        self.bare += 1
        try:
            return fn()
        finally:
            self.bare -= 1

    def _condition_list(self, seg: _Seg, draft: _RuleDraft) -> list[Node]:
        """A population named before the service ('For members with X,' / 'Members with X qualify')."""
        node = self._bare(lambda: self._conditions(seg, draft))
        parts: list[Node] = list(node.children) if isinstance(node, AllOf) else [node]
        for part in parts:
            if not all(isinstance(a, Condition) for a in iter_atoms(part)) or isinstance(part, Not):
                raise _Unread(seg.start, seg.end, "a population that is not a condition")
        return parts

    def _indication(self, seg: _Seg, draft: _RuleDraft, nodes: list[Node]) -> None:
        """'for headache with onset after age 55': the indication, then what accompanies it."""
        node = self._bare(lambda: self._conditions(seg, draft))
        parts = list(node.children) if isinstance(node, AllOf) else [node]
        if parts and self._is_population(parts[0]) and draft.effect == "covered":
            draft.population.append(parts.pop(0))
        nodes.extend(parts)

    def _is_population(self, node: Node) -> bool:
        """A population statement names diagnoses the lexicon knows (an ICD-10-CM family)."""
        atoms = list(iter_atoms(node))
        if not atoms or not isinstance(node, Condition | AnyOf):
            return False
        for atom in atoms:
            if not isinstance(atom, Condition):
                return False
            concept = self.lex.concepts.get(atom.concept)
            if concept is None or not concept.icd10 or atom.history:
                return False
        return True

    def _exception(self, draft: _RuleDraft, seg: _Seg, exc: re.Match[str]) -> None:
        body_start = seg.start + exc.end() - exc.start()
        rest = self.text[body_start:seg.end]
        which = re.search(r",?\s+in\s+which\s+case\s+", rest, re.I)
        cond_seg = _Seg(body_start, body_start + (which.start() if which else len(rest)))
        condition = self._conditions(cond_seg, draft)
        span = self._span(seg.start, seg.end)
        target_list = draft.trigger if draft.effect in ("not_covered", "withheld") else draft.when
        body = self._as_node(target_list)
        if which is None and draft.effect == "limit":
            # "limited to N per P unless C": with C present the limit does not apply
            draft.trigger.append(Routing(condition, span))
            return
        if which is not None and draft.effect == "limit":
            raise _Unread(seg.start, seg.end, "an exception to a limit that names a consequence")
        if which is None:
            waived = self._waived_by_status(condition, body)
            if waived:
                assert body is not None
                target_list[:] = [Waiver(body, condition, waived, span)]
            else:
                target_list[:] = [Routing(condition, span, body)]
            return
        conseq = rest[which.end():]
        c0 = body_start + which.end()
        m = re.match(rf"^(?P<what>.+?)\s+(?P<v>{self.g.waiver_conseq})$", conseq.strip(), re.I)
        if m:
            if body is None:
                raise _Unread(c0, seg.end, "a waiver with no requirement to waive")
            lead = len(conseq) - len(conseq.lstrip())
            named = self.text[c0 + lead + m.start("what"):c0 + lead + m.end("what")]
            waived = self._waived_by_name(named, body, c0, seg.end)
            target_list[:] = [Waiver(body, condition, waived, span)]
            return
        m = re.match(rf"^(?P<what>.+?)\s+(?P<v>{self.g.routing_conseq})$", conseq.strip(), re.I)
        if m:
            lead = len(conseq) - len(conseq.lstrip())
            tseg = _Seg(c0 + lead + m.start("what"), c0 + lead + m.end("what"))
            target = self._subject_np(tseg)
            if target is None or target.concept not in self.lex.concepts or \
                    self.lex.concepts[target.concept].domain not in ("service", "therapy"):
                raise _Unread(tseg.start, tseg.end, "a routing target that is not a known service")
            target_list[:] = [Routing(condition, span, body, target)]
            return
        raise _Unread(c0, seg.end, "what follows 'in which case'")

    def _as_node(self, nodes: list[Node]) -> Node | None:
        if not nodes:
            return None
        if len(nodes) == 1:
            return nodes[0]
        return _flatten(AllOf(tuple(nodes)))

    def _waived_by_status(self, condition: Node, body: Node | None) -> tuple[str, ...]:
        """'..., UNLESS X therapy is contraindicated': the exception lifts the requirements about X."""
        if body is None or not isinstance(condition, Treatment):
            return ()
        if not set(condition.statuses) & {"contraindicated", "intolerant"}:
            return ()
        hits = []
        for atom in iter_atoms(body):
            if isinstance(atom, Duration | Treatment):
                if self._related(atom.therapy, condition.therapy):
                    hits.append(atom.id)
        return tuple(hits)

    def _related(self, a: str, b: str) -> bool:
        return a == b or self.lex.is_a(a, b) or self.lex.is_a(b, a)

    def _waived_by_name(self, named: str, body: Node, start: int, end: int) -> tuple[str, ...]:
        want = self._content_words(named) - {"requirement", "requirements", "criterion", "criteria"}
        if not want:
            raise _Unread(start, end, "the waived requirement is not named")
        scored: list[tuple[int, str]] = []
        for atom in iter_atoms(body):
            have = self._content_words(atom.span.text) | self._content_words(atom.label)
            scored.append((len(want & have), atom.id))
        best = max((s for s, _ in scored), default=0)
        hits = tuple(i for s, i in scored if s == best and s > 0)
        if len(hits) != 1:
            raise _Unread(start, end, "the waived requirement matches no single criterion")
        return hits + _details_of(body, hits[0])

    def _content_words(self, text: str) -> set[str]:
        out = set()
        for word in re.findall(r"[a-z0-9]+", normalise(text).replace("-", " ")):
            if word in _STOP or word in _ARTICLES:
                continue
            if word in self.g.words:
                word = str(int(self.g.words[word]))
            if len(word) > 3 and word.endswith("s"):
                word = word[:-1]
            out.add(word)
        return out

    # --- conditions: lists, connectives, predicates ------------------------------------------

    def _conditions(self, seg: _Seg, draft: _RuleDraft, documentation: bool = False) -> Node:
        start, end = self._trim(seg.start, seg.end)
        text = self.text[start:end]
        if not text:
            raise _Unread(seg.start, seg.end, "an empty condition")
        if re.search(r"\b(?:two|three|four|\d+)\s+(?:or\s+more\s+)?of\s+the\s+following\b", text, re.I):
            raise _Unread(start, end, "a count of listed criteria ('two of the following')")
        lm = re.match(rf"^(?:(?:the\s+member\s+)?(?:has|have|meets|meet)\s+)?(?P<kind>(?P<all>{self.g.LIST_ALL})|"
                      rf"(?P<any>{self.g.LIST_ANY}))(?:\s+(?:criteria|findings|conditions|indications|features))?"
                      rf"(?:\s+(?:are|is)\s+(?:met|documented|present)|\s+(?:applies|apply))?\s*:\s*(?P<items>.+)$",
                      text, re.I | re.S)
        if lm:
            items = self._list_items(_Seg(start + lm.start("items"), end))
            nodes = tuple(self._bare(lambda item=item: self._conditions(item, draft, documentation))  # type: ignore[misc]
                          for item in items)
            listed = _flatten(AllOf(nodes) if lm.group("all") else AnyOf(nodes))
            self.listed.add(id(listed))
            self.keep_alive.append(listed)
            return listed
        ev = re.match(r"^(?:whose\s+)?(?P<x>[a-z][a-z\s\-]*?)\s+(?:is|are)\s+[a-z\-]+\s+as\s+(?:evidenced|demonstrated|shown|documented)"
                      r"\s+by\s+(?P<y>.+)$", text, re.I | re.S)
        if ev and self._free_ok(normalise(ev.group("x")), max_words=4) or (ev and self.lex.concept_named(ev.group("x"))):
            # "glycemic control is inadequate as evidenced by an A1c of 8.0 percent or greater": the
            # evidence named is the test the policy applies
            return self._conditions(_Seg(start + ev.start("y"), end), draft, documentation)
        inc = re.match(r"^(?P<cat>(?:at\s+least\s+one|one\s+or\s+more|any)\s+[^,:]+?),?\s+(?:including|such\s+as)\s+(?P<items>.+)$",
                       text, re.I | re.S)
        if inc:
            cat_start = start + inc.start("cat")
            cat_text = re.sub(r"^(?:at\s+least\s+one|one\s+or\s+more|any)\s+", "", inc.group("cat"), flags=re.I)
            category = self._one_condition(_Seg(start + inc.end("cat") - len(cat_text), start + inc.end("cat")), draft,
                                           documentation, None)
            if category is None or category.concept not in self.lex.concepts:
                raise _Unread(cat_start, start + inc.end("cat"), "a category the lexicon does not know")
            items = self._list_items(_Seg(start + inc.start("items"), end))
            examples = [self._bare(lambda item=item: self._predicate(item, draft, documentation))  # type: ignore[misc]
                        for item in items]
            # "including" names examples, not the whole category: the category stays an alternative
            return AnyOf((*examples, category))
        for upper, cls in ((" AND ", AllOf), (" OR ", AnyOf)):
            if upper in text:
                other = " OR " if upper == " AND " else " AND "
                if other in text:
                    raise _Ambiguous(start, end, "AND and OR mixed without a list to group them")
                parts = self._split_on(start, end, upper)
                return _flatten(cls(tuple(self._conditions(p, draft, documentation) for p in parts)))
        such = re.match(r"^(?P<cat>.+?),?\s+such\s+as\s+(?P<items>.+)$", text, re.I | re.S)
        if such:
            return self._examples(_Seg(start, start + such.end("cat")), _Seg(start + such.start("items"), end),
                                  draft, documentation)
        try:
            return self._predicate(_Seg(start, end), draft, documentation)
        except _Ambiguous:
            raise
        except _Unread as whole_problem:
            split = self._split_connectives(_Seg(start, end), draft, documentation)
            if split is None:
                raise whole_problem from None
            return split

    def _examples(self, cat: _Seg, items: _Seg, draft: _RuleDraft, documentation: bool) -> Node:
        """'mechanical symptoms such as locking, catching or giving way': the category is what the clause
        requires; an example the lexicon does not already place under it is one more way to meet it."""
        category = self._predicate(cat, draft, documentation)
        if not isinstance(category, Condition):
            raise _Unread(cat.start, cat.end, "examples of something other than a condition")
        examples: list[Node] = []
        for item in self._list_items(items):
            example = self._bare(lambda item=item: self._predicate(item, draft, documentation))  # type: ignore[misc]
            if not isinstance(example, Condition):
                raise _Unread(item.start, item.end, "an example that is not a condition")
            if example.concept == category.concept or self.lex.is_a(example.concept, category.concept):
                continue
            if any(isinstance(e, Condition) and e.concept == example.concept for e in examples):
                continue
            examples.append(example)
        return AnyOf((*examples, category)) if examples else category

    def _split_on(self, start: int, end: int, sep: str) -> list[_Seg]:
        parts: list[_Seg] = []
        text = self.text[start:end]
        pos = 0
        for m in re.finditer(re.escape(sep), text):
            parts.append(_Seg(start + pos, start + m.start()))
            pos = m.end()
        parts.append(_Seg(start + pos, end))
        return [p for p in parts if self.text[p.start:p.end].strip(" ,;")]

    def _list_items(self, seg: _Seg) -> list[_Seg]:
        text = self._t(seg)
        marks = list(re.finditer(r"(?:^|(?<=[;:])\s*|(?<=;)\s*(?:and|or)\s+|(?<=[;:]\s)\s*(?:and\s+|or\s+)?)"
                                 r"\(\s*(?:\d+|[a-z]|[ivx]+)\s*\)\s*", text, re.I))
        if len(marks) >= 2:
            items = []
            for i, m in enumerate(marks):
                s = m.end()
                e = marks[i + 1].start() if i + 1 < len(marks) else len(text)
                if i == 0 and text[:m.start()].strip():
                    raise _Unread(seg.start, seg.start + m.start(), "words before a numbered list")
                chunk = text[s:e]
                chunk = re.sub(r"[;,]?\s*(?:and|or)?\s*$", "", chunk)
                items.append(_Seg(seg.start + s, seg.start + s + len(chunk)))
            return items
        if ";" in text:
            out = []
            pos = 0
            for piece in text.split(";"):
                cleaned = re.sub(r"^\s*(?:and|or)\s+", "", piece)
                lead = len(piece) - len(cleaned)
                out.append(_Seg(seg.start + pos + lead, seg.start + pos + len(piece)))
                pos += len(piece) + 1
            return out
        # "locking, joint effusion or a positive McMurray test"
        pieces = re.split(r",\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+", text)
        out = []
        pos = 0
        for piece in pieces:
            at = text.index(piece, pos)
            out.append(_Seg(seg.start + at, seg.start + at + len(piece)))
            pos = at + len(piece)
        return out

    def _split_connectives(self, seg: _Seg, draft: _RuleDraft, documentation: bool) -> Node | None:
        """Split 'A and B' / 'A, or B' / 'A together with B' / 'A without B' where both sides read.

        'and' / 'or' are tried before 'with', left to right; a split whose right side is itself an
        unbracketed list of the other connective is refused as ambiguous ('A and B or C').
        """
        text = self._t(seg)
        passes = (
            re.compile(rf"(?:,\s*|\s+)(?:(?P<and>{self.g.AND})|(?P<or>or))\s+", re.I),
            re.compile(r"(?:,\s*|\s+)(?:(?P<with>with(?![\w-]))|(?P<absent>in\s+the\s+absence\s+of|without)|(?P<despite>(?=despite\s)))\s*",
                       re.I),
        )
        for conn in passes:
            for m in conn.finditer(text):
                if self._inside_comparator(text, m):
                    continue
                left = _Seg(seg.start, seg.start + m.start())
                right = _Seg(seg.start + m.end(), seg.end)
                try:
                    lnode = self._predicate(left, draft, documentation)
                    if m.group("absent") if "absent" in conn.groupindex else False:
                        inner = self._condition_np(right, draft, documentation)
                        if inner is None:
                            continue
                        rnode: Node = Not(inner)
                    elif m.groupdict().get("despite") is not None:
                        found = self._treatment(right, draft, documentation)
                        if found is None:
                            continue
                        rnode = found
                    elif m.groupdict().get("with") or (m.groupdict().get("and") and
                                                        normalise(m.group("and")) != "and"):
                        rnode = self._bare(lambda seg=right: self._conditions(seg, draft, documentation))  # type: ignore[misc]
                    else:
                        rnode = self._conditions(right, draft, documentation)
                except _Ambiguous:
                    raise
                except _Unread:
                    continue
                if m.groupdict().get("with") and self._attaches_to_noun(lnode, rnode):
                    continue
                if m.groupdict().get("or"):
                    if isinstance(rnode, AllOf) and id(rnode) in self.loose:
                        raise _Ambiguous(seg.start, seg.end, "'or' and 'and' mixed without a list to group them")
                    node = _flatten(AnyOf((lnode, rnode)))
                else:
                    if isinstance(rnode, AnyOf) and id(rnode) in self.loose:
                        raise _Ambiguous(seg.start, seg.end, "'and' and 'or' mixed without a list to group them")
                    node = _flatten(AllOf((lnode, rnode)))
                self.loose.add(id(node))
                self.keep_alive.append(node)
                return node
        return None

    def _attaches_to_noun(self, left: Node, right: Node) -> bool:
        """'a first-degree relative with breast cancer': a condition after 'with' belongs to a noun the
        lexicon does not know as a condition, not to the member, so it is not a second requirement."""
        right_atoms = list(iter_atoms(right))
        if id(right) in self.listed or not right_atoms or not all(isinstance(a, Condition) for a in right_atoms):
            return False
        return isinstance(left, Condition) and left.concept not in self.lex.concepts

    def _single_predicate(self, seg: _Seg, draft: _RuleDraft) -> bool:
        try:
            self._predicate(seg, draft, False)
            return True
        except _Unread:
            return False

    def _predicate(self, seg: _Seg, draft: _RuleDraft, documentation: bool = False) -> Node:
        start, end = self._trim(seg.start, seg.end)
        text = self.text[start:end]
        # the member as subject, and "the treating clinician documents that"
        m = re.match(rf"^(?:{self.g.DOCUMENTERS})\s+documents?\s+that\s+", text, re.I)
        if m:
            return self._predicate(_Seg(start + m.end(), end), draft, True)
        m = re.match(rf"^(?:{self.g.MEMBER})(?:'s)?\s+", text, re.I)
        if m and not re.match(r"^(?:members?|patients?)\s+(?:with|aged|who)\b", text, re.I):
            return self._predicate(_Seg(start + m.end(), end), draft, documentation)
        m = re.match(r"^(?:who|that)\s+", text, re.I)
        if m:
            return self._predicate(_Seg(start + m.end(), end), draft, documentation)
        # "whose glucose control is stable on injections": a state (and the therapy it holds on)
        m = re.fullmatch(r"whose\s+(?P<np>[a-z][a-z\- ]*?)\s+(?:is|are|remains|remain)\s+(?P<state>[a-z\-]+)"
                         r"(?:\s+on\s+(?P<th>.+))?", text, re.I)
        phrase = f"{normalise(m.group('state'))} {normalise(m.group('np'))}" if m else ""
        concept = self.lex.concept_named(phrase) if m else None
        if m and (concept is not None or self._free_ok(phrase, max_words=4)):
            state: Node = Condition(self.fresh(), self._span(start, start + (m.start("th") - 4 if m.group("th") else len(text))),
                                    concept or phrase)
            if not m.group("th"):
                return state
            therapy = self._therapy(m.group("th"))
            if therapy is None:
                raise _Unread(start + m.start("th"), end, "a therapy the compiler cannot name")
            return AllOf((state, Treatment(self.fresh(), self._span(start + m.start("th"), end), therapy)))
        # "the pump is out of warranty": a state of the (known) device the rule is about
        m = re.match(r"^(?:the|its|this)\s+(?P<svc>[a-z][a-z\- ]*?)\s+(?=(?:is|are|was|were|cannot|can|has|have)\s)",
                     text, re.I)
        if m:
            device = self.lex.concept_named(m.group("svc"))
            if device is not None and self.lex.concepts[device].domain != "condition":
                device_state = self._condition_pred(_Seg(start + m.end(), end), draft, documentation)
                if device_state is not None:
                    return device_state
        m = re.match(r"^(?:(?:is|are)\s+)?(?:performed|dispensed|used|provided|billed|prescribed|requested)\s+"
                     r"(?P<solely>(?:solely|only|exclusively)\s+)?for\s+", text, re.I)
        if m:
            alone = re.search(r"\s+(?:alone|only)$", text, re.I)
            purpose_end = start + alone.start() if alone else end
            purpose = self._bare(lambda: self._conditions(_Seg(start + m.end(), purpose_end), draft, documentation))
            return self._mark_solely(purpose) if (m.group("solely") or alone) else purpose
        for reader in (self._tenure, self._approval, self._age, self._measure, self._duration, self._treatment,
                       self._documentation, self._absence, self._designation_pred, self._condition_pred):
            node = reader(_Seg(start, end), draft, documentation)
            if node is not None:
                return node
        raise _Unread(start, end, "a condition the compiler cannot read")

    # --- predicate readers -------------------------------------------------------------------

    def _number(self, text: str, at: int) -> float:
        raw = normalise(text)
        m = re.match(r"^(?P<w>[a-z][a-z\- ]*?)\s*\(\s*(?P<d>\d+(?:\.\d+)?)\s*\)$", raw)
        if m:
            word = self._word_number(m.group("w"))
            digits = float(m.group("d"))
            if word is None or word != digits:
                raise _Unread(at, at + len(text), "a number written in words and digits that disagree")
            return digits
        if re.fullmatch(r"\d+(?:\.\d+)?", raw):
            return float(raw)
        value = self._word_number(raw)
        if value is None:
            raise _Unread(at, at + len(text), "a number the compiler cannot read")
        return value

    def _word_number(self, raw: str) -> float | None:
        raw = raw.strip()
        if raw in self.g.words:
            return self.g.words[raw]
        if "-" in raw:
            tens, _, unit = raw.partition("-")
            if tens in self.g.words and unit in self.g.words:
                return self.g.words[tens] + self.g.words[unit]
        return None

    def _cmp(self, pre: str | None, suf: str | None, default: Comparator | None = None) -> Comparator:
        ops = [self.g.cmp_pre[normalise(pre)]] if pre else []
        if suf:
            ops.append(self.g.cmp_suf[normalise(suf)])
        if len(ops) == 2:
            if ops[0] != ops[1]:
                raise _Unread(0, 0, "two comparators that disagree")
            return ops[0]  # type: ignore[return-value]
        if ops:
            return ops[0]  # type: ignore[return-value]
        if default is None:
            raise _Unread(0, 0, "a number without a comparison")
        return default

    def _age(self, seg: _Seg, draft: _RuleDraft, documentation: bool) -> Node | None:
        text = self._t(seg)
        N = self.g.NUM
        span = self._span(seg.start, seg.end)
        m = re.fullmatch(rf"(?:(?:is|are)\s+)?(?:aged|ages)\s+(?P<a>{N})\s+(?:to|through|-)\s+(?P<b>{N})(?:\s+years)?(?:\s+of\s+age)?", text, re.I)
        if m:
            low = Age(self.fresh(), span, ">=", self._number(m.group("a"), seg.start))
            high = Age(self.fresh(), span, "<=", self._number(m.group("b"), seg.start))
            return AllOf((low, high))
        m = re.fullmatch(
            rf"(?:(?:is|are)\s+)?(?:(?:aged|age)\s+)?(?:(?P<pre>{self.g.PRE})\s+(?:age\s+)?)?(?P<n>{N})"
            rf"(?:\s+years?)?(?:\s+(?:of\s+age|old))?(?:\s+(?P<suf>{self.g.SUF}))?", text, re.I)
        if m and (re.match(r"(?:(?:is|are)\s+)?(?:aged|age)\b", text, re.I) or re.search(r"years?\s+(?:of\s+age|old)", text, re.I)
                  or (re.search(r"\byears?\b", text, re.I) and (m.group("pre") or m.group("suf")))):
            if not (m.group("pre") or m.group("suf")):
                raise _Unread(seg.start, seg.end, "an age without 'or older', 'under' or a range")
            op = self._cmp(m.group("pre"), m.group("suf"))
            return Age(self.fresh(), span, op, self._number(m.group("n"), seg.start))
        m = re.fullmatch(
            rf"(?:(?:with|has|have)\s+)?(?:an?\s+)?onset\s+(?:(?P<pre>{self.g.PRE})\s+|at\s+)?(?:the\s+)?age\s+(?:of\s+)?(?P<n>{N})"
            rf"(?:\s+years)?(?:\s+(?P<suf>{self.g.SUF}))?", text, re.I)
        if m:
            op = self._cmp(m.group("pre"), m.group("suf"), "==")
            return Age(self.fresh(), span, op, self._number(m.group("n"), seg.start), "onset")
        m = re.fullmatch(rf"(?:(?:is|are)\s+)?(?P<pre>{self.g.PRE})\s+(?:the\s+)?age\s+(?:of\s+)?(?P<n>{N})", text, re.I)
        if m:
            return Age(self.fresh(), span, self._cmp(m.group("pre"), None), self._number(m.group("n"), seg.start))
        return None

    def _tenure(self, seg: _Seg, draft: _RuleDraft, documentation: bool) -> Node | None:
        """'(the insured person) has been insured under the contract for at least ten (10) months'."""
        m = re.fullmatch(
            rf"(?:{self.g.INSURED})\s+(?:{self.g.UNDER}\s+)?for\s+(?:(?P<pre>{self.g.PRE})\s+)?(?P<n>{self.g.NUM})"
            rf"[\s-]*(?P<t>{self.g.TIME})", self._t(seg), re.I)
        if m is None:
            return None
        if not m.group("pre"):
            raise _Unread(seg.start, seg.end, "a period of cover without 'at least' or 'more than'")
        unit, _ = self.g.time_units[normalise(m.group("t"))]
        return Tenure(self.fresh(), self._span(seg.start, seg.end), self._cmp(m.group("pre"), None),
                      self._number(m.group("n"), seg.start), unit)  # type: ignore[arg-type]

    def _approval(self, seg: _Seg, draft: _RuleDraft, documentation: bool) -> Node | None:
        """'the insurer approved the treatment quote before the work began': the prior approval it requires."""
        m = self.g.approval_re.fullmatch(self._t(seg))
        if m is None:
            return None
        what = re.sub(r"^(?:the|a|an)\s+", "", normalise(m.group("what")))
        if not re.fullmatch(r"[a-z][a-z'\-]*(?:\s+[a-z][a-z'\-]*){0,4}", what) or set(what.split()) & _STOP:
            raise _Unread(seg.start, seg.end, "an approval of something the compiler cannot name")
        return Documentation(self.fresh(), self._span(seg.start, seg.end), self.g.approval_item)

    def _quantity(self, phrase: str) -> str | None:
        phrase = normalise(phrase)
        phrase = re.sub(r"^(?:a|an|the|their|his|her|its)\s+", "", phrase)
        phrase = re.sub(r"^(?:documented|most\s+recent|recent)\s+", "", phrase)
        return self.lex.quantity_named(phrase)

    def _measure(self, seg: _Seg, draft: _RuleDraft, documentation: bool) -> Node | None:
        text = self._t(seg)
        N, PRE, SUF, UNIT, TIME = self.g.NUM, self.g.PRE, self.g.SUF, self.g.UNIT, self.g.TIME
        span = self._span(seg.start, seg.end)
        # "has a BMI of 40 kg/m2 or greater" / "the arterial oxygen tension is 55 mmHg or lower"
        m = re.fullmatch(
            rf"(?:(?:has|have|with)\s+)?(?:either\s+)?(?P<q>[^()]+?)\s+(?:of|is|are|stays|remains|at|measuring|was)\s+"
            rf"(?:(?P<pre>{PRE})\s+)?(?P<n>{N})\s*(?P<unit>{UNIT})?(?:\s+(?P<suf>{SUF}))?", text, re.I)
        if m is None:
            m = re.fullmatch(
                rf"(?:(?:has|have|with)\s+)?(?P<q>[^()]+?)\s+(?P<pre>{PRE})\s+(?P<n>{N})\s*(?P<unit>{UNIT})?(?:\s+(?P<suf>{SUF}))?",
                text, re.I)
        if m:
            quantity = self._quantity(m.group("q"))
            if quantity is None:
                return None
            qdef = self.lex.quantities[quantity]
            unit = self.g.units[normalise(m.group("unit"))] if m.group("unit") else qdef.unit
            if qdef.per is not None:
                return None
            op = self._cmp(m.group("pre"), m.group("suf"), None)
            return Measure(self.fresh(), span, quantity, op, self._number(m.group("n"), seg.start), unit)
        # "performs at least four (4) fingerstick tests per day" / "take three (3) or more injections per day"
        m = re.fullmatch(
            rf"(?:(?:performs?|takes?|uses?|has|have|requires?|receives?|needs?)\s+)?(?:(?P<pre>{PRE})\s+)?(?P<n>{N})"
            rf"(?:\s+(?P<suf>{SUF}))?\s+(?P<q>[^()]+?)\s+(?:per|a|each|every)\s+(?P<tu>{TIME})", text, re.I)
        if m:
            quantity = self._quantity(m.group("q"))
            if quantity is None:
                return None
            op = self._cmp(m.group("pre"), m.group("suf"), None)
            unit_name, _ = self.g.time_units[normalise(m.group("tu"))]
            return Measure(self.fresh(), span, quantity, op, self._number(m.group("n"), seg.start), "",
                           Period(1.0, unit_name))  # type: ignore[arg-type]
        # "initiated after 20 weeks gestation"
        m = re.fullmatch(rf"(?:(?:is|was|are)\s+)?(?:initiated|started|begun|performed)?\s*(?P<pre>{PRE})\s+(?P<n>{N})\s+(?P<q>[^()]+)",
                         text, re.I)
        if m:
            quantity = self._quantity(m.group("q"))
            if quantity is None:
                return None
            qdef = self.lex.quantities[quantity]
            return Measure(self.fresh(), span, quantity, self._cmp(m.group("pre"), None),
                           self._number(m.group("n"), seg.start), qdef.unit)
        return None

    def _therapy(self, phrase: str) -> str | None:
        phrase = normalise(phrase)
        phrase = re.sub(r"^(?:a|an|the|any)\s+", "", phrase)
        phrase = re.sub(r"^(?:documented|prior|previous)\s+", "", phrase)
        phrase = re.sub(r"^(?:trial|course)\s+of\s+(?:at\s+least\s+one\s+|one\s+|a\s+|an\s+)?", "", phrase)
        if not phrase:
            return None
        concept = self.lex.concept_named(phrase)
        if concept is not None:
            if self.lex.concepts[concept].domain == "condition":
                return None
            return concept
        return phrase if self._free_ok(phrase) else None

    def _outcome(self, text: str | None) -> str | None:
        if not text:
            return None
        phrase = normalise(text)
        for candidate in (phrase, re.sub(r"^(?:an?\s+|documented\s+)", "", phrase)):
            if candidate in self.g.outcomes:
                return self.g.outcomes[candidate]
        raise _Unread(0, 0, f"an outcome the compiler cannot read ({text})")

    def _failed_outcome(self) -> str | None:
        """The outcome a 'failed X for N weeks' course states (the first outcome the lexicon lists)."""
        return next(iter(self.g.outcomes.values()), None)

    def _duration(self, seg: _Seg, draft: _RuleDraft, documentation: bool) -> Node | None:
        text = self._t(seg)
        N, PRE, TIME = self.g.NUM, self.g.PRE, self.g.TIME
        span = self._span(seg.start, seg.end)
        verbs = r"(?:completed|received|tried|used|undergone|had|taken|been\s+treated\s+with|been\s+on|participated\s+in|failed)"
        outcome = rf"(?:,?\s+(?:with\s+)?(?P<out>{self.g.OUTCOME}))?"
        including = r"(?:,?\s+including\s+(?P<inc>[^,]+?))?"
        # "has completed at least six (6) weeks of conservative therapy including supervised physical therapy"
        m = re.fullmatch(
            rf"(?:(?:has|have)\s+)?(?:{verbs}\s+)?(?:(?P<pre>{PRE})\s+)?(?P<n>{N})\s+(?P<tu>{TIME})\s+of\s+(?P<th>.+?){including}{outcome}",
            text, re.I)
        if m is None:
            # "has tried methotrexate for at least 3 months with inadequate response"
            m = re.fullmatch(
                rf"(?:(?:has|have)\s+)?(?P<verb>{verbs})\s+(?P<th>.+?)\s+for\s+(?:(?P<pre>{PRE})\s+)?(?P<n>{N})\s+(?P<tu>{TIME})"
                rf"{including}{outcome}", text, re.I)
        if m is None:
            # "has completed a trial of at least one X of no less than three (3) months duration with inadequate response"
            m = re.fullmatch(
                rf"(?:(?:has|have)\s+)?(?:{verbs}\s+)?(?:a\s+)?(?:trial|course)\s+of\s+(?:at\s+least\s+one|one|a|an)\s+(?P<th>.+?)\s+"
                rf"(?:of|for|lasting)\s+(?:(?P<pre>{PRE})\s+)?(?P<n>{N})\s+(?P<tu>{TIME})(?:\s+(?:in\s+)?duration)?{including}{outcome}",
                text, re.I)
        if m is None:
            return None
        th_start, th_end = seg.start + m.start("th"), seg.start + m.end("th")
        details: list[Node] = []
        aside = re.match(r"^(?P<th>[^,]+),\s+(?P<detail>[^,]+?),?$", m.group("th"))
        if aside:
            # "multiple daily insulin injections, three or more per day with self-adjustment of doses, for ..."
            th_end = th_start + aside.end("th")
            detail = _Seg(th_start + aside.start("detail"), th_start + aside.end("detail"))
            details = self._therapy_detail(detail, aside.group("th"), draft)
        therapy = self._therapy(self.text[th_start:th_end])
        if therapy is None:
            raise _Unread(th_start, th_end, "a therapy the compiler cannot name")
        if self.lex.concepts.get(therapy) is None and not any(therapy.endswith(h) for h in self.g.therapy_heads):
            # a free phrase must at least read as a therapy; anything else is not guessed at
            raise _Unread(seg.start + m.start("th"), seg.start + m.end("th"), "a therapy the lexicon does not know")
        unit_name, _ = self.g.time_units[normalise(m.group("tu"))]
        out = self._outcome(m.group("out"))
        groups = m.groupdict()
        if out is None and groups.get("verb") and normalise(groups["verb"]) in self.g.failed_words:
            out = self._failed_outcome()
        including_items: tuple[str, ...] = ()
        if m.group("inc"):
            inc = self._therapy(m.group("inc"))
            if inc is None:
                raise _Unread(seg.start + m.start("inc"), seg.start + m.end("inc"), "an included therapy the compiler cannot name")
            including_items = (inc,)
        op = self._cmp(m.group("pre"), None, "==") if m.group("pre") else "=="
        if op == "==":
            raise _Unread(seg.start, seg.end, "a duration without 'at least' or 'no more than'")
        course = Duration(self.fresh(), span, therapy, op, self._number(m.group("n"), seg.start),
                          unit_name, out, including_items)  # type: ignore[arg-type]
        return AllOf((course, *details)) if details else course

    def _therapy_detail(self, seg: _Seg, therapy_phrase: str, draft: _RuleDraft) -> list[Node]:
        """What a therapy is written to mean between commas: 'three or more per day [with Y]' counts the
        therapy's own unit (its last words, a quantity the lexicon knows); Y is one more requirement."""
        text = self._t(seg)
        N, PRE, SUF, TIME = self.g.NUM, self.g.PRE, self.g.SUF, self.g.TIME
        m = re.fullmatch(rf"(?:(?P<pre>{PRE})\s+)?(?P<n>{N})(?:\s+(?P<suf>{SUF}))?\s+(?:per|a|each|every)\s+(?P<tu>{TIME})"
                         rf"(?:\s+with\s+(?P<rest>.+))?", text, re.I)
        words = normalise(therapy_phrase).split()
        quantity = next((q for k in range(len(words)) if (q := self.lex.quantity_named(" ".join(words[k:]))) is not None),
                        None)
        if m is None or quantity is None or self.lex.quantities[quantity].per is None:
            raise _Unread(seg.start, seg.end, "a detail of the therapy the compiler cannot read")
        unit_name, _ = self.g.time_units[normalise(m.group("tu"))]
        span_end = seg.start + (m.start("rest") - len(" with ") if m.group("rest") else len(text))
        out: list[Node] = [Measure(self.fresh(), self._span(seg.start, span_end), quantity,
                                   self._cmp(m.group("pre"), m.group("suf")), self._number(m.group("n"), seg.start), "",
                                   Period(1.0, unit_name))]  # type: ignore[arg-type]
        if m.group("rest"):
            rest = _Seg(seg.start + m.start("rest"), seg.end)
            out.append(self._bare(lambda: self._conditions(rest, draft)))
        return out

    def _treatment(self, seg: _Seg, draft: _RuleDraft, documentation: bool) -> Node | None:
        text = self._t(seg)
        span = self._span(seg.start, seg.end)
        patterns: list[tuple[str, tuple[str, ...]]] = [
            (r"(?:has|have)\s+failed\s+or\s+(?:is|are)\s+intolerant\s+(?:to|of)\s+(?P<th>.+)", ("failed", "intolerant")),
            (r"(?:has|have)\s+(?:failed|had\s+an?\s+inadequate\s+response\s+to|not\s+responded\s+to)\s+(?P<th>.+)", ("failed",)),
            (r"(?:is|are)\s+intolerant\s+(?:to|of)\s+(?P<th>.+)", ("intolerant",)),
            (r"(?:has|have)\s+an?\s+(?:documented\s+)?contraindication\s+to\s+(?P<th>.+)", ("contraindicated",)),
            (r"(?P<th>.+?)\s+(?:is|are)\s+contraindicated", ("contraindicated",)),
            (r"(?:is|are)\s+(?:treated\s+with|on|receiving|using|taking|managed\s+with|established\s+on)\s+(?P<th>.+)", ("treated",)),
            (r"(?:with\s+documented|despite|despite\s+treatment\s+with|while\s+on)\s+(?P<th>.+)", ("treated",)),
            (r"(?:uses|use|takes|take|receives|receive)\s+(?P<th>.+)", ("treated",)),
            (r"(?:has|have)\s+(?:completed|attended|participated\s+in|undergone|received)\s+(?P<th>.+)", ("treated",)),
        ]
        for pattern, statuses in patterns:
            m = re.fullmatch(pattern, text, re.I)
            if m:
                therapy = self._therapy(m.group("th"))
                known = therapy is not None and therapy in self.lex.concepts
                if therapy is not None and (known or "treated" not in statuses):
                    return Treatment(self.fresh(), span, therapy, statuses)  # type: ignore[arg-type]
            # "is on an intensive insulin regimen of three (3) or more injections per day"
            m2 = re.fullmatch(pattern.replace("(?P<th>.+)", r"(?P<th>.+?)\s+of\s+(?P<rest>.+)"), text, re.I)
            if m2 and "treated" in statuses:
                therapy = self._therapy(m2.group("th"))
                if therapy is None or therapy not in self.lex.concepts:
                    continue
                rest = _Seg(seg.start + m2.start("rest"), seg.end)
                detail = self._measure(rest, draft, documentation)
                if detail is None:
                    continue
                head = Treatment(self.fresh(), self._span(seg.start, seg.start + m2.end("th")), therapy, statuses)  # type: ignore[arg-type]
                return AllOf((head, detail))
        m = re.fullmatch(r"documented\s+(?P<th>.+)", text, re.I)
        if m:
            therapy = self._therapy(m.group("th"))
            if therapy is not None and therapy in self.lex.concepts and \
                    self.lex.concepts[therapy].domain == "therapy":
                return Treatment(self.fresh(), span, therapy)
        return None

    def _documentation(self, seg: _Seg, draft: _RuleDraft, documentation: bool) -> Node | None:
        text = self._t(seg)
        shown = re.fullmatch(r"(?P<ev>.+?)\s+(?:shows?|demonstrates?|reveals?|confirms?)\s+(?P<c>.+)", text, re.I)
        if shown:
            test = self._subject_np(_Seg(seg.start + shown.start("ev"), seg.start + shown.end("ev")))
            if test is not None and test.concept in self.lex.concepts and \
                    self.lex.concepts[test.concept].domain == "service":
                return self._finding(_Seg(seg.start + shown.start("c"), seg.end), test, draft, seg)
        m = re.fullmatch(r"(?:(?:has|have)\s+)?(?P<c>.+?)\s+(?:(?:is|are|was|were|has\s+been|have\s+been)\s+)?"
                         r"(?:corroborated|confirmed|demonstrated|shown)\s+(?:by|on)\s+(?P<ev>.+)", text, re.I)
        if m:
            cond_seg = _Seg(seg.start + m.start("c"), seg.start + m.end("c"))
            cond = self._condition_np(cond_seg, draft, documentation)
            if cond is None or not isinstance(cond, Condition):
                return None
            evidence = self._subject_np(_Seg(seg.start + m.start("ev"), seg.end))
            if evidence is None:
                return None
            doc = Documentation(self.fresh(), self._span(seg.start, seg.end), evidence.concept, cond.concept)
            return AllOf((cond, doc))
        m = re.fullmatch(r"(?:(?:has|have)\s+)?documentation\s+of\s+(?P<what>.+)", text, re.I)
        if m:
            return self._documentation_items(_Seg(seg.start + m.start("what"), seg.end), draft)
        return None

    def _finding(self, seg: _Seg, test: Service, draft: _RuleDraft, whole: _Seg) -> Node:
        """'radiographs show advanced osteoarthritis (Kellgren-Lawrence grade 3 or 4) in the same compartment':
        the finding, the grade that defines its adjective, where it must be, and the test that shows it."""
        start, end = self._trim(seg.start, seg.end)
        text = self.text[start:end]
        qualifiers: tuple[str, ...] = ()
        where = re.search(r"\s+in\s+the\s+same\s+(?P<site>[a-z\-]+)$", text, re.I)
        if where:
            qualifiers = (normalise(where.group(0)),)
            text = text[:where.start()]
        grades: list[Node] = []
        scale = re.search(rf"\s*\((?P<q>[^()]+?)\s+(?P<a>{self.g.NUM})(?:\s+or\s+(?:(?P<b>{self.g.NUM})|(?P<up>higher|more|greater|above)))?\)$",
                          text, re.I)
        if scale:
            quantity = self._quantity(scale.group("q"))
            if quantity is None:
                raise _Unread(start + scale.start("q"), start + scale.end("q"), "a grading scale the lexicon does not know")
            span = self._span(start + scale.start("q"), start + scale.end())
            low = self._number(scale.group("a"), start)
            if scale.group("up"):
                grades = [Measure(self.fresh(), span, quantity, ">=", low)]
            else:
                values = [low] + ([self._number(scale.group("b"), start)] if scale.group("b") else [])
                grades = [Measure(self.fresh(), span, quantity, "==", v) for v in values]
            text = text[:scale.start()]
            # the scale defines the adjective before the finding ("advanced", "severe")
            text = re.sub(r"^(?:(?:a|an|the)\s+)?(?:advanced|severe|significant|marked|moderate|mild|early)\s+", "", text,
                          flags=re.I)
        lead = self.text[start:end].find(text)
        finding = self._one_condition(_Seg(start + lead, start + lead + len(text)), draft, False, None)
        if finding is None or finding.concept not in self.lex.concepts:
            raise _Unread(start, end, "a finding the lexicon does not know")
        finding = dataclasses.replace(finding, qualifiers=(*finding.qualifiers, *qualifiers))
        parts: list[Node] = [finding]
        if grades:
            parts.append(grades[0] if len(grades) == 1 else AnyOf(tuple(grades)))
        parts.append(Documentation(self.fresh(), self._span(whole.start, whole.end), test.concept, finding.concept))
        return AllOf(tuple(parts))

    def _documentation_items(self, seg: _Seg, draft: _RuleDraft) -> Node:
        """'documentation of X or Y': each item a stated measure, or a documentation requirement."""
        start, end = self._trim(seg.start, seg.end)
        text = self.text[start:end]
        has_or = re.search(r"(?:,\s*|\s+)or\s+", text, re.I)
        has_and = re.search(r"(?:,\s*|\s+)and\s+", text, re.I)
        if has_or and has_and:
            raise _Ambiguous(start, end, "'and' and 'or' mixed in a documentation requirement")
        parts = self._split_on_connective(start, end, "or" if has_or else "and")
        nodes: list[Node] = []
        for part in parts:
            measure = self._measure(part, draft, True)
            if measure is not None:
                nodes.append(measure)
                continue
            phrase = re.sub(r"^(?:a|an|the)\s+", "", normalise(self._t(part)))
            concept = self.lex.concept_named(phrase) or (phrase if self._free_ok(phrase) else None)
            if concept is None:
                raise _Unread(part.start, part.end, "documentation of something the compiler cannot name")
            nodes.append(Documentation(self.fresh(), self._span(part.start, part.end), concept))
        if len(nodes) == 1:
            return nodes[0]
        return AnyOf(tuple(nodes)) if has_or else AllOf(tuple(nodes))

    def _split_on_connective(self, start: int, end: int, word: str) -> list[_Seg]:
        """Split at ', word' / ' word' / ',' unless the word belongs to a comparator ('or more')."""
        text = self.text[start:end]
        out: list[_Seg] = []
        pos = 0
        for m in re.finditer(rf"(?:,\s*(?:{word}\s+)?|\s+{word}\s+)", text, re.I):
            if self._inside_comparator(text, m):
                continue
            out.append(_Seg(start + pos, start + m.start()))
            pos = m.end()
        out.append(_Seg(start + pos, end))
        return out

    def _inside_comparator(self, text: str, m: re.Match[str]) -> bool:
        """True when the connective at `m` is the start of a suffix comparator such as 'or older'."""
        after = text[m.start():].lstrip(" ,")
        return re.match(rf"(?:{self.g.SUF})(?![\w-])", after, re.I) is not None

    def _absence(self, seg: _Seg, draft: _RuleDraft, documentation: bool) -> Node | None:
        text = self._t(seg)
        m = re.fullmatch(rf"(?:{self.g.ABSENCE})\s+(?P<what>.+)", text, re.I)
        if m:
            inner = self._condition_np(_Seg(seg.start + m.start("what"), seg.end), draft, documentation)
            if inner is None:
                raise _Unread(seg.start + m.start("what"), seg.end, "an absent condition the compiler cannot name")
            return Not(inner)
        return None

    def _designation_pred(self, seg: _Seg, draft: _RuleDraft, documentation: bool) -> Node | None:
        text = self._t(seg)
        m = re.fullmatch(r"(?:(?:is|are)\s+)?designated\s+(?:as\s+)?(?P<d>.+)", text, re.I)
        if m:
            return self._designation_list(_Seg(seg.start + m.start("d"), seg.end))
        return None

    def _designation_list(self, seg: _Seg) -> Node:
        text = self._t(seg)
        parts = re.split(r"\s*,\s*(?:or\s+)?|\s+or\s+", text.strip())
        nodes = []
        pos = 0
        for part in parts:
            at = text.index(part, pos)
            pos = at + len(part)
            if normalise(part) not in self.g.designations:
                raise _Unread(seg.start + at, seg.start + pos, "a designation the lexicon does not list")
            nodes.append(Designation(self.fresh(), self._span(seg.start + at, seg.start + pos), normalise(part)))
        return nodes[0] if len(nodes) == 1 else AnyOf(tuple(nodes))

    def _condition_pred(self, seg: _Seg, draft: _RuleDraft, documentation: bool) -> Node | None:
        window = re.search(rf"\s+within\s+(?:the\s+next\s+)?(?P<n>{self.g.NUM})[\s-]+(?P<t>{self.g.TIME})$", self._t(seg), re.I)
        if window:
            # "plans a pregnancy within six months": a planned or expected condition, due in a window
            node = self._condition_pred(_Seg(seg.start, seg.start + window.start()), draft, documentation)
            if not isinstance(node, Condition):
                return None
            unit, _ = self.g.time_units[normalise(window.group("t"))]
            period = Period(self._number(window.group("n"), seg.start + window.start("n")), unit)  # type: ignore[arg-type]
            return dataclasses.replace(node, span=self._span(seg.start, seg.end), within=period)
        text = self._t(seg)
        m = re.match(r"^(?:(?:has|have|had|with|presents?\s+with|present\s+with|is\s+diagnosed\s+with|are\s+diagnosed\s+with|"
                     r"requires?|needs?|suffers?\s+from|(?:is|are)\s+)\s*)", text, re.I)
        offset = m.end() if m else 0
        if m and re.match(r"^(?:is|are)\s", m.group(0), re.I):
            # "is pregnant": a state written as an adjective
            concept = self.lex.concept_named(normalise(text[offset:]))
            if concept is None or self.lex.concepts[concept].domain != "condition":
                return None
            return Condition(self.fresh(), self._span(seg.start, seg.end), concept, documented=documentation)
        node = self._condition_np(_Seg(seg.start + offset, seg.end), draft, documentation)
        if node is not None and m is None and not self.bare and \
                any(a.concept not in self.lex.concepts for a in iter_atoms(node) if isinstance(a, Condition)):
            return None  # a bare phrase the lexicon lacks, where a clause needs a verb ("the radiologist agrees")
        return node

    def _condition_np(self, seg: _Seg, draft: _RuleDraft, documentation: bool) -> Node | None:
        """'documented congestive heart failure, COPD, or neuromuscular disease' and the like."""
        start, end = self._trim(seg.start, seg.end)
        text = self.text[start:end]
        if not text:
            return None
        m = re.match(r"^either\s+", text, re.I)
        if m:
            start += m.end()
            text = text[m.end():]
        # shared leading words ("documented ...") apply to every item of a coordinated list
        lead = re.match(r"^(?:(?:a|an)\s+)?(?:documented|confirmed)\s+(?=.*(?:,|\s+or\s+|\s+and\s+))", text, re.I)
        shared_doc = False
        if lead and (" or " in text or " and " in text or "," in text):
            items = self._np_items(start + lead.end(), end)
            if items is not None and len(items[0]) > 1:
                shared_doc = "documented" in lead.group(0).lower()
                start += lead.end()
                text = self.text[start:end]
        items = self._np_items(start, end)
        if items is None:
            return None
        segs, joiner = items
        nodes: list[Node] = []
        for i, item in enumerate(segs):
            head = None
            if i < len(segs) - 1:
                head = normalise(self.text[segs[-1].start:segs[-1].end])
            atom = self._one_condition(item, draft, documentation or shared_doc, elliptic_head=head)
            if atom is None:
                return None
            nodes.append(atom)
        if len(nodes) == 1:
            return nodes[0]
        return AnyOf(tuple(nodes)) if joiner == "or" else AllOf(tuple(nodes))

    def _np_items(self, start: int, end: int) -> tuple[list[_Seg], str] | None:
        text = self.text[start:end]
        has_or = re.search(r"(?:,\s*|\s+)or\s+", text, re.I)
        has_and = re.search(r"(?:,\s*|\s+)and\s+", text, re.I)
        if has_or and has_and:
            return None
        joiner = "or" if has_or else "and"
        pieces = list(re.finditer(r"(?:,\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+)", text, re.I))
        if not pieces:
            return [_Seg(start, end)], "and"
        segs = []
        pos = 0
        for m in pieces:
            segs.append(_Seg(start + pos, start + m.start()))
            pos = m.end()
        segs.append(_Seg(start + pos, end))
        return segs, joiner

    def _one_condition(self, seg: _Seg, draft: _RuleDraft, documented: bool, elliptic_head: str | None) -> Condition | None:
        start, end = self._trim(seg.start, seg.end)
        phrase = normalise(self.text[start:end])
        certainty = "stated"
        history = False
        severity: tuple[str, ...] = ()
        qualifiers: list[str] = []
        levels = list(self.g.severity_levels)
        sev_words = "|".join(levels)
        changed = True
        while changed:
            changed = False
            if self._condition_concept(phrase, elliptic_head) is not None:
                break
            for pattern, action in (
                (r"^(?:a|an|the)\s+", None),
                (r"^documented\s+", "documented"),
                (r"^(?:confirmed|established|definitive)\s+", "confirmed"),
                (r"^(?:suspected|presumed)\s+", "suspected"),
                (r"^(?:a\s+)?high\s+pre-?\s?test\s+probability\s+(?:of|for)\s+", "high_probability"),
                (r"^(?:a\s+)?diagnosis\s+of\s+", None),
                (r"^(?:a\s+)?(?:history|prior\s+episode|episodes?)\s+of\s+", "history"),
                (rf"^(?P<a>{sev_words})(?:ly)?\s*(?:-|\s)to(?:-|\s)\s*(?P<b>{sev_words})(?:ly)?\s+", "range"),
                (rf"^(?P<a>{sev_words})\s+", "level"),
            ):
                m = re.match(pattern, phrase)
                if not m:
                    continue
                if action == "documented":
                    documented = True
                elif action in ("confirmed", "suspected", "high_probability"):
                    certainty = action
                elif action == "history":
                    history = True
                elif action == "range":
                    a, b = levels.index(m.group("a")), levels.index(m.group("b"))
                    if a > b:
                        return None
                    severity = tuple(levels[a:b + 1])
                elif action == "level":
                    severity = (m.group("a"),)
                phrase = phrase[m.end():]
                changed = True
                break
            if not changed:
                q = re.match(r"^(?P<q>[a-z][a-z\-]*)\s+", phrase)
                if q and q.group("q") in self.g.qualifier_words and self._condition_concept(phrase[q.end():], elliptic_head) is not None:
                    qualifiers.append(q.group("q"))
                    phrase = phrase[q.end():]
                    changed = True
                elif q and q.group("q") in self.g.qualifier_words and phrase[q.end():] in self.g.anaphora:
                    qualifiers.append(q.group("q"))
                    phrase = phrase[q.end():]
                    changed = True
        concept = self._condition_concept(phrase, elliptic_head)
        if concept is None and phrase in self.g.anaphora:
            concept = draft.anaphor
        if concept is None:
            if not self._free_ok(phrase):
                return None
            if any(w in self.g.qualifier_words for w in phrase.split()[:1]) and phrase.split()[0] in ("significant",):
                return None
            concept = phrase
        return Condition(self.fresh(), self._span(start, end), concept, severity, certainty,  # type: ignore[arg-type]
                         documented, history, tuple(qualifiers))

    def _condition_concept(self, phrase: str, elliptic_head: str | None) -> str | None:
        phrase = phrase.strip()
        if not phrase:
            return None
        concept = self.lex.concept_named(phrase)
        if concept is None and elliptic_head:
            # "type 1 or type 2 diabetes mellitus": the first item borrows the last item's head words
            words = elliptic_head.split()
            for k in range(1, len(words)):
                tail = " ".join(words[-k:])
                if not phrase.endswith(tail):
                    concept = self.lex.concept_named(f"{phrase} {tail}")
                    if concept is not None:
                        break
        if concept is not None and self.lex.concepts[concept].domain == "condition":
            return concept
        return None

    # --- counts and periods --------------------------------------------------------------------

    def _period(self, seg: _Seg) -> Period | None:
        text = normalise(self._t(seg))
        text = re.sub(r"^(?:a|an|any|the|each|every|one)\s+", "", text)
        rolling = False
        m = re.match(rf"^{self.g.rolling}\s+", text, re.I)
        if m:
            rolling = True
            text = text[m.end():]
        text = re.sub(rf"\s+{self.g.pnoun}$", "", text)
        if text in self.g.period_names:
            return Period(1.0, self.g.period_names[text], rolling)  # type: ignore[arg-type]
        if text in self.g.occasions:
            return Period(1.0, self.g.occasions[text])  # type: ignore[arg-type]
        m = re.fullmatch(rf"(?:period\s+of\s+)?(?P<n>{self.g.NUM})[\s-]*(?P<tu>{self.g.TIME})(?:\s+{self.g.pnoun})?", text, re.I)
        if m:
            unit, _ = self.g.time_units[normalise(m.group("tu"))]
            return Period(self._number(m.group("n"), seg.start), unit, rolling)  # type: ignore[arg-type]
        m = re.fullmatch(rf"(?P<tu>{self.g.TIME})", text, re.I)
        if m:
            unit, _ = self.g.time_units[normalise(m.group("tu"))]
            return Period(1.0, unit, rolling)  # type: ignore[arg-type]
        return None

    def _per_member_period(self, seg: _Seg) -> tuple[Period, str | None] | None:
        """'per member per calendar year', 'per knee per operative session': the window, and the body
        site the count is per (None when per member)."""
        text = self._t(seg).strip()
        m = re.fullmatch(rf"(?:per\s+(?:member|insured\s+person|enrollee)\s+)?(?:per\s+(?P<site>{self.g.SITE})\s+)?"
                         r"(?:per|in\s+a|in\s+any|every|each)\s+(?P<p>.+)", text, re.I)
        if not m:
            return None
        lead = len(self._t(seg)) - len(self._t(seg).lstrip())
        period = self._period(_Seg(seg.start + lead + m.start("p"), seg.end))
        if period is None:
            return None
        return period, normalise(m.group("site")) if m.group("site") else None

    def _count_phrase(self, seg: _Seg, item_default: str | None, limit: bool,
                      pending: tuple[float, str, int, int] | None = None, subject_count: bool = False) -> Count | None:
        start, end = self._trim(seg.start, seg.end)
        text = self.text[start:end]
        span = self._span(start, end)
        N, PRE, SUF = self.g.NUM, self.g.PRE, self.g.SUF
        per = r"(?:per|every|each|in\s+any|in\s+a|within\s+a|within\s+any|during\s+a|a)"
        times = self.g.TIMES
        m = re.fullmatch(rf"(?P<t>{times})\s+{per}\s+(?P<p>.+)", text, re.I)
        if m and item_default:
            period = self._period(_Seg(start + m.start("p"), end))
            if period is None:
                return None
            value = self.g.times[normalise(m.group("t"))]
            return Count(self.fresh(), span, item_default, "<=", value, period)
        m = re.fullmatch(rf"every\s+(?P<p>(?P<n>{N})\s+{self.g.TIME})", text, re.I)
        if m and item_default:
            period = self._period(_Seg(start + m.start("p"), end))
            if period is None:
                return None
            return Count(self.fresh(), span, item_default, "<=", 1.0, period)
        m = re.fullmatch(
            rf"(?:to\s+)?(?:(?P<pre>{PRE})\s+)?(?P<n>{N})(?:\s+(?P<suf>{SUF}))?\s+(?P<item>[^\d(]+?)\s+"
            rf"(?:per\s+(?:member|insured\s+person|enrollee)\s+)?{per}\s+(?P<p>.+)", text, re.I)
        if m:
            period = self._period(_Seg(start + m.start("p"), end))
            if period is None:
                return None
            item = self._count_noun(m.group("item"))
            if item is None:
                return None
            if m.group("pre") or m.group("suf"):
                op = self._cmp(m.group("pre"), m.group("suf"))
            elif text.lower().startswith("to ") or limit:
                op = "<="
            else:
                return None
            return Count(self.fresh(), span, item, op, self._number(m.group("n"), start), period)
        return None

    def _amount_phrase(self, seg: _Seg) -> Amount | None:
        """'up to GBP 200 per insured person in any period of 24 months', 'within an annual cap of EUR 900'."""
        start, end = self._trim(seg.start, seg.end)
        m = self.g.cap_re.fullmatch(self.text, start, end)
        if m is None:
            return None
        per: Period | None = None
        if m.group("p"):
            per = self._period(_Seg(m.start("p"), end))
            if per is None:
                raise _Unread(m.start("p"), end, "a period the compiler cannot read")
        elif m.group("annual"):
            per = Period(1.0, "year")
        currency = self.g.currencies[normalise(m.group("cur") or m.group("cur2"))]
        value = float((m.group("n") or m.group("n2")).replace(",", ""))
        return Amount(self.fresh(), self._span(start, end), currency, "<=", value, per)

    def _count_noun(self, phrase: str) -> str | None:
        phrase = normalise(phrase)
        phrase = re.sub(r"^(?:a|an|the)\s+", "", phrase)
        concept = self.lex.concept_named(phrase)
        if concept is not None:
            return concept
        if not self._free_ok(phrase, max_words=4):
            return None
        words = phrase.split()
        last = words[-1]
        if last.endswith("ies"):
            last = last[:-3] + "y"
        elif last.endswith("s") and not last.endswith("ss"):
            last = last[:-1]
        return " ".join([*words[:-1], last])

    # --- finishing ---------------------------------------------------------------------------

    def _extract_population(self, draft: _RuleDraft) -> None:
        """The diagnosis statement among a covered rule's top-level requirements is its population."""
        if draft.effect != "covered" or not draft.when:
            return
        top = _flatten(AllOf(tuple(draft.when)))
        parts = list(top.children) if isinstance(top, AllOf) else [top]
        keep: list[Node] = []
        for i, part in enumerate(parts):
            if self._is_population(part) and (i == 0 or self._states_diagnosis(part)):
                draft.population.append(part)
            else:
                keep.append(part)
        draft.when = keep

    def _finish(self, draft: _RuleDraft) -> Rule:
        self._extract_population(draft)
        when = list(draft.when)
        population = list(draft.population)
        pop_node = self._as_node(population)
        trigger = self._as_node(draft.trigger)
        when_node = self._as_node(when)
        if draft.effect == "limit" and when_node is None:
            raise _Unread(draft.span.start, draft.span.end, "a limit without a quantity")
        allowances = [a for a in iter_atoms(when_node) if isinstance(a, Count)]
        if len(allowances) == 1:
            self.last_count = allowances[0]
        return Rule(draft.effect, draft.span, draft.subject, pop_node, trigger, when_node,  # type: ignore[arg-type]
                    tuple(draft.remarks))

    def _states_diagnosis(self, node: Node) -> bool:
        return all(re.search(r"\bdiagnos", a.span.text, re.I) for a in iter_atoms(node))


def _details_of(body: Node, atom_id: str) -> tuple[str, ...]:
    """Atoms written inside a course's own words ('multiple daily injections, three or more per day with
    self-adjustment of doses, for at least three months'): waiving the course waives them with it."""
    atoms = list(iter_atoms(body))
    course = next((a for a in atoms if a.id == atom_id), None)
    if not isinstance(course, Duration):
        return ()
    return tuple(a.id for a in atoms if a.id != atom_id and course.span.start <= a.span.start
                 and a.span.end <= course.span.end)


def _flatten(node: Node) -> Node:
    """ALL inside ALL (and ANY inside ANY) read as one list; a one-child list is its child."""
    if isinstance(node, AllOf | AnyOf):
        children: list[Node] = []
        for child in node.children:
            child = _flatten(child)
            if type(child) is type(node):
                children.extend(child.children)  # type: ignore[union-attr]
            else:
                children.append(child)
        if len(children) == 1:
            return children[0]
        return type(node)(tuple(children))
    return node


def refusal_reasons(result: Criteria | Refusal) -> tuple[str, ...]:
    """What a refusal could not read, one sentence per part (empty for compiled criteria)."""
    if isinstance(result, Criteria):
        return ()
    return tuple(f"could not read {u.span.text!r}: {u.reason}" for u in result.unread)


AtomReader = Callable[[_Seg, _RuleDraft, bool], Node | None]
__all__ = ["Refusal", "Unread", "compile_clause", "criteria_for_clause", "refusal_reasons", "Atom"]
