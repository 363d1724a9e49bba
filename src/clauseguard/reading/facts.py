"""Facts from a request's codes and narrative, each anchored to its span: numbers, durations, negations, hedges.

The narrative's explicit statement governs a code and a hedge outweighs one; instruction-like text is
flagged and never read. It never decides coverage.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any, Final, Literal

from clauseguard.corpus.criteria import Criteria, Period, Span, all_atoms, to_json
from clauseguard.reading.lexicon import Lexicon, Match, Token, default_lexicon, normalise, tokenize
from clauseguard.reading.positions import SpanIndex, TokenIndex

Status = Literal["present", "absent", "unknown"]
FactCertainty = Literal["suspected", "high_probability", "stated", "confirmed"]
NARRATIVE: Final = "narrative"
_NUMBER_TOKEN = re.compile(r"\d+(?:\.\d+)?")


@dataclass(frozen=True)
class ConditionFact:
    """A condition, finding or state the request presents (or denies, or hedges)."""

    concept: str
    status: Status
    source: str  # "narrative" or "code:E10.9"
    span: Span | None = None
    certainty: FactCertainty = "stated"
    severity: tuple[str, ...] = ()
    qualifiers: tuple[str, ...] = ()
    documented: bool = False
    history: bool = False
    note: str = ""
    within_days: float | None = None  # a planned or expected condition: due within this many days
    ago_days: tuple[float, float] | None = None  # when a stated finding or document was made: (fewest, most) days ago


@dataclass(frozen=True)
class TherapyFact:
    """A therapy the member had (or did not): statuses, how long, and how it went."""

    therapy: str
    status: Status
    span: Span | None
    known: bool = True  # False: the lexicon does not know this therapy, so its class is unknown
    statuses: tuple[str, ...] = ("treated",)
    denied: tuple[str, ...] = ()  # statuses the narrative explicitly denies ("no documented intolerance")
    duration_days: float | None = None
    outcome: str | None = None
    source: str = NARRATIVE


@dataclass(frozen=True)
class MeasureFact:
    """A stated value: "A1c 8.6 percent", "two fingerstick tests per day"."""

    quantity: str
    status: Status
    span: Span | None
    value: float | None = None
    comparator: str = "=="
    unit: str = ""
    per: Period | None = None
    source: str = NARRATIVE


@dataclass(frozen=True)
class AgeFact:
    """The member's age, or the age at onset of a condition (years; an interval when a word gives it)."""

    value: float
    span: Span | None
    of: str = "member"
    comparator: str = "=="
    source: str = NARRATIVE


@dataclass(frozen=True)
class TenureFact:
    """How long the member has been insured under the contract ("joined the scheme ten months ago")."""

    days: float
    span: Span | None
    comparator: str = "=="
    source: str = NARRATIVE


@dataclass(frozen=True)
class ServiceFact:
    """A service: the requested one (from a procedure code) or one the member already had."""

    concepts: tuple[str, ...]  # empty: the lexicon does not know the code or the word stands for the request
    span: Span | None
    requested: bool = False
    code: str | None = None
    status: Status = "present"
    ago_days: float | None = None  # when a prior one happened
    within: Period | None = None  # the window a stated count of prior ones covers
    prior_count: float | None = None  # prior ones in `within` (0 for "no ... in the past 12 months")
    source: str = NARRATIVE


@dataclass(frozen=True)
class QuantityFact:
    """How much of the requested service: "37 sensor units for a 31-day period"."""

    item: str
    value: float
    per: Period
    span: Span | None
    source: str = NARRATIVE


@dataclass(frozen=True)
class DocumentationFact:
    """Evidence the request states (or states is absent): "radiculopathy corroborated by MRI"."""

    item: str
    status: Status
    span: Span | None
    about: str | None = None
    source: str = NARRATIVE


@dataclass(frozen=True)
class RelativeFact:
    """What the narrative states about someone other than the member ("her sister carries a pathogenic
    BRCA2 variant", "mother has type 1 diabetes"): never a fact about the member, read only by a criterion
    that is itself about a relative (a family history, a variant "in a blood relative").

    One per condition the statement names (`concept`), and one for the statement as a whole
    (`concept` None) with its words that no known condition accounts for: what the reader matches a term
    the lexicon lacks against."""

    relatives: tuple[str, ...]  # who, as written ("sister", "family history of")
    status: Status
    span: Span | None
    concept: str | None = None
    certainty: FactCertainty = "stated"
    words: tuple[str, ...] = ()
    source: str = NARRATIVE


Fact = (ConditionFact | TherapyFact | MeasureFact | AgeFact | TenureFact | ServiceFact | QuantityFact
        | DocumentationFact | RelativeFact)


@dataclass(frozen=True)
class Flag:
    """Something the reader noticed and did not turn into a fact: instructions, reported speech, a
    disagreement between codes and narrative, a code the lexicon does not know."""

    kind: Literal["instruction", "reported_speech", "discrepancy", "unknown_code"]
    message: str
    span: Span | None = None


@dataclass(frozen=True)
class FactSheet:
    """Everything read from one request, in a stable order, with the lexicon fingerprint."""

    facts: tuple[Fact, ...]
    flags: tuple[Flag, ...]
    lexicon_fingerprint: str
    vocabulary: tuple[str, ...] = ()
    unknown_codes: tuple[str, ...] = ()

    def of(self, kind: type) -> list[Any]:
        return [f for f in self.facts if isinstance(f, kind)]

    def to_json(self) -> dict[str, Any]:
        return {
            "facts": [{"kind": type(f).__name__, **to_json(f)} for f in self.facts],
            "flags": [to_json(f) for f in self.flags],
            "lexicon_fingerprint": self.lexicon_fingerprint,
            "unknown_codes": list(self.unknown_codes),
        }


def vocabulary_of(criteria: Iterable[Criteria], lexicon: Lexicon | None = None) -> tuple[str, ...]:
    """Terms the criteria use that the lexicon lacks: the reader looks for them literally."""
    lex = lexicon or default_lexicon()
    terms: set[str] = set()
    for crit in criteria:
        for atom in all_atoms(crit):
            for name in ("concept", "item", "therapy", "about"):
                value = getattr(atom, name, None)
                if isinstance(value, str) and not lex.knows(value) and len(value.split()) <= 6:
                    terms.add(value)
    return tuple(sorted(terms))


def read_facts(
    narrative: str,
    diagnosis_codes: Iterable[str] = (),
    procedure_codes: Iterable[str] = (),
    lexicon: Lexicon | None = None,
    vocabulary: Iterable[str] = (),
) -> FactSheet:
    """Read the facts of one request. Spans are offsets into `narrative` as given."""
    return _Reader(narrative, lexicon or default_lexicon(), tuple(sorted(set(vocabulary)))).read(
        tuple(diagnosis_codes), tuple(procedure_codes)
    )


# --- the reader --------------------------------------------------------------------------------


@dataclass
class _Mention:
    name: str
    start: int
    end: int
    domain: str  # condition | therapy | service | free | generic
    status: Status = "present"
    certainty: FactCertainty = "stated"
    hedged: bool = False


@dataclass
class _Cues:
    negation: list[tuple[int, int]] = field(default_factory=list)
    negation_after: list[tuple[int, int]] = field(default_factory=list)
    hedge_before: list[tuple[int, int, bool]] = field(default_factory=list)  # (start, end, is_suspicion)
    hedge_after: list[tuple[int, int, bool]] = field(default_factory=list)


class _Tables:
    """What the reader needs from one lexicon, with its regex pieces: built once per lexicon instance
    (kept on it by `Lexicon.derived`), never per request."""

    def __init__(self, lexicon: Lexicon) -> None:
        C = "cues.yaml"
        self.words = lexicon.number_words()
        self.article_numbers = lexicon.article_numbers()
        self.time_units = lexicon.time_units()
        self.units = lexicon.units()
        self.freq = lexicon.frequency_words()
        self.period_names = lexicon.period_names()
        self.severity_levels = list(lexicon.phrases(C, "severity_levels"))
        self.qualifier_words = frozenset(lexicon.phrases(C, "qualifiers"))
        self.generic = frozenset(lexicon.phrases("phrasing.yaml", "generic_services"))
        self.suspicion = frozenset(lexicon.phrases(C, "suspicion"))
        self.supplies = frozenset(lexicon.phrases("phrasing.yaml", "countable_supplies"))
        number_words = sorted((w for w in self.words if w.replace(" ", "").isalpha() and w not in self.article_numbers),
                              key=len, reverse=True)
        alt = "|".join(r"\s+".join(map(re.escape, w.split())) for w in number_words)
        self.number_re = rf"(?:\d+(?:\.\d+)?|(?:{alt})(?:-(?:{alt}))?)"
        self.time_re = "|".join(sorted((re.escape(t) for t in self.time_units), key=len, reverse=True))
        self.unit_alt = "|".join(sorted((r"\s+".join(map(re.escape, u.split())) for u in self.units), key=len, reverse=True))
        self.freq_alt = "|".join(sorted((r"\s+".join(map(re.escape, f.split())) for f in self.freq), key=len, reverse=True))
        tenure = lexicon.phrase_map(C, "tenure")
        N, T = self.number_re, self.time_re
        holder = rf"(?:(?:the|its|their|his|her|this)\s+)?(?:group\s+)?(?:{'|'.join(map(re.escape, tenure['contracts']))})"
        self.tenure_re = re.compile(
            rf"(?<![\w-])(?:(?:{'|'.join(map(re.escape, tenure['joined']))})\s+{holder}\s+(?P<n>{N})[\s-]+(?P<t>{T})\s+ago"
            rf"|(?:{'|'.join(map(re.escape, tenure['insured']))})\s+(?:under|in|with|by|on)\s+{holder}\s+for\s+"
            rf"(?P<more>more\s+than\s+|over\s+)?(?P<n2>{N})[\s-]+(?P<t2>{T}))(?![\w-])", re.I)
        self.therapy_starts = "|".join(r"\s+".join(map(re.escape, w.split()))
                                       for w in sorted(lexicon.phrases(C, "therapy_starts"), key=len, reverse=True))
        self.ordinals = {normalise(str(k)): float(v) for k, v in lexicon.data["numbers.yaml"].get("ordinals", {}).items()}
        self.count_links = "|".join(r"\s+".join(map(re.escape, w.split()))
                                    for w in sorted(lexicon.phrases(C, "count_links"), key=len, reverse=True))
        self.ordinal_boundaries = frozenset(normalise(w) for w in lexicon.phrases(C, "ordinal_boundaries"))
        self.count_occasions = {normalise(str(w)): str(unit) for unit, forms in
                                lexicon.data["measures.yaml"].get("count_occasions", {}).items() for w in forms}
        self.ago_words = {normalise(str(k)): (float(v[0]), float(v[1]))
                          for k, v in lexicon.data["measures.yaml"].get("ago_words", {}).items()}
        raw_ages = lexicon.data[C].get("age_words", {})
        self.age_words = {normalise(k): (str(v[0]), float(v[1])) for k, v in raw_ages.items()}


class _Reader:
    def __init__(self, text: str, lexicon: Lexicon, vocabulary: tuple[str, ...]) -> None:
        self.text = text
        self.lex = lexicon
        self.vocabulary = vocabulary
        self.flags: list[Flag] = []
        self.C = "cues.yaml"
        tables = lexicon.derived("facts.tables", _Tables)
        self.tables = tables
        self.words = tables.words
        self.article_numbers = tables.article_numbers
        self.time_units = tables.time_units
        self.units = tables.units
        self.freq = tables.freq
        self.period_names = tables.period_names
        self.severity_levels = tables.severity_levels
        self.qualifier_words = tables.qualifier_words
        self.generic = tables.generic

    def span(self, start: int, end: int) -> Span:
        return Span(start, end, self.text[start:end])

    # --- top level ---------------------------------------------------------------------------

    def read(self, dx_codes: tuple[str, ...], px_codes: tuple[str, ...]) -> FactSheet:
        self.clean = self._mask_untrusted()
        self.sentences = self._sentences(self.clean)
        self.tokens = tokenize(self.clean)
        self._sentence_index, self._token_index = SpanIndex(self.sentences), TokenIndex(self.tokens)
        self._named: SpanIndex | None = None  # the concepts of the whole text, found on first use
        self.cues = self._find_cues()
        self.relative_regions = self._relative_regions()
        self.relative_mentions: list[_Mention] = []
        mentions = self._mentions()
        facts: list[Fact] = []
        facts.extend(self._condition_facts(mentions))
        facts.extend(self._therapy_facts(mentions))
        facts.extend(self._measure_facts())
        facts.extend(self._age_facts())
        facts.extend(self._tenure_facts())
        counts = self._count_facts()
        facts.extend(counts)
        facts.extend(f for f in self._history_facts(mentions) if not self._counted(f, counts))
        facts.extend(self._quantity_facts())
        facts.extend(self._documentation_facts(mentions))
        # a value stated about a relative ("her mother was diagnosed at age 42") is not the member's
        facts = [f for f in facts if not self._about_relative(f.span)]
        facts.extend(self._relative_facts())
        unknown: list[str] = []
        code_facts: list[Fact] = []
        for code in sorted(set(c.strip().upper() for c in dx_codes if c and c.strip())):
            concepts = self.lex.conditions_for_code(code)
            if not concepts:
                unknown.append(code)
                self.flags.append(Flag("unknown_code", f"diagnosis code {code} is not in the lexicon; "
                                                       "what it states is unknown"))
            for concept in concepts:
                code_facts.append(ConditionFact(concept, "present", f"code:{code}", None))
        facts = self._reconcile(facts, code_facts)
        for code in sorted(set(c.strip().upper() for c in px_codes if c and c.strip())):
            concepts = self.lex.services_for_code(code)
            facts.append(ServiceFact(concepts, None, requested=True, code=code, source=f"procedure:{code}"))
            if not concepts:
                unknown.append(code)
                self.flags.append(Flag("unknown_code", f"procedure code {code} is not in the lexicon"))
        facts.sort(key=_fact_order)
        unique = {(f.kind, f.message, f.span): f for f in self.flags}
        flags = sorted(unique.values(), key=lambda f: (f.span.start if f.span else -1, f.kind, f.message))
        return FactSheet(tuple(facts), tuple(flags), self.lex.fingerprint, self.vocabulary, tuple(unknown))

    # --- untrusted text ----------------------------------------------------------------------

    def _mask_untrusted(self) -> str:
        """Blank instruction-like text and reported speech (same length, so spans stay valid)."""
        text = self.text
        chars = list(text)
        sentences = SpanIndex(self._sentences(text))
        for kind, key in (("instruction", "instructions"), ("reported_speech", "reported_speech")):
            pattern = self.lex.pattern(self.lex.phrases(self.C, key), f"cue-{key}")
            for m in pattern.finditer(text):
                s_start, s_end = sentences.holding(m.start()) or (m.start(), len(text))
                start = m.start()
                before = text[s_start:start]
                if kind == "instruction" and not self.lex.find_concepts(before):
                    start = s_start
                end = s_end
                for i in range(start, end):
                    chars[i] = " "
                message = ("instruction-like text in the narrative was ignored" if kind == "instruction"
                           else "reported speech (what a source says) was not read as a fact about the member")
                self.flags.append(Flag(kind, message, self.span(start, end)))  # type: ignore[arg-type]
        return "".join(chars)

    @staticmethod
    def _sentences(text: str) -> list[tuple[int, int]]:
        out = []
        start = 0
        for m in re.finditer(r"[.!?](?=\s|$)|\n+", text):
            if m.group(0) == "." and m.start() > 0 and text[m.start() - 1].isdigit() and \
                    m.end() < len(text) and text[m.end():m.end() + 1].isdigit():
                continue
            if text[start:m.start()].strip():
                out.append((start, m.start()))
            start = m.end()
        if text[start:].strip():
            out.append((start, len(text)))
        return out

    def _sentence_of(self, pos: int) -> tuple[int, int]:
        return self._sentence_index.sentence_of(pos)

    # --- cues and mentions -------------------------------------------------------------------

    def _find(self, key: str) -> list[tuple[int, int]]:
        pattern = self.lex.pattern(self.lex.phrases(self.C, key), f"cue-{key}")
        return [(m.start(), m.end()) for m in pattern.finditer(self.clean)]

    def _find_cues(self) -> _Cues:
        cues = _Cues()
        suspicion = self.tables.suspicion
        hedges_b = [(s, e, normalise(self.clean[s:e]) in suspicion) for s, e in self._find("hedge_before")]
        hedges_a = [(s, e, normalise(self.clean[s:e]) in suspicion) for s, e in self._find("hedge_after")]
        taken = [(s, e) for s, e, _ in hedges_b + hedges_a]

        def free(s: int, e: int) -> bool:
            return not any(s < te and ts < e for ts, te in taken)

        cues.hedge_before = hedges_b
        cues.hedge_after = [h for h in hedges_a if not any(h[0] < b[1] and b[0] < h[1] for b in hedges_b)]
        cues.negation_after = [(s, e) for s, e in self._find("negation_after") if free(s, e)]
        taken += cues.negation_after
        cues.negation = [(s, e) for s, e in self._find("negation_before") if free(s, e)]
        return cues

    def _mentions(self) -> list[_Mention]:
        found: list[_Mention] = []
        for m in self.lex.find_concepts(self.clean, self.tokens):
            found.append(_Mention(m.name, m.start, m.end, self.lex.concepts[m.name].domain))
        for m in self._vocabulary_matches():
            if not any(o.start < m.end and m.start < o.end for o in found):
                found.append(_Mention(m.name, m.start, m.end, "free"))
            else:
                # a literal clause term longer than the lexicon's match wins
                overlapping = [o for o in found if o.start < m.end and m.start < o.end]
                if all((m.end - m.start) > (o.end - o.start) for o in overlapping):
                    for o in overlapping:
                        found.remove(o)
                    found.append(_Mention(m.name, m.start, m.end, "free"))
        for tok in self.tokens:
            word = tok.text
            if word in self.generic and not any(o.start <= tok.start < o.end for o in found):
                found.append(_Mention(word, tok.start, tok.end, "generic"))
        found.sort(key=lambda m: (m.start, -m.end))
        kept = []
        for mention in found:
            region = self._relative_region(mention.start)
            if region is not None:
                # "mother has type 1 diabetes": not a fact about the member; kept as one about a relative
                self._relative_polarity(mention, region)
                self.relative_mentions.append(mention)
                continue
            self._polarity(mention)
            kept.append(mention)
        return kept

    # --- relatives ---------------------------------------------------------------------------

    def _relative_regions(self) -> list[tuple[int, int, tuple[tuple[int, int], ...]]]:
        """Where the narrative speaks of someone other than the member: from the first word naming
        them ("sister", "family history of") to the end of its clause, with those words."""
        by_clause: dict[tuple[int, int], list[tuple[int, int]]] = {}
        words = self.lex.phrases(self.C, "other_experiencer")
        # with the possessive too: "her father's type 1 diabetes" is his
        possessive = [f"{w}{end}" for w in words for end in ("'s", "’s", *(("'", "’") if w.endswith("s") else ()))]
        pattern = self.lex.pattern((*words, *possessive), "cue-other_experiencer-possessive")
        for m in pattern.finditer(self.clean):
            s, e = m.start(), m.end()
            by_clause.setdefault(self._clause_bounds(s, stop_words=False), []).append((s, e))
        return sorted((cues[0][0], right, tuple(cues)) for (_left, right), cues in by_clause.items())

    def _relative_region(self, pos: int) -> int | None:
        """Where the statement about someone else that `pos` lies in starts (after a word naming them,
        in that word's clause), else None."""
        return next((start for start, right, cues in self.relative_regions if cues[0][1] <= pos < right), None)

    def _about_relative(self, span: Span | None) -> bool:
        return span is not None and self._relative_region(span.start) is not None

    def _relative_polarity(self, mention: _Mention, region_start: int) -> None:
        """Polarity inside a statement about a relative: a negation before the relative governs it only
        when it is written on the relative ("no family history of", "no other relative"), not when it
        belongs to what the member has ("no personal history of cancer whose mother ...")."""
        negation = self.cues.negation
        self.cues.negation = [(s, e) for s, e in negation if s >= region_start
                              or re.fullmatch(r"\s*(?:[\w-]+\s+){0,2}", self.clean[e:region_start]) is not None]
        try:
            self._polarity(mention)
        finally:
            self.cues.negation = negation

    def _relative_facts(self) -> list[Fact]:
        out: list[Fact] = []
        for start, right, cues in self.relative_regions:
            end = start + len(self.clean[start:right].rstrip())
            span = self.span(start, end)
            who = tuple(dict.fromkeys(re.sub(r"['’]s?$", "", normalise(self.clean[s:e])) for s, e in cues))
            inside = [m for m in self.relative_mentions if start <= m.start and m.end <= right]
            for m in inside:
                out.append(RelativeFact(who, m.status, span, m.name, m.certainty))
            # the statement as a whole: its words that neither name the relative nor a known condition
            known = [(m.start, m.end) for m in inside if m.domain != "free"]
            taken = [*cues, *known]
            words = tuple(t.text for t in self._token_index.inside(start, end)
                          if not any(s <= t.start < e for s, e in taken))
            out.append(RelativeFact(who, self._statement_status(start, end), span, None, "stated", words))
        return out

    def _statement_status(self, start: int, end: int) -> Status:
        """A statement about a relative as a whole is absent only when the negation is written on the
        relative and reaches over all of it ("no family history of ...", "no other relative has ...");
        a negation inside it may deny only part of it ("carries the variant but has no cancer"), so the
        statement stands. Hedged anywhere, it is unknown."""
        s_start, _ = self._sentence_of(start)
        hedges = [(s, e) for s, e, _ in self.cues.hedge_before + self.cues.hedge_after]
        if any(start <= s < end for s, _e in hedges) or \
                any(s_start <= s and e <= start and re.fullmatch(r"\s*(?:[\w-]+\s+){0,2}", self.clean[e:start])
                    for s, e, _ in self.cues.hedge_before):
            return "unknown"
        for s, e in self.cues.negation:
            if s_start <= s and e <= start and re.fullmatch(r"\s*(?:[\w-]+\s+){0,2}", self.clean[e:start]) \
                    and self._negation_reach(e) >= end:
                return "absent"
        return "present"

    def _vocabulary_matches(self) -> list[Match]:
        if not self.vocabulary:
            return []
        files = {"free.yaml": b""}
        del files
        out: list[Match] = []
        words = [t.text for t in self.tokens]
        for term in self.vocabulary:
            key = [t.text for t in tokenize(normalise(term))]
            if not key:
                continue
            variants = {tuple(key)}
            last = key[-1]
            if last.endswith("s"):
                variants.add((*key[:-1], last[:-1]))
            else:
                variants.add((*key[:-1], last + "s"))
            for variant in variants:
                n = len(variant)
                for i in range(len(words) - n + 1):
                    if tuple(words[i:i + n]) == variant:
                        out.append(Match(term, i, i + n, self.tokens[i].start, self.tokens[i + n - 1].end))
        out.sort(key=lambda m: (m.start, -(m.end - m.start)))
        kept: list[Match] = []
        for m in out:
            if not any(k.start < m.end and m.start < k.end for k in kept):
                kept.append(m)
        return kept

    def _clause_bounds(self, pos: int, stop_at_comma: bool = True, stop_words: bool = True) -> tuple[int, int]:
        """The stretch of the sentence around `pos` between clause punctuation."""
        s_start, s_end = self._sentence_of(pos)
        marks = r"[;,]" if stop_at_comma else r"[;]"
        left = s_start
        for m in re.finditer(marks, self.clean[s_start:pos]):
            left = s_start + m.end()
        right = s_end
        found = re.search(marks, self.clean[pos:s_end])
        if found:
            right = pos + found.start()
        if stop_words:
            breaks = self.lex.pattern(self.lex.phrases(self.C, "scope_breaks"), "cue-breaks")
            for b in breaks.finditer(self.clean, left, pos):
                left = b.end()
            b2 = breaks.search(self.clean, pos, right)
            if b2:
                right = b2.start()
        return left, right

    def _negation_reach(self, cue_end: int) -> int:
        """A negation reaches to the end of its clause, past commas that only separate adjectives
        ("no cardiac, pulmonary or neuromuscular comorbidity")."""
        s_start, s_end = self._sentence_of(cue_end)
        pos = cue_end
        breaks = self.lex.pattern(self.lex.phrases(self.C, "scope_breaks"), "cue-breaks")
        while True:
            m = re.search(r"[;,]", self.clean[pos:s_end])
            b = breaks.search(self.clean, pos, s_end)
            stop = pos + m.start() if m else s_end
            if b and b.start() < stop:
                return b.start()
            if m is None or m.group(0) == ";":
                return stop
            stretch = self.clean[cue_end:stop]
            if self.lex.find_concepts(stretch) or self.lex.find_quantities(stretch) or \
                    any(v in normalise(stretch) for v in self.vocabulary):
                return stop
            pos = stop + 1

    def _polarity(self, mention: _Mention) -> None:
        s_start, s_end = self._sentence_of(mention.start)
        for cs, ce in self.cues.negation:
            if s_start <= cs and ce <= mention.start and mention.end <= self._negation_reach(ce):
                mention.status = "absent"
        for cs, ce in self.cues.negation_after:
            left, right = self._clause_bounds(mention.start)
            if mention.end <= cs and cs < right + 1 and ce <= s_end and left <= mention.start:
                mention.status = "absent"
        for cs, ce, suspicion in self.cues.hedge_before:
            if s_start <= cs and ce <= mention.start:
                _, right = self._clause_bounds(ce)
                with_break = re.search(r"\s(?:with|and)\s", self.clean[ce:mention.start])
                if mention.end <= right and not with_break:
                    self._hedge(mention, suspicion)
        for cs, ce, suspicion in self.cues.hedge_after:
            if mention.end <= cs and ce <= s_end:
                left, _ = self._clause_bounds(mention.start)
                between = self.clean[mention.end:cs]
                adjacent = between.strip(" ,") == ""
                if left <= mention.start and (adjacent or not re.search(r"[;,]|\s(?:and|with)\s", between)):
                    self._hedge(mention, suspicion)

    @staticmethod
    def _hedge(mention: _Mention, suspicion: bool) -> None:
        if mention.status == "absent":
            return
        mention.hedged = True
        if suspicion:
            mention.certainty = "suspected"
        else:
            mention.status = "unknown"

    # --- conditions --------------------------------------------------------------------------

    def _before_words(self, pos: int, limit: int = 8) -> list[Token]:
        """Tokens right before `pos` in the same clause, nearest last."""
        left, _ = self._clause_bounds(pos, stop_words=False)
        toks = self._token_index.inside(left, pos)
        return toks[-limit:]

    def _modifiers(self, mention: _Mention) -> tuple[int, list[str]]:
        """The words that modify a mention, read back from it while they are modifiers
        ("confirmed moderate to severe active ..."): where they start, and the words."""
        left, _ = self._clause_bounds(mention.start, stop_words=False)
        toks = self._token_index.inside(left, mention.start)
        modifier_words = set(self.severity_levels) | self.qualifier_words | {"to", "documented", "confirmed",
                                                                             "established", "known", "and", "or"}
        start = mention.start
        words: list[str] = []
        for tok in reversed(toks):
            word = tok.text[:-2] if tok.text.endswith("ly") and tok.text[:-2] in self.severity_levels else tok.text
            if word not in modifier_words:
                break
            words.insert(0, tok.text)
            start = tok.start
        while words and words[0] in ("to", "and", "or"):
            words.pop(0)
        return start, words

    def _condition_facts(self, mentions: list[_Mention]) -> list[Fact]:
        out: list[Fact] = []
        high = self._find("high_probability")
        confirmed = self._find("confirmed")
        history = self._find("history")
        documented = self._find("documented")
        for m in mentions:
            if m.domain not in ("condition", "free"):
                continue
            mod_start, words = self._modifiers(m)
            severity = self._severity(words)
            qualifiers = tuple(w for w in words if w in self.qualifier_words)
            left, right = self._clause_bounds(m.start, stop_words=False)
            gap = r"[\s,]*"
            certainty: FactCertainty = m.certainty
            if certainty == "stated":
                if any(re.fullmatch(gap, self.clean[e:mod_start]) for s, e in high if e <= mod_start):
                    certainty = "high_probability"
                elif any(mod_start <= s and e <= m.start for s, e in confirmed) or \
                        any(re.fullmatch(gap, self.clean[e:mod_start]) for s, e in confirmed if e <= mod_start):
                    certainty = "confirmed"
            is_history = any(re.fullmatch(r"[\s\w-]*", self.clean[e:mod_start]) and left <= s
                             for s, e in history if e <= mod_start)
            is_documented = any(left <= s and s < right for s, e in documented)
            out.append(ConditionFact(m.name, m.status, NARRATIVE, self.span(m.start, m.end), certainty,
                                     severity, qualifiers, is_documented, is_history, within_days=self._window_after(m.end),
                                     ago_days=self._dated(m)))
        return out

    def _dated(self, m: _Mention) -> tuple[float, float] | None:
        """'An audiological evaluation two months ago ...', 'reviewed 30 days ago', 'last month': how long
        ago the rest of its sentence dates it; two different dates in that stretch date nothing."""
        _, s_end = self._sentence_of(m.start)
        rest = self.clean[m.end:s_end]
        found: set[tuple[float, float]] = set()
        for a in re.finditer(rf"(?<![\w-])(?P<n>{self._number_re()})[\s-]+(?P<t>{self._time_re()})\s+ago(?![\w-])", rest, re.I):
            value = self._num_at(a.group("n"))
            unit = self.time_units.get(normalise(a.group("t")))
            if value is not None and unit is not None:
                found.add((value * unit[1], value * unit[1]))
        ago_words = self.tables.ago_words
        if ago_words:
            alt = "|".join(r"\s+".join(map(re.escape, w.split())) for w in sorted(ago_words, key=len, reverse=True))
            for a in re.finditer(rf"(?<![\w-])(?:{alt})(?![\w-])", rest, re.I):
                found.add(ago_words[normalise(a.group())])
        return found.pop() if len(found) == 1 else None

    def _window_after(self, pos: int) -> float | None:
        """'... within the next four months' right after a mention: the window it is due in, in days."""
        m = re.match(rf"\s*(?:within|in)\s+(?:the\s+next\s+)?(?P<n>{self._number_re()})[\s-]+(?P<t>{self._time_re()})(?![\w-])",
                     self.clean[pos:], re.I)
        if m is None:
            return None
        value = self._num_at(m.group("n"))
        unit = self.time_units.get(normalise(m.group("t")))
        return value * unit[1] if value is not None and unit is not None else None

    def _severity(self, words: list[str]) -> tuple[str, ...]:
        levels = self.severity_levels
        base = [w[:-2] if w.endswith("ly") and w[:-2] in levels else w for w in words]
        found = [i for i, w in enumerate(base) if w in levels]
        if not found:
            return ()
        last = found[-1]
        if last >= 2 and base[last - 1] == "to" and base[last - 2] in levels:
            a, b = levels.index(base[last - 2]), levels.index(base[last])
            return tuple(levels[min(a, b):max(a, b) + 1])
        if "-to-" in words[last] if last < len(words) else False:
            return ()
        return (base[last],)

    # --- therapies ---------------------------------------------------------------------------

    def _therapy_facts(self, mentions: list[_Mention]) -> list[Fact]:
        out: list[Fact] = []
        status_cues = self.lex.phrase_map(self.C, "treatment_status")
        patterns = {k: self.lex.pattern(v, f"cue-status-{k}") for k, v in status_cues.items() if k != "treated"}
        therapies = [m for m in mentions if m.domain == "therapy"]
        for m in therapies:
            left, right = self._clause_bounds(m.start, stop_words=False)
            statuses = ["treated"]
            denied: list[str] = []
            for status in ("failed", "intolerant", "contraindicated"):
                for cue in patterns[status].finditer(self.clean, left, right):
                    negated = any(s < cue.start() and cue.start() - e < 20 and s >= left for s, e in self.cues.negation)
                    (denied if negated else statuses).append(status)
            if "contraindicated" in statuses:
                statuses = [s for s in statuses if s != "treated"]
            duration = self._therapy_duration(m, left, right)
            outcome = self._outcome_in(left, right) if "failed" in statuses else None
            out.append(TherapyFact(m.name, m.status, self.span(m.start, m.end), True,
                                   tuple(dict.fromkeys(statuses)), tuple(dict.fromkeys(denied)), duration, outcome))
        # status words with no therapy in their clause speak of the last therapy named before them
        for status in ("failed", "intolerant", "contraindicated"):
            for cue in patterns[status].finditer(self.clean):
                left, right = self._clause_bounds(cue.start(), stop_words=False)
                if any(left <= t.start < right for t in therapies):
                    continue
                earlier = [t for t in therapies if t.end <= cue.start()]
                if not earlier:
                    continue
                target = earlier[-1]
                negated = any(left <= s and e <= cue.start() for s, e in self.cues.negation)
                span = self.span(left, right)
                if negated:
                    out.append(TherapyFact(target.name, "present" if target.status == "present" else target.status,
                                           span, True, (), (status,)))
                    continue
                # "X, including A and B, gave no relief": the course named with its parts failed as a whole
                sentence = self._sentence_of(cue.start())
                heads = [h for h in earlier[:-1] if self._sentence_of(h.start) == sentence
                         and re.match(r"\s*,?\s*including\s", self.clean[h.end:cue.start()], re.I)]
                if not heads:
                    out.append(TherapyFact(target.name, target.status, span, True, (status,), ()))
                for head in heads:
                    for i, fact in enumerate(out):
                        if isinstance(fact, TherapyFact) and fact.span is not None and fact.span.start == head.start \
                                and fact.therapy == head.name and status not in fact.statuses:
                            outcome = self._outcome_in(left, right) if status == "failed" else fact.outcome
                            out[i] = replace(fact, statuses=(*fact.statuses, status), outcome=outcome)
        # "eight weeks of X, including A and B": A and B are parts of that course, as long as it
        for i, fact in enumerate(out):
            if not isinstance(fact, TherapyFact) or fact.duration_days is not None or fact.span is None:
                continue
            for course in out:
                if isinstance(course, TherapyFact) and course.duration_days is not None and course.span is not None \
                        and course.span.end <= fact.span.start \
                        and self._sentence_of(course.span.start) == self._sentence_of(fact.span.start) \
                        and re.fullmatch(r"\s*,?\s*including\s+(?:[^.;,]*?(?:,\s*|\s+and\s+))?",
                                         self.clean[course.span.end:fact.span.start], re.I):
                    out[i] = replace(fact, duration_days=course.duration_days)
                    break
        out.extend(self._unknown_therapies(therapies))
        return out

    def _outcome_in(self, left: int, right: int) -> str | None:
        """The canonical outcome a clause states ("with inadequate response"), else the first the lexicon lists."""
        outcomes = self.lex.phrase_map(self.C, "outcomes")
        for name, phrases in outcomes.items():
            if self.lex.pattern(phrases, f"cue-outcome-{name}").search(self.clean, left, right):
                return name
        return next(iter(outcomes), None)

    def _num_at(self, text: str) -> float | None:
        raw = normalise(text)
        m = re.fullmatch(r"(?P<w>[a-z][a-z\-]*)\s*\(\s*(?P<d>\d+(?:\.\d+)?)\s*\)", raw)
        if m:
            return float(m.group("d"))
        if _NUMBER_TOKEN.fullmatch(raw):
            return float(raw)
        if raw in self.words:
            return self.words[raw]
        if "-" in raw:
            a, _, b = raw.partition("-")
            if a in self.words and b in self.words:
                return self.words[a] + self.words[b]
        return None

    def _number_re(self) -> str:
        return self.tables.number_re

    def _time_re(self) -> str:
        return self.tables.time_re

    def _therapy_duration(self, m: _Mention, left: int, right: int) -> float | None:
        N, T = self._number_re(), self._time_re()
        before = self.clean[left:m.start]
        after = self.clean[m.end:right]
        # "six consecutive months": a word about the course between the number and its unit
        adj = "|".join(map(re.escape, self.lex.phrases(self.C, "duration_adjectives")))
        T = rf"(?:(?:{adj})\s+)?(?P<t>{T})"
        found = re.search(rf"(?<![\w-])(?P<n>{N})[\s-]+{T}\s+(?:of\s+)?(?:[a-z\-]+\s+){{0,2}}$", before, re.I)
        if found is None:
            found = re.search(rf"(?<![\w-])(?P<n>{N})[\s-]+{T}\s+(?:trial|course)\s+of\s+(?:[a-z\-]+\s+){{0,2}}$", before, re.I)
        if found is None:
            found = re.match(rf"^\s+(?:therapy\s+|treatment\s+)?for\s+(?P<n>{N})[\s-]+{T}\b", after, re.I)
        if found is None:
            # "X, four a day with self-adjusted doses, for six weeks" / "X (four a day) for five weeks" /
            # "X with self-adjustment for four months": a short aside between the therapy and its length
            _, s_end = self._sentence_of(m.start)
            rest = self.clean[m.end:s_end]
            found = re.match(rf"^(?:\s*,[^,;.]{{1,60}},|\s*\([^()]{{1,60}}\)|\s+with\s+(?:[a-z\-]+\s+){{0,3}}[a-z\-]+)?"
                             rf"\s+for\s+(?P<n>{N})[\s-]+{T}\b", rest, re.I)
        if found is None:
            # "started X three weeks ago": the course so far
            starts = self.tables.therapy_starts
            if re.search(rf"(?<![\w-])(?:{starts})\s+(?:[a-z\-]+\s+){{0,2}}$", before, re.I):
                found = re.match(rf"^\s+(?P<n>{N})[\s-]+{T}\s+ago\b", after, re.I)
        if found is None:
            return None
        value = self._num_at(found.group("n"))
        unit = self.time_units.get(normalise(found.group("t")))
        if value is None or unit is None:
            return None
        return value * unit[1]

    def _unknown_therapies(self, therapies: list[_Mention]) -> list[Fact]:
        """'N weeks of X' where X is no concept the lexicon knows: a therapy of unknown class."""
        out: list[Fact] = []
        N, T = self._number_re(), self._time_re()
        for m in re.finditer(rf"(?<![\w-])(?P<n>{N})[\s-]+(?P<t>{T})\s+of\s+(?P<x>[a-z][a-z\-]+(?:\s+[a-z][a-z\-]+)?)", self.clean, re.I):
            start, end = m.start("x"), m.end("x")
            if any(t.start < end and start < t.end for t in therapies):
                continue
            if self.lex.find_concepts(m.group("x")) or self.lex.find_quantities(m.group("x")):
                continue
            phrase = normalise(m.group("x"))
            if phrase.split()[0] in ("age", "gestation", "the", "a", "an", "this", "that", "symptoms", "pain"):
                continue
            value = self._num_at(m.group("n"))
            unit = self.time_units.get(normalise(m.group("t")))
            if value is None or unit is None:
                continue
            out.append(TherapyFact(phrase, "present", self.span(start, end), False, ("treated",), (),
                                   value * unit[1]))
        return out

    # --- measures, ages, quantities ----------------------------------------------------------

    def _measure_facts(self) -> list[Fact]:
        out: list[Fact] = []
        N = self._number_re()
        unit_alt = self.tables.unit_alt
        freq_alt = self.tables.freq_alt
        count_words = {**{w: v for w, v in self.words.items()}, "single": 1.0, "a single": 1.0}
        for q in self.lex.find_quantities(self.clean, self.tokens):
            left, right = self._clause_bounds(q.start, stop_words=False)
            qdef = self.lex.quantities[q.name]
            mention = _Mention(q.name, q.start, q.end, "quantity")
            self._polarity(mention)
            if mention.status == "absent":
                out.append(MeasureFact(q.name, "absent", self.span(q.start, q.end)))
                continue
            after = self.clean[q.end:right]
            before = self.clean[left:q.start]
            value = None
            comparator = "=="
            unit = ""
            span_start, span_end = q.start, q.end
            am = re.match(rf"^\s*(?:(?:level|value|result|reading)\s+)?(?:of\s+|is\s+|was\s+|at\s+|=\s*|:\s*)?"
                          rf"(?P<n>\d+(?:\.\d+)?)\s*(?P<u>{unit_alt})?(?![\w])", after, re.I)
            bm = re.search(rf"(?<![\w-])(?P<n>(?:{N})(?:\s*\(\s*\d+(?:\.\d+)?\s*\))?|single|a\s+single)"
                           rf"(?:\s+(?P<more>or\s+more|or\s+greater))?\s*(?P<u>{unit_alt})?"
                           rf"\s+(?:(?:of|daily|self-monitored|[a-z\-]+)\s+){{0,3}}$", before, re.I)
            aside = None
            if qdef.per is not None and not am and not bm:
                # "multiple daily insulin injections, four a day" / "(three to five a day": a rate in an aside
                _, s_end = self._sentence_of(q.start)
                aside = re.match(rf"^\s*[,(]\s*(?P<n>{N})(?:\s+to\s+(?P<hi>{N}))?\s+(?P<f>{freq_alt})(?![\w-])",
                                 self.clean[q.end:s_end], re.I)
            if am:
                value = float(am.group("n"))
                unit = self.units.get(normalise(am.group("u") or ""), "") if am.group("u") else ""
                span_end = q.end + am.end()
            elif aside:
                value = self._num_at(aside.group("n"))
                if aside.group("hi"):
                    comparator = ">="  # a range: at least its low end
                span_end = q.end + aside.end()
                per_aside = Period(1.0, self.freq[normalise(aside.group("f"))])  # type: ignore[arg-type]
                if value is not None and not self._another_value(q, span_start, span_end, True):
                    out.append(MeasureFact(q.name, "unknown" if mention.status == "unknown" else "present",
                                           self.span(span_start, span_end), value, comparator, qdef.unit, per_aside))
                continue
            elif bm:
                raw = normalise(bm.group("n"))
                value = count_words.get(raw, None) if not _NUMBER_TOKEN.fullmatch(raw) else float(raw)
                if value is None:
                    value = self._num_at(raw)
                if bm.group("more"):
                    comparator = ">="
                unit = self.units.get(normalise(bm.group("u") or ""), "") if bm.group("u") else ""
                span_start = left + bm.start()
            if value is None:
                continue
            if self._another_value(q, span_start, span_end, am is not None):
                out.append(MeasureFact(q.name, "unknown", self.span(span_start, span_end), value, comparator,
                                       unit or qdef.unit))
                continue
            unit = unit or qdef.unit
            per = None
            if qdef.per is not None or re.search(rf"(?<![\w-])(?:{freq_alt})(?![\w-])", before + " " + after, re.I):
                fm = re.search(rf"(?<![\w-])(?P<f>{freq_alt})(?![\w-])", after, re.I) or \
                    re.search(rf"(?<![\w-])(?P<f>{freq_alt})(?![\w-])", before, re.I)
                if fm:
                    per = Period(1.0, self.freq[normalise(fm.group("f"))])  # type: ignore[arg-type]
                    if fm.string is after or fm.re.search(after):
                        span_end = max(span_end, q.end + (fm.end() if fm.string is after else 0))
                elif qdef.per is not None:
                    continue  # a count of something without its period is no measure
            status: Status = "unknown" if mention.status == "unknown" else "present"
            out.append(MeasureFact(q.name, status, self.span(span_start, span_end), value, comparator, unit, per))
        return out

    def _another_value(self, q: Match, start: int, end: int, value_after: bool) -> bool:
        """A second value for the same quantity in the sentence ("7.4% three months ago and 8.3% now",
        "four per day last year, now two per day") or a value marked as past: which one is current is
        not read, so the value is unknown."""
        s_start, s_end = self._sentence_of(q.start)
        nxt = [x for x in self.lex.find_quantities(self.clean[q.end:s_end]) if x.name != q.name]
        stop = q.end + nxt[0].start if nxt else s_end
        rest = self.clean[end:stop]
        time = self._time_re()
        if self._named is None:
            self._named = SpanIndex([(c.start, c.end) for c in self.lex.find_concepts(self.clean, self.tokens)])
        named = self._named
        for num in re.finditer(rf"(?<![\w.-])(?P<n>\d+(?:\.\d+)?|{self._number_re()})(?![\w.-])(?!\s*(?:{time})\b)", rest, re.I):
            if re.match(r"\s*\(", rest[num.end():]):
                continue
            if named.holds(end + num.start()):
                continue  # the "2" of "type 2 diabetes" is no second value
            return True
        past = self.lex.pattern(self.lex.phrases(self.C, "past_value"), "cue-past")
        window = self.clean[max(s_start, start - 12):start] + " " + self.clean[end:min(stop, end + 20)]
        return past.search(window) is not None

    def _age_facts(self) -> list[Fact]:
        out: list[Fact] = []
        N = self._number_re()
        onset = self.lex.pattern(self.lex.phrases(self.C, "onset"), "cue-onset")
        onset_spans = []
        # "diagnosed at 43" is an age; "diagnosed at 32 weeks" is not
        not_years = "|".join(re.escape(t) for t, (unit, _) in sorted(self.time_units.items()) if unit != "year")
        age_number = rf"(?:of\s+)?(?P<n>{N})(?![\w-])(?!\s+(?:{not_years})\b)"
        age_after = r"\s+" + age_number
        for m in onset.finditer(self.clean):
            nm = re.match(age_after, self.clean[m.end():], re.I)
            if nm:
                value = self._num_at(nm.group("n"))
                if value is not None:
                    end = m.end() + nm.end()
                    onset_spans.append((m.start(), end))
                    out.append(AgeFact(value, self.span(m.start(), end), "onset"))
        onset_with = self.lex.pattern(self.lex.phrases(self.C, "onset_with"), "cue-onset-with")
        for m in onset_with.finditer(self.clean):
            # "diagnosed with breast cancer at age 41": the condition, then its age, in one clause
            _, right = self._clause_bounds(m.end(), stop_words=False)
            nm = re.match(rf"\s+(?:[\w'-]+\s+){{1,6}}?at\s+(?:the\s+)?(?:age\s+)?{age_number}",
                          self.clean[m.end():right], re.I)
            if nm is None or any(s <= m.start() < e for s, e in onset_spans):
                continue
            value = self._num_at(nm.group("n"))
            if value is not None:
                end = m.end() + nm.end()
                onset_spans.append((m.start(), end))
                out.append(AgeFact(value, self.span(m.start(), end), "onset"))
        for m in re.finditer(rf"(?<![\w-])(?:aged|age|ages)\s+(?P<n>{N})(?![\w-])|(?<!\d)(?P<n2>\d++)[\s-]*(?:year|yr)s?[\s-]*old"
                             rf"|(?<!\d)(?P<n3>\d++)\s+years\s+of\s+age", self.clean, re.I):
            if any(s <= m.start() < e for s, e in onset_spans):
                continue
            value = self._num_at(m.group("n") or m.group("n2") or m.group("n3"))
            if value is not None:
                out.append(AgeFact(value, self.span(m.start(), m.end())))
        age_words = self.data_age_words()
        for tok in self.tokens:
            if tok.text in age_words:
                op, value = age_words[tok.text]
                out.append(AgeFact(float(value), self.span(tok.start, tok.end), "member", op))
        return out

    def _tenure_facts(self) -> list[Fact]:
        """'joined the group scheme ten months ago', 'insured under the contract for three years'."""
        out: list[Fact] = []
        for m in self.tables.tenure_re.finditer(self.clean):
            value = self._num_at(m.group("n") or m.group("n2"))
            unit = self.time_units.get(normalise(m.group("t") or m.group("t2")))
            if value is None or unit is None:
                continue
            mention = _Mention("tenure", m.start(), m.end(), "tenure")
            self._polarity(mention)
            if mention.status != "present":
                continue
            comparator = ">=" if m.group("more") else "=="
            out.append(TenureFact(value * unit[1], self.span(m.start(), m.end()), comparator))
        return out

    def data_age_words(self) -> dict[str, tuple[str, float]]:
        return self.tables.age_words

    def _period_text(self, text: str) -> Period | None:
        text = normalise(text)
        text = re.sub(r"^(?:a|an|the|one|any|same|this|each|every|per)\s+", "", text)
        text = re.sub(r"^(?:same|current)\s+", "", text)
        text = re.sub(r"\s+(?:period|window|interval)$", "", text)
        if text in self.period_names:
            return Period(1.0, self.period_names[text])  # type: ignore[arg-type]
        m = re.fullmatch(rf"(?P<n>{self._number_re()})[\s-]*(?P<t>{self._time_re()})", text, re.I)
        if m:
            value = self._num_at(m.group("n"))
            unit = self.time_units.get(normalise(m.group("t")))
            if value is not None and unit is not None:
                return Period(value, unit[0])  # type: ignore[arg-type]
        unit = self.time_units.get(text)
        if unit is not None:
            return Period(1.0, unit[0])  # type: ignore[arg-type]
        return None

    def _history_facts(self, mentions: list[_Mention]) -> list[Fact]:
        """Prior services: 'prior sleep study five months ago', 'no screening in the past calendar year'."""
        out: list[Fact] = []
        history = self.lex.pattern(self.lex.phrases(self.C, "service_history"), "cue-service-history")
        N, T = self._number_re(), self._time_re()
        for m in mentions:
            if m.domain not in ("service", "generic"):
                continue
            left, right = self._clause_bounds(m.start, stop_at_comma=True, stop_words=False)
            s_start, s_end = self._sentence_of(m.start)
            clause = self.clean[s_start:s_end]
            has_cue = history.search(self.clean, s_start, s_end) is not None
            ago = re.search(rf"(?P<n>{N})\s+(?P<t>{T})\s+ago", clause, re.I)
            window = re.search(r"(?:in|within|during)\s+the\s+(?:past|last|previous|same|current|preceding)\s+(?P<w>[^,.;]+?)(?=$|[,.;]|\s+(?:and|but|with)\s)",
                               clause, re.I) or re.search(r"(?:earlier|already)\s+(?:in\s+)?(?:the\s+)?(?P<w>same\s+calendar\s+year|this\s+calendar\s+year|this\s+year)",
                                                         clause, re.I)
            if not (has_cue or ago or window) or (m.domain == "generic" and not (has_cue or ago or window)):
                continue
            concepts = (m.name,) if m.domain == "service" else ()
            span = self.span(s_start + (len(clause) - len(clause.lstrip())), s_end)
            ago_days = None
            if ago:
                value = self._num_at(ago.group("n"))
                unit = self.time_units.get(normalise(ago.group("t")))
                if value is not None and unit is not None:
                    ago_days = value * unit[1]
            within = self._period_text(window.group("w")) if window else None
            if m.status == "absent":
                out.append(ServiceFact(concepts, span, status="absent", within=within, prior_count=0.0))
            elif m.status == "present" and (ago_days is not None or within is not None or has_cue):
                count = 1.0 if within is not None else None
                out.append(ServiceFact(concepts, span, ago_days=ago_days, within=within, prior_count=count))
        return out

    def _count_facts(self) -> list[ServiceFact]:
        """Stated counts of the service in a counting window: "25 visits used this calendar year" (25 prior),
        "this is the 12th visit this year" (11 prior, the requested one is the 12th)."""
        out: list[ServiceFact] = []
        T = self.tables
        N = self._number_re()
        ordinal = "|".join(sorted(map(re.escape, T.ordinals), key=len, reverse=True))
        item = r"(?P<item>(?:[a-z][a-z\-]*\s+){0,3}?[a-z][a-z\-]*)"
        occasions = "|".join(r"\s+".join(map(re.escape, w.split())) for w in sorted(T.count_occasions, key=len, reverse=True))
        window = (r"(?P<w>(?:this|the\s+same|the\s+current|the)\s+(?:[a-z]+\s+)?year"
                  rf"|(?:this|the\s+same|the\s+current)\s+(?:{occasions or 'year'}))")
        links = rf"(?:(?:{T.count_links})\s+){{0,3}}"
        cardinal = re.compile(rf"(?<![\w-])(?P<n>{N})\s+{item}\s+{links}{window}(?![\w-])", re.I)
        ordinal_re = re.compile(rf"(?<![\w-])(?P<o>\d+(?:st|nd|rd|th)|{ordinal})(?:\s*\(\s*\d+(?:st|nd|rd|th)\s*\))?\s+"
                                rf"{item}\s+{links}{window}(?![\w-])", re.I)
        concepts_found = self.lex.find_concepts(self.clean, self.tokens)
        for pattern, is_ordinal in ((cardinal, False), (ordinal_re, True)):
            for m in pattern.finditer(self.clean):
                first = m.start("o") if is_ordinal else m.start("n")
                if any(c.start <= first < c.end for c in concepts_found):
                    continue  # the "2" of "type 2 diabetes" counts nothing
                concepts = self._counted_service(normalise(m.group("item")))
                if concepts is None:
                    continue
                within = self._count_window(m.group("w"))
                if within is None:
                    continue
                if is_ordinal:
                    before = [normalise(t.text) for t in self._before_words(m.start(), 3)]
                    if any(w in T.ordinal_boundaries for w in before):
                        continue  # "after the tenth visit" is a boundary, not the requested occasion
                    raw = normalise(m.group("o"))
                    value = float(raw[:-2]) if raw[:-2].isdigit() else T.ordinals.get(raw)
                    if value is None or value < 1:
                        continue
                    prior = value - 1  # the requested one is the n-th
                else:
                    found = self._num_at(m.group("n"))
                    if found is None:
                        continue
                    prior = found
                out.append(ServiceFact(concepts, self.span(m.start(), m.end()), within=within, prior_count=prior))
        # "the first hyperbaric session is requested": none before it in the course it opens (its episode)
        first_words = [w for w, v in T.ordinals.items() if v == 1] + ["1st"]
        opening = re.compile(rf"(?<![\w-])(?:the|a|this)\s+(?:{'|'.join(map(re.escape, first_words))})\s+{item}\s+"
                             rf"(?:is|was|being)?\s*(?:requested|planned|scheduled|ordered|proposed)(?![\w-])", re.I)
        for m in opening.finditer(self.clean):
            if any(c.span is not None and c.span.start <= m.start() < c.span.end for c in out):
                continue
            concepts = self._counted_service(normalise(m.group("item")))
            if concepts is not None:
                out.append(ServiceFact(concepts, self.span(m.start(), m.end()), within=Period(1.0, "episode"),
                                       prior_count=0.0))
        return out

    def _counted_service(self, item: str) -> tuple[str, ...] | None:
        """What a counted noun phrase is: () for a generic unit of the requested service ("visits",
        "physical therapy visits"), the service concept it names, or None when it counts something else."""
        words = item.split()
        head = words[-1]
        singular = head[:-1] if head.endswith("s") and not head.endswith("ss") else head
        services = [c.name for c in self.lex.find_concepts(item) if self.lex.concepts[c.name].domain == "service"]
        if head in self.generic or singular in self.generic:
            return tuple(services[-1:])
        if services and self.lex.concept_named(item) is not None:
            return (services[-1],)
        return None

    def _count_window(self, text: str) -> Period | None:
        name = normalise(text)
        occasion = self.tables.count_occasions.get(re.sub(r"^(?:this|the same|the current)\s+", "", name))
        if occasion is not None:
            return Period(1.0, occasion)  # type: ignore[arg-type]
        if name in self.period_names:
            return Period(1.0, self.period_names[name])  # type: ignore[arg-type]
        period = self._period_text(text)
        return period if period is not None and period.unit != "year" else None

    @staticmethod
    def _counted(fact: Fact, counts: list[ServiceFact]) -> bool:
        """A history fact the stated count of the same service already says more precisely."""
        if not isinstance(fact, ServiceFact) or fact.span is None:
            return False
        return any(c.span is not None and fact.span.start <= c.span.start and c.span.end <= fact.span.end
                   and (not c.concepts or not fact.concepts or c.concepts == fact.concepts) for c in counts)

    def _quantity_facts(self) -> list[Fact]:
        out: list[Fact] = []
        N = self._number_re()
        pattern = re.compile(
            rf"(?<![\w-])(?P<n>{N})\s+(?P<item>(?:[a-z][a-z\-]*\s+){{0,3}}?[a-z][a-z\-]*?s?)\s+(?:for|per|in|over|during|within)\s+"
            rf"(?:a|an|one|each|the|every)?\s*(?P<p>(?:{N})[\s-]*(?:{self._time_re()})(?:\s+(?:period|window|interval))?)", re.I)
        concepts = self.lex.find_concepts(self.clean, self.tokens)
        for m in pattern.finditer(self.clean):
            item_words = normalise(m.group("item")).split()
            if not item_words:
                continue
            if any(c.start <= m.start("n") < c.end for c in concepts):
                continue  # the "2" of "type 2 diabetes" counts nothing
            if any(self.lex.concepts[c.name].domain == "condition" for c in self.lex.find_concepts(m.group("item"))):
                continue
            head = item_words[-1]
            if head in self.time_units or self.lex.quantity_named(" ".join(item_words)):
                continue
            period = self._period_text(m.group("p"))
            value = self._num_at(m.group("n"))
            if period is None or value is None:
                continue
            singular = head[:-1] if head.endswith("s") and not head.endswith("ss") else head
            concept = self.lex.concept_named(" ".join(item_words))
            countable = self.generic | self.tables.supplies
            if concept is None and head not in countable and singular not in countable and \
                    not any(v.split()[-1] in (head, singular) for v in self.vocabulary):
                continue  # "two severe episodes in six months" counts events, not a supply of the service
            out.append(QuantityFact(concept or singular, value, period, self.span(m.start(), m.end())))
        return out

    # --- documentation -----------------------------------------------------------------------

    def _documentation_facts(self, mentions: list[_Mention]) -> list[Fact]:
        out: list[Fact] = []
        evidence = self.lex.pattern(self.lex.phrases(self.C, "evidence"), "cue-evidence")
        for cue in evidence.finditer(self.clean):
            before = [m for m in mentions if m.end <= cue.start() and m.domain in ("condition", "free")
                      and self._sentence_of(m.start) == self._sentence_of(cue.start())]
            after = [m for m in mentions if m.start >= cue.end() and m.domain in ("service", "free", "generic")
                     and self._sentence_of(m.start) == self._sentence_of(cue.start())]
            if not before or not after:
                continue
            about, item = before[-1], after[0]
            status: Status = "unknown" if (about.status == "unknown" or item.status == "unknown") else item.status
            out.append(DocumentationFact(item.name, status, self.span(about.start, item.end), about.name))
        forward = self.lex.pattern(self.lex.phrases(self.C, "evidence_forward"), "cue-evidence-forward")
        for cue in forward.finditer(self.clean):
            # "MRI confirms a tear": the test right before the cue, the finding after it, one clause
            left, right = self._clause_bounds(cue.start(), stop_words=False)
            tests = [m for m in mentions if left <= m.start and m.end <= cue.start() and m.domain == "service"
                     and re.fullmatch(r"[\s\w'-]*", self.clean[m.end:cue.start()])]
            found = [m for m in mentions if cue.end() <= m.start and m.end <= right and m.domain in ("condition", "free")]
            if not tests or not found:
                continue
            item, about = tests[-1], found[0]
            status = "unknown" if (about.status == "unknown" or item.status == "unknown") else about.status
            out.append(DocumentationFact(item.name, status, self.span(item.start, about.end), about.name))
        for m in mentions:
            if m.domain == "service" and m.status == "unknown":
                out.append(DocumentationFact(m.name, "unknown", self.span(m.start, m.end)))
        return out

    # --- codes against the narrative ---------------------------------------------------------

    def _reconcile(self, narrative: list[Fact], codes: list[Fact]) -> list[Fact]:
        """The narrative's explicit statement governs a code; a hedge outweighs a bare code."""
        out = list(narrative)
        stated = [f for f in narrative if isinstance(f, ConditionFact)]
        for fact in codes:
            assert isinstance(fact, ConditionFact)
            same = [f for f in stated if self._same_condition(f.concept, fact.concept)]
            code = fact.source.split(":", 1)[1]
            if same:
                if any(f.status == "absent" for f in same) and not any(f.status == "present" for f in same):
                    self.flags.append(Flag("discrepancy", f"diagnosis code {code} states {fact.concept}; the narrative "
                                                          "denies it, and the narrative governs", same[0].span))
                    out.append(replace(fact, status="absent", note="the narrative denies it"))
                elif any(f.status == "unknown" or f.certainty == "suspected" for f in same) and \
                        not any(f.status == "present" and f.certainty != "suspected" for f in same):
                    self.flags.append(Flag("discrepancy", f"diagnosis code {code} states {fact.concept}; the narrative "
                                                          "hedges it, so it is unknown", same[0].span))
                    out.append(replace(fact, status="unknown", note="the narrative hedges it"))
                else:
                    out.append(fact)
                continue
            group = self.lex.exclusive_group(fact.concept)
            rivals = [f for f in stated if f.status == "present" and group is not None
                      and self.lex.exclusive_group(f.concept) == group and f.concept != fact.concept]
            if rivals:
                self.flags.append(Flag("discrepancy", f"diagnosis code {code} states {fact.concept}; the narrative states "
                                                      f"{rivals[0].concept}; the narrative governs and {fact.concept} is "
                                                      "unknown", rivals[0].span))
                out.append(replace(fact, status="unknown", note=f"the narrative states {rivals[0].concept}"))
                continue
            out.append(fact)
        return out

    def _same_condition(self, a: str, b: str) -> bool:
        return a == b or self.lex.is_a(a, b) or self.lex.is_a(b, a)


def _fact_order(fact: Fact) -> tuple[int, str, str]:
    start = fact.span.start if fact.span is not None else -1
    return (start, type(fact).__name__, repr(fact))
