"""A criterion mapped to the request's facts: the evaluator's state for one clause and one request,
and what every reader of a criterion kind shares (recording a result, what an unstated fact means by
role, how two concepts relate, whether the request is for a service).

It never combines criteria (tree.py does) and never says what a clause decides (clause.py).
"""

from __future__ import annotations

import math
from typing import Final

from clauseguard.corpus.criteria import Atom, Criteria, DesignationStatement, Service, Span
from clauseguard.reading.amend import Override
from clauseguard.reading.compiler import GRAMMAR_WORDS
from clauseguard.reading.evaluate.kleene import MET, NOT_MET, UNKNOWN, Value, k_or
from clauseguard.reading.evaluate.results import AtomResult, Role
from clauseguard.reading.facts import ConditionFact, FactSheet, ServiceFact
from clauseguard.reading.lexicon import Lexicon, normalise, tokenize
from clauseguard.reading.references import References

_DAYS: Final[dict[str, float]] = {
    "hour": 1 / 24, "day": 1.0, "week": 7.0, "month": 30.4375, "year": 365.25,
    "calendar_year": 365.25, "contract_year": 365.25, "policy_year": 365.25, "benefit_year": 365.25,
    "lifetime": math.inf,
    # occasions, not lengths of time: never compared with a window of days
    "session": math.nan, "episode": math.nan,
}
# Atom kinds whose facts every request has some value of (a number, a duration, a document): left
# unstated they are unknown even as alternatives; presence-type atoms (conditions, treatments) that a
# request does not present are absent when they are alternatives.
_VALUE_KINDS: Final = frozenset({"measure", "duration", "age", "count", "documentation", "tenure", "amount"})
# Cue lists whose words say how something is stated (negated, hedged, documented, past, whose), not what:
# set aside, with the grammar words, when a statement about a relative is matched by its words.
_HOW_CUES: Final = ("negation_before", "negation_after", "hedge_before", "hedge_after", "suspicion",
                    "high_probability", "confirmed", "history", "documented", "evidence", "evidence_forward",
                    "service_history", "past_value", "other_experiencer", "scope_breaks")


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


class AtomReader:
    """One clause's criteria read against one request's facts: the state every reader shares."""

    def __init__(self, criteria: Criteria, facts: FactSheet, lexicon: Lexicon,
                 designations: tuple[DesignationStatement, ...], overrides: tuple[Override, ...] = (),
                 references: References | None = None, here: str = "") -> None:
        self.criteria = criteria
        self.references = references if references is not None else References.of([(here, criteria)])
        self.here = here
        self.overrides = overrides
        self.rider_waived = {i: o for o in overrides if o.action == "waive" for i in o.atom_ids}
        self.facts = facts
        self.lex = lexicon
        self.designations = (*criteria.designations, *designations)
        self.results: dict[str, AtomResult] = {}
        self.rests_on: list[str] = []
        self.requested = [f for f in facts.of(ServiceFact) if f.requested]
        self.generic = frozenset(lexicon.phrases("phrasing.yaml", "generic_services"))
        self.supplies = frozenset(lexicon.phrases("phrasing.yaml", "countable_supplies"))
        self.opposites = {str(k): str(v) for k, v in lexicon.data["cues.yaml"].get("qualifier_opposites", {}).items()}
        self.unknown_dx = [c for c in facts.unknown_codes if not self._is_procedure(c)]
        self.relative_cue = lexicon.pattern(lexicon.phrases("cues.yaml", "other_experiencer"),
                                            "cue-other_experiencer")
        self.caregiver_cue = lexicon.pattern(lexicon.phrases("cues.yaml", "caregiver"), "cue-caregiver")

    @staticmethod
    def _is_procedure(code: str) -> bool:
        return not (len(code) >= 3 and code[0].isalpha() and code[1].isdigit() and ("." in code or len(code) == 3))

    def _record(self, atom: Atom, role: Role, status: Value, fact: str | None = None, span: Span | None = None,
                source: str | None = None, missing: str | None = None, note: str = "") -> AtomResult:
        result = AtomResult(atom.id, atom.kind, atom.label, atom.span, role, status, fact, span, source,
                            missing if status == UNKNOWN else None, False, note)
        self.results[atom.id] = result
        return result

    def _unstated(self, atom: Atom, role: Role, missing: str) -> AtomResult:
        """What is not stated: a requirement is unknown; an unpresented alternative and an unstated
        exception are absent (values a request always has stay unknown as alternatives)."""
        if role == "alternative" and not self._named_by_lexicon(atom):
            # the reader looks for a term the lexicon lacks only by its words: a note may state it in
            # others, so an alternative it cannot find stays open rather than absent
            return self._record(atom, role, UNKNOWN, missing=missing, note="a term the lexicon does not know")
        if role == "exception" or (role == "alternative" and atom.kind not in _VALUE_KINDS):
            if role != "exception" and self.unknown_dx and atom.kind == "condition":
                return self._record(atom, role, UNKNOWN, missing=missing,
                                    note="a diagnosis code the lexicon does not know may state it")
            return self._record(atom, role, NOT_MET, note="not presented by the request (absent)")
        return self._record(atom, role, UNKNOWN, missing=missing, note="not stated")

    def _named_by_lexicon(self, atom: Atom) -> bool:
        """Whether the criterion names something the lexicon knows (or carries codes to match)."""
        if getattr(atom, "codes", ()):
            return True
        name = next((getattr(atom, n) for n in ("concept", "therapy", "quantity", "item") if hasattr(atom, n)), None)
        if not isinstance(name, str):
            return True  # ages, amounts, tenures: the request states them or not
        return self.lex.knows(name) or self.lex.concept_named(name) is not None or self.lex.quantity_named(name) is not None

    def _content_words(self, text: str) -> set[str]:
        plain = self.lex.derived("evaluate.plain_words", _plain_words)
        return {t.text for t in tokenize(normalise(text))
                if len(t.text) >= 3 and not t.text.isdigit() and t.text not in plain}

    def _related(self, fact_concept: str, wanted: str) -> str | None:
        """'narrower' when the fact names the wanted concept or a kind of it; 'broader' when the fact
        names something the wanted concept is a kind of; None otherwise."""
        if fact_concept == wanted or self.lex.is_a(fact_concept, wanted):
            return "narrower"
        if self.lex.is_a(wanted, fact_concept):
            return "broader"
        if wanted not in self.lex.concepts:
            # a clause's word for a concept the lexicon lists as a term of it ("measurable goals")
            canonical = self.lex.concept_named(wanted)
            if canonical is not None and canonical != wanted:
                return self._related(fact_concept, canonical)
        return None

    def _denies(self, fact_concept: str, wanted: str, relation: str | None) -> bool:
        """A denial of a thing denies its kinds, never its class: "no DMARD" rules out methotrexate, "no
        methotrexate" says nothing of conventional DMARDs (another one may have been given)."""
        return relation == "broader" or fact_concept in (wanted, self.lex.concept_named(wanted))

    @staticmethod
    def _describe_condition(f: ConditionFact) -> str:
        words = [] if f.certainty in ("stated",) else [f.certainty.replace("_", " ")]
        if f.severity:
            words.append(" to ".join(dict.fromkeys((f.severity[0], f.severity[-1]))))
        words.extend(f.qualifiers)
        words.append(f.concept)
        prefix = {"present": "", "absent": "no ", "unknown": "unknown: "}[f.status]
        return prefix + " ".join(words)

    # --- the requested service ---------------------------------------------------------------

    def _unplaced(self, service: Service) -> bool:
        return not service.codes and service.concept not in self.generic and not self.lex.knows(service.concept)

    def _subject_match(self, service: Service) -> Value:
        """Whether a rule is about the requested service. The governing document was chosen by the
        requested code, so only a subject the lexicon places apart from the request is another
        service; a subject or a code the lexicon cannot place is read as the document's service."""
        if not self.requested or service.concept in self.generic:
            return MET
        if not service.codes and (not self.lex.knows(service.concept)
                                  or all(not r.concepts for r in self.requested)):
            return MET
        return self._request_is(service)

    def _request_is(self, service: Service | None) -> Value:
        if service is None:
            return MET
        if not self.requested:
            return UNKNOWN
        values: list[Value] = []
        for r in self.requested:
            if service.codes and r.code is not None:
                values.append(MET if r.code in service.codes else NOT_MET)
                continue
            if service.concept in self.generic:
                values.append(MET)
                continue
            if not r.concepts or not self.lex.knows(service.concept):
                values.append(UNKNOWN)
                continue
            best: Value = NOT_MET
            for c in r.concepts:
                rel = self._related(c, service.concept)
                if rel == "narrower":
                    best = MET
                    break
                if rel == "broader":
                    best = UNKNOWN
            values.append(best)
        return k_or(values)

    def _request_is_concept(self, concept: str) -> Value:
        return self._request_is(Service("_", Span(0, 0, ""), concept))


def _plain_words(lex: Lexicon) -> frozenset[str]:
    """Words that say how something is stated, never what: grammar words and the cue lists' words."""
    words = set(GRAMMAR_WORDS)
    for key in _HOW_CUES:
        for phrase in lex.phrases("cues.yaml", key):
            words.update(normalise(phrase).split())
    return frozenset(words)
