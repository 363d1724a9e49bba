"""The compiler's grammar words and patterns: the closed-class words the grammar is made of, and the
regular expressions built from one lexicon's phrase lists (once per lexicon, never per clause).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from clauseguard.reading.lexicon import Lexicon, normalise

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
