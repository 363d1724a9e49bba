"""One criterion's words as a typed atom: prescriber, event in a window, documentation, therapy
history (with duration, count and the clause's own examples), age, count, amount, tenure, measure,
condition; or `Unread` saying why not.

The words that tell the kinds apart are data (`data/grammar/atoms.yaml`, `values.yaml`); concepts are
named by the lexicon where it knows the phrase, else the clause's own words (which the fact reader
then looks for literally). A criterion whose concept cannot be named is unread, never guessed.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from typing import Any, Final

from clauseguard.corpus.criteria import (
    Age,
    AllOf,
    Amount,
    AnyOf,
    Atom,
    Condition,
    Count,
    Documentation,
    Duration,
    Event,
    Measure,
    Node,
    Period,
    Prescriber,
    Service,
    Span,
    Tenure,
)
from clauseguard.reading.grammar.atomdata import data as data
from clauseguard.reading.grammar.atomdata import list_items as _list_items
from clauseguard.reading.grammar.atomdata import rx as _rx
from clauseguard.reading.grammar.atomdata import section as _section
from clauseguard.reading.grammar.result import Unread
from clauseguard.reading.grammar.therapies import TherapyReader
from clauseguard.reading.grammar.values import Value, constant, values
from clauseguard.reading.lexicon import Lexicon
from clauseguard.text import fold

MAX_CONCEPT_WORDS: Final = 14  # a longer stretch is not a name of something a fact can state
MAX_STATEMENT_WORDS: Final = 45  # what a clinician must state or a record document, in its own words
_ARTICLES: Final = re.compile(r"^(?:the|a|an|any|his|her|their|its)\s+", re.IGNORECASE)
_CODE: Final = re.compile(r"(?<![\w.-])([A-Z]\d{4}|\d{4}[A-Z0-9]|[A-Z]\d{2}(?:\.[A-Z0-9]{1,4})?)(?![\w])")
_ASIDE: Final = re.compile(r"\((?:i\.e\.|that is)[^()]*(?:\([^()]*\)[^()]*)*\)", re.IGNORECASE)
_AFTER_COURSE: Final = re.compile(r"\b(?:after|despite|following)\s*$", re.IGNORECASE)


class Reader:
    """Reads one criterion at a time; `fresh` numbers atoms, `lexicon` names concepts."""

    def __init__(self, text: str, lexicon: Lexicon, fresh: Callable[[], str]) -> None:
        self.text = text
        self.folded = fold(text)
        self.lex = lexicon
        self.fresh = fresh
        self.therapies = TherapyReader(self)

    # -- helpers ---------------------------------------------------------------------------

    def span(self, a: int, b: int) -> Span:
        while a < b and self.text[a] in " ,;:.\t\n":
            a += 1
        while b > a and self.text[b - 1] in " ,;:.\t\n":
            b -= 1
        return Span(a, b, self.text[a:b])

    def name(self, a: int, b: int, domain: str | None = None) -> str | None:
        """The concept a stretch names: the lexicon's name for it, else its own words (articles and
        brackets left out), or None when it is too long to be a name."""
        raw = re.sub(r"\([^()]*\)", " ", self.text[a:b])
        raw = _ARTICLES.sub("", " ".join(raw.split()).strip(" ,;:.")).strip()
        if not raw:
            return None
        known = self.lex.concept_named(raw)
        if known is not None and (domain is None or self.lex.concepts[known].domain == domain):
            return known
        low = fold(raw)
        if len(raw.split()) > MAX_CONCEPT_WORDS or self.vague(low):
            return None
        if re.search(r"\b(?:who|whom|whose|which|neither|is|are|was|were|meets?|criterion|criteria)\b"
                     r"|\band (?:a|an|the|at least)\b", low):
            # "COPD who cannot walk ...", "four trials and a course of ECT", "neither", "quantities that
            # exceed the guidelines are provided", "meet criterion A or B": a clause, two things, a
            # reference or no thing, not a name
            return None
        if values(raw) and not re.sub(r"[\d.,/%]+|\b(?:days?|weeks?|months?|years?|hours?|times?|or|more|less|at|least)\b",
                                      "", low).strip():
            return None  # "3 months": a quantity names nothing
        if re.search(r"\band\b", low) and re.search(r"\bor\b", low):
            return None  # "COPD or fibrosis and hypoxemia": which binds tighter is not written
        return low

    @staticmethod
    def vague(low: str) -> bool:
        """A phrase with nothing a fact can be checked against ("appropriate testing")."""
        return _rx(_section("vague")).search(low) is not None

    def _find(self, key: tuple[str, ...], a: int, b: int) -> re.Match[str] | None:
        return _rx(key).search(self.folded, a, b)

    def _past_setting(self, a: int, b: int) -> int:
        """Past a leading setting that ends with a comma ("At a face-to-face visit, ...")."""
        m = _rx(_section("settings")).match(self.folded, a)
        if m is None:
            return a
        comma = self.folded.find(",", m.end(), b)
        return _skip_space(self.folded, comma + 1) if 0 <= comma < b - 3 else a

    def _person_end(self, a: int, b: int) -> int:
        """Past a leading "The patient" / "The beneficiary's treating practitioner" when present."""
        a = _skip_space(self.folded, a)
        m = _rx(_section("persons")).match(self.folded, a)
        return m.end() if m is not None and m.end() <= b else a

    # -- the readers, in order ---------------------------------------------------------------

    def read(self, a: int, b: int) -> Node | Unread:
        span = self.span(a, b)
        if not span.text:
            return Unread(span, "an empty criterion")
        a = self._past_setting(span.start, span.end)
        for reader in (self.prescriber, self.event, self.documentation, self.therapies.therapy,
                       self.therapies.passive_therapy, self.valued, self.code, self.condition):
            found = reader(a if reader not in (self.event,) else span.start, span.end)
            if found is not None:
                return dataclasses.replace(found, span=span) if isinstance(found, Atom) else found
        return Unread(span, "no criterion reader accounts for it")

    def prescriber(self, a: int, b: int) -> Node | None:
        m = self._find(_section("prescriber", "consultation"), a, b)
        consultation = m is not None
        if m is None:
            m = self._find(_section("prescriber", "by"), a, b)
        if m is None:
            return None
        rest = self.text[m.end():b]
        names = [n for n in (self.name_of_person(p) for p in _list_items(rest)) if n]
        if not names:
            return None
        return Prescriber(self.fresh(), self.span(a, b), specialties=tuple(names), consultation=consultation)

    def name_of_person(self, phrase: str) -> str | None:
        cleaned = _ARTICLES.sub("", " ".join(phrase.split()).strip(" ,;:.")).strip()
        return fold(cleaned) if cleaned and len(cleaned.split()) <= 4 else None

    def event(self, a: int, b: int) -> Node | None:
        window = self._find(_section("event", "window_before"), a, b)
        setting = _rx(_section("settings")).match(self.folded, a) or _rx(_section("settings")).search(self.folded, a, b)
        if window is None and setting is None:
            return None
        happened = self._find(_section("event", "happened"), a, b)
        if happened is None:
            return None
        within = None
        if window is not None:
            found = [v for v in values(self.text[window.start():window.end()]) if v.unit in ("day", "week", "month", "year")]
            if not found:
                return None
            within = Period(found[0].value, found[0].unit)  # type: ignore[arg-type]
        what = self.text[happened.start():b]
        item = self.name(happened.start(), min(b, happened.start() + len(what.split(" to ")[0])))
        if item is None:
            return None
        return Event(self.fresh(), self.span(a, b), item=item, within=within)

    def statement_of(self, a: int, b: int) -> str | None:
        """What a record must document, named by the core of its words: "the beneficiary has sufficient
        training using the particular device prescribed ..." is documentation of training (the whole
        stretch stays the atom's span, so the citation quotes it)."""
        raw = " ".join(re.sub(r"\([^()]*\)", " ", self.text[a:b]).split()).strip(" ,;:.")
        raw = re.sub(r"^(?:that\s+)", "", raw)
        if not raw or len(raw.split()) > MAX_STATEMENT_WORDS or re.search(r"\bjudg[e]?ment\b", fold(raw)):
            return None
        return self.core(raw)

    def core(self, raw: str) -> str:
        low = fold(raw)
        cut = _rx(_section("qualifiers_after")).search(low)
        if cut is not None and cut.start() > 3:
            low = low[:cut.start()].strip(" ,")
        person = _rx(_section("persons")).match(low)
        if person is not None:
            low = low[person.end():].strip()
        low = re.sub(r"^(?:has|have|had|is|are|was|were|receives?|received|completed|undergone)\s+", "", low)
        low = _ARTICLES.sub("", low)
        for word in _section("grading"):
            low = re.sub(rf"^{re.escape(word)}\s+", "", low)
        return low.strip() or fold(raw)

    def documentation(self, a: int, b: int) -> Node | None:
        start = _skip_space(self.folded, self._person_end(a, b))
        clinician = _rx(_section("clinicians")).match(self.folded, start)
        verbs = _section("documentation", "verbs")
        if clinician is not None:
            m = _rx(verbs).search(self.folded, clinician.end(), b)
            if m is not None and self.folded[clinician.end():m.start()].strip() == "":
                # "attests that the member has a hearing loss": a documented condition
                said = self.condition(m.end(), b, require_lead=True)
                if isinstance(said, Condition):
                    return dataclasses.replace(said, span=self.span(a, b), documented=True)
                if self._named_then_more(m.end(), b):
                    # "certifies that the member has rheumatoid arthritis that is not controlled ...": a condition
                    # with words after it the reader cannot weigh; as a statement its requirement would be lost
                    return None
                item = self.statement_of(m.end(), b)
                return Documentation(self.fresh(), self.span(a, b), item=item) if item else None
        m = _rx(_section("documentation", "nouns")).search(self.folded, a, b)
        if m is not None and m.start() - a < 40:
            item = self.statement_of(m.end(), b)
            return Documentation(self.fresh(), self.span(a, b), item=item) if item else None
        m = _rx(_section("documentation", "after")).search(self.folded, a, b)
        if m is not None and m.end() >= b - 2:
            item = self.name(self._person_end(a, m.start()), m.start())
            return Documentation(self.fresh(), self.span(a, b), item=item) if item else None
        return None

    def valued(self, a: int, b: int) -> Node | None:
        const = constant(self.text[a:b])
        vals = values(self.text[a:b])
        if not vals:
            if const is not None and const["kind"] == "age":
                return self._adult(a, b, const)
            return None
        if len(vals) > 1 and not all(v.per for v in vals):
            return None  # several numbers in one criterion: read by the list reader, not here
        v = vals[0]
        low = self.folded[a:b]
        if v.unit == "year" and re.search(r"\b(?:age|aged|old|older|younger)\b", low):
            comparator = v.comparator if v.explicit else "=="
            return Age(self.fresh(), self.span(a, b), comparator=comparator, value=v.value)  # type: ignore[arg-type]
        if v.unit in ("EUR", "GBP", "USD"):
            return Amount(self.fresh(), self.span(a, b), currency=v.unit, comparator=v.comparator,  # type: ignore[arg-type]
                          value=v.value, per=v.per)
        if v.unit in ("day", "week", "month", "year") and re.search(r"\b(?:insured|membership|enrolled|cover(?:ed)?|joined|contract)\b", low):
            return Tenure(self.fresh(), self.span(a, b), comparator=v.comparator, value=v.value,  # type: ignore[arg-type]
                          unit=v.unit)  # type: ignore[arg-type]
        if not v.explicit:
            return None
        if _rx(_section("negation")).search(self.folded, a, a + v.start):
            return None  # "cannot walk more than 50 feet": the negation turns the bound
        quantity = self._quantity(a, b, v)
        if quantity is None:
            return None
        tail = self.folded[a + v.end:b].split()
        if not v.unit and v.per is None and self.text[a:a + v.start].strip() and tail and tail[0].isalpha() \
                and not _rx(_section("measure_tail")).fullmatch(tail[0]):
            return None  # "more than 50 feet": a unit the reader does not know
        alternatives = [q.strip() for q in re.split(r"\s+or\s+", quantity) if q.strip()]
        if len(alternatives) == 2 and v.per is None and v.unit not in ("day", "week", "month", "year"):
            # "the AHI or RDI is 15 or more": either measure meets the threshold
            return AnyOf(tuple(Measure(self.fresh(), self.span(a, b), quantity=q, comparator=v.comparator,  # type: ignore[arg-type]
                                       value=v.value, unit=v.unit, per=v.per) for q in alternatives))
        if v.per is not None and v.unit in ("", "units"):
            return Count(self.fresh(), self.span(a, b), item=quantity, comparator=v.comparator,  # type: ignore[arg-type]
                         value=v.value, per=v.per)
        if v.unit in ("day", "week", "month", "year"):
            if _AFTER_COURSE.search(self.text[a:a + v.start]):
                return None  # "symptoms persist after 8 weeks of therapy": the course is not what persists
            if re.search(r"\b(?:has|have|had|was|were|is|are|did|does|do)\b", self.folded[a + v.end:b]):
                return None  # "a trial lasting 4 weeks has failed to control the swelling": what it did is a requirement too
            return Duration(self.fresh(), self.span(a, b), therapy=quantity, comparator=v.comparator,  # type: ignore[arg-type]
                            value=v.value, unit=v.unit)  # type: ignore[arg-type]
        if not v.unit and not self.text[a:a + v.start].strip() and self.lex.quantity_named(quantity) is None:
            return None  # "at least one bladder medication": a count of things, not a measured quantity
        return Measure(self.fresh(), self.span(a, b), quantity=quantity, comparator=v.comparator,  # type: ignore[arg-type]
                       value=v.value, unit=v.unit, per=v.per)

    def _adult(self, a: int, b: int, const: dict[str, Any]) -> Node | None:
        """"The patient is an adult": an age; "... is an adult with chronic plaque psoriasis": an age and
        a condition (drug policy); any other words beside the age word are unread, never dropped."""
        age = Age(self.fresh(), self.span(a, b), comparator=const["comparator"], value=float(const["value"]))
        start = _skip_space(self.folded, self._person_end(a, b))
        m = re.match(r"(?:(?:is|are|must be|be)\s+)?(?:(?:a|an)\s+)?(?:adult|adults)(?:\s+patients?)?\b\s*", self.folded[start:b])
        if m is None:
            return None
        rest = start + m.end()
        if not self.folded[rest:b].strip(" .,;"):
            return age
        led = re.match(r"with\s+", self.folded[rest:b])
        said = self.condition(rest + led.end(), b) if led else None
        return AllOf((age, said)) if said is not None else None

    def _quantity(self, a: int, b: int, v: Value) -> str | None:
        """What a number measures: the words before it ("an HbA1c of"), else those after it."""
        before = re.sub(r"\s+(?:of|is|was|at|are|were|has|have|by|to)\s*$", "", self.text[a:a + v.start])
        before = self.text[self._person_end(a, a + len(before)):a + len(before)]
        before = re.sub(r"^(?:has|have|had|is|are|shows?|with|performs?|needs?)(?:\s+|$)", "", before.strip())
        if before.strip():
            name = self.lex.quantity_named(_ARTICLES.sub("", before.strip())) or self.name(
                a + self.text[a:a + v.start].find(before), a + self.text[a:a + v.start].find(before) + len(before))
            if name:
                return name
        after_a = a + v.end
        after = re.split(r"\s+(?:per|every|each|in|within|for|that|which|during)\s+", self.text[after_a:b])[0]
        return self.name(after_a, after_a + len(after)) if after.strip() else None

    def code(self, a: int, b: int) -> Node | None:
        text = self.text[a:b]
        codes = _CODE.findall(text)
        stripped = _CODE.sub("", re.sub(r"\b(?:hcpcs|cpt|codes?|and|or)\b", "", text, flags=re.IGNORECASE))
        if codes and not stripped.strip(" ,;:.()"):
            return Service(self.fresh(), self.span(a, b), concept="service " + ", ".join(codes), codes=tuple(codes))
        return None

    def _named_then_more(self, a: int, b: int) -> bool:
        """A statement that a person has a condition the lexicon names, followed by more words."""
        start = _skip_space(self.folded, self._person_end(_skip_space(self.folded, a), b))
        lead = _rx(_section("condition", "leads")).match(self.folded, start)
        if lead is None:
            return False
        words = re.sub(r"\([^()]*\)", " ", self.folded[lead.end():b]).split()
        words = words[1:] if words and words[0] in ("a", "an", "the") else words
        words = words[1:] if words and words[0] in ("mild", "moderate", "severe") else words
        return any(self.lex.concept_named(" ".join(words[:n])) is not None for n in range(1, min(6, len(words))))

    def condition(self, a: int, b: int, require_lead: bool = False) -> Node | None:
        # an "(i.e., ...)" aside explains the condition; its figures are no bound of the criterion
        found = values(_ASIDE.sub(lambda m: " " * len(m.group(0)), self.text[a:b]))
        if any(v.explicit for v in found) or len(found) > 1:
            # "a score of 20 or higher", "after at least 8 weeks of therapy", "an AHI of 5 to 14": a bound
            # or a range is no part of a name ("type 2 diabetes" is one number, no bound)
            return None
        start = _skip_space(self.folded, self._person_end(a, b))
        low = self.folded
        led = False
        history = documented = False
        severity: tuple[str, ...] = ()
        certainty = "stated"
        for _ in range(4):  # leads may stack: "has a documented history of severe ..."
            m = _rx(_section("condition", "leads")).match(low, _skip_space(low, start))
            if m is not None and m.end() <= b:
                start, led = m.end(), True
                continue
            m = _rx(_section("condition", "history")).match(low, _skip_space(low, start))
            if m is not None:
                history, start = True, m.end()
                continue
            m = _rx(_section("condition", "documented")).match(low, _skip_space(low, start))
            if m is not None:
                documented, start = True, m.end()
                continue
            m = _rx(_section("condition", "certainty_high")).match(low, _skip_space(low, start))
            if m is not None:
                certainty, start = "high_probability", m.end()
                continue
            m = _rx(_section("condition", "certainty_suspected")).match(low, _skip_space(low, start))
            if m is not None:
                certainty, start = "suspected", m.end()
                continue
            break
        sev = _rx(_section("condition", "severity")).match(low, _skip_space(low, start))
        if sev is None and led:
            # "has a severe hearing loss": the article before the severity
            art = _ARTICLES.match(low[_skip_space(low, start):b])
            sev = _rx(_section("condition", "severity")).match(low, _skip_space(low, start) + art.end()) if art else None
        if sev is not None:
            words = fold(sev.group(0))
            levels = [lvl for lvl in ("mild", "moderate", "severe") if lvl in words]
            severity = tuple(levels if "to" not in words else _range(levels))
            start = sev.end()
        if require_lead and not (led and (severity or self.lex.concept_named(self.text[start:b].strip(" .,;")))):
            return None
        name = self.name(start, b, None)
        if name is None:
            return None
        codes = tuple(c for c in _CODE.findall(self.text[a:b]) if re.match(r"[A-Z]\d{2}", c))
        return Condition(self.fresh(), self.span(a, b), concept=name, severity=severity,
                         certainty=certainty,  # type: ignore[arg-type]
                         documented=documented, history=history, codes=codes)


def _skip_space(text: str, at: int) -> int:
    while at < len(text) and text[at] == " ":
        at += 1
    return at


def _range(levels: list[str]) -> list[str]:
    order = ["mild", "moderate", "severe"]
    if len(levels) < 2:
        return levels
    i, j = order.index(levels[0]), order.index(levels[-1])
    return order[min(i, j):max(i, j) + 1]
