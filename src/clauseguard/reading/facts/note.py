"""One narrative as the fact readers see it: untrusted text blanked, sentences, clauses, words, numbers.

It owns the per-request text state every fact module shares (offsets always into the narrative as
given) and the number and time look-ups built once per lexicon. It never decides what a fact is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date
from functools import lru_cache
from typing import Any, Final, Literal

from clauseguard import text as toolkit
from clauseguard.corpus.criteria import Period, Span
from clauseguard.reading.facts.rules import Rules
from clauseguard.reading.lexicon import Lexicon, Token, normalise, tokenize

FlagKind = Literal["instruction", "reported_speech", "discrepancy", "service_discrepancy", "unknown_code", "input"]
NUMBER_TOKEN: Final = re.compile(r"\d+(?:\.\d+)?")
C: Final = "cues.yaml"


@dataclass(frozen=True)
class Flag:
    """Something the reader noticed and did not turn into a fact: instructions, reported speech, a
    disagreement between codes, structured fields and narrative, a code the reader cannot place."""

    kind: FlagKind
    message: str
    span: Span | None = None


class Tables:
    """What the readers need from one lexicon, with its regex pieces: built once per lexicon instance
    (kept on it by `Lexicon.derived`), never per request."""

    def __init__(self, lexicon: Lexicon) -> None:
        self.words = lexicon.number_words()
        self.article_numbers = lexicon.article_numbers()
        self.time_units = lexicon.time_units()
        self.units = lexicon.units()
        self.freq = lexicon.frequency_words()
        self.times = lexicon.times_words()
        self.period_names = lexicon.period_names()
        self.severity_levels = list(lexicon.phrases(C, "severity_levels"))
        self.qualifier_words = frozenset(lexicon.phrases(C, "qualifiers"))
        self.generic = frozenset(lexicon.phrases("phrasing.yaml", "generic_services"))
        self.supplies = frozenset(lexicon.phrases("phrasing.yaml", "countable_supplies"))
        number_words = sorted((w for w in self.words if w.replace(" ", "").isalpha() and w not in self.article_numbers),
                              key=len, reverse=True)
        alt = "|".join(r"\s+".join(map(re.escape, w.split())) for w in number_words)
        self.number_re = rf"(?:\d+(?:\.\d+)?|(?:{alt})(?:-(?:{alt}))?)"
        self.time_re = "|".join(sorted((re.escape(t) for t in self.time_units), key=len, reverse=True))
        self.unit_alt = "|".join(sorted((r"\s+".join(map(re.escape, u.split())) for u in self.units), key=len, reverse=True))
        self.freq_alt = "|".join(sorted((r"\s+".join(map(re.escape, f.split())) for f in self.freq), key=len, reverse=True))
        self.ordinals = {normalise(str(k)): float(v) for k, v in lexicon.data["numbers.yaml"].get("ordinals", {}).items()}
        self.count_occasions = {normalise(str(w)): str(unit) for unit, forms in
                                lexicon.data["measures.yaml"].get("count_occasions", {}).items() for w in forms}
        self.ago_words = {normalise(str(k)): (float(v[0]), float(v[1]))
                          for k, v in lexicon.data["measures.yaml"].get("ago_words", {}).items()}
        self.age_words = {normalise(k): (str(v[0]), float(v[1])) for k, v in lexicon.data[C].get("age_words", {}).items()}


@lru_cache(maxsize=4096)
def _parsed_number(text: str) -> float | None:
    """Number words beyond the lexicon's table ("three hundred and forty two"), by number-parser."""
    from number_parser import parse_number

    found = parse_number(text)
    return float(found) if isinstance(found, int | float) else None


@dataclass
class Note:
    """The narrative of one request and everything read from its text, shared by the fact readers."""

    text: str
    lexicon: Lexicon
    rules: Rules
    as_of: date | None = None
    flags: list[Flag] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.tables: Tables = self.lexicon.derived("facts.note.tables", Tables)
        self.clean = self._mask_untrusted()
        self.sentences = self._sentences(self.clean)
        self.tokens: list[Token] = tokenize(self.clean)
        self.doc: Any = None  # the spaCy doc (assertion.py)
        self.sections: list[tuple[int, int, str]] = []  # (start, end, category) of each section body

    def span(self, start: int, end: int) -> Span:
        return Span(start, end, self.text[start:end])

    def rules_derived(self, name: str, build: Any) -> Any:
        """`build(self)` for what depends only on this lexicon and these rules, built once and kept."""
        return self.lexicon.derived(f"{name}:{self.rules.fingerprint}", lambda _lex: build(self))

    # --- untrusted text ---------------------------------------------------------------------------

    def _mask_untrusted(self) -> str:
        """Blank instruction-like text and reported speech (same length, so spans stay valid)."""
        text, lex = self.text, self.lexicon
        chars = list(text)
        sentences = self._sentences(text)
        for kind, key in (("instruction", "instructions"), ("reported_speech", "reported_speech")):
            pattern = lex.pattern(lex.phrases(C, key), f"cue-{key}")
            for m in pattern.finditer(text):
                s_start, s_end = next(((a, b) for a, b in sentences if a <= m.start() < b), (m.start(), len(text)))
                start = m.start()
                if kind == "instruction" and not lex.find_concepts(text[s_start:start]):
                    start = s_start
                for i in range(start, s_end):
                    chars[i] = " "
                message = ("instruction-like text in the narrative was ignored" if kind == "instruction"
                           else "reported speech (what a source says) was not read as a fact about the member")
                self.flags.append(Flag(kind, message, self.span(start, s_end)))  # type: ignore[arg-type]
        return "".join(chars)

    def _sentences(self, text: str) -> list[tuple[int, int]]:
        """The toolkit's sentences, line by line (a note's lines are its units), a form's answer words
        ending a sentence ("... unawareness: no. Insulin: never.")."""
        finals = self.rules.section("context.yaml").get("sentence_final_words", ())
        answer = re.compile(rf"(?<![\w-])(?:{'|'.join(map(re.escape, finals))})\.(?=\s+\S)", re.I) if finals else None
        out: list[tuple[int, int]] = []
        offset = 0
        for line in text.split("\n"):
            for s in toolkit.sentences(line):
                start, end = offset + s.start, offset + s.end
                cuts = [start + m.end() for m in answer.finditer(s.text)] if answer else []
                for cut in [*cuts, end]:
                    piece = text[start:cut]
                    if piece.strip():
                        lead = len(piece) - len(piece.lstrip())
                        out.append((start + lead, start + len(piece.rstrip())))
                    start = cut
            offset += len(line) + 1
        # a sentence of punctuation alone ("? Hypoglycemia unawareness." split at its "?") opens the next one;
        # a one-word answer ("Trained on device? Unknown.") closes its question's
        answers = {normalise(str(a)) for a in self.rules.section("context.yaml").get("question_answers", ())}
        merged: list[tuple[int, int]] = []
        for start, end in out:
            if merged and not any(c.isalnum() for c in text[merged[-1][0]:merged[-1][1]]):
                merged[-1] = (merged[-1][0], end)
            elif merged and text[merged[-1][1] - 1] == "?" and normalise(text[start:end].rstrip(".!")) in answers \
                    and "\n" not in text[merged[-1][1]:start]:
                merged[-1] = (merged[-1][0], end)
            else:
                merged.append((start, end))
        return merged

    def sentence_of(self, pos: int) -> tuple[int, int]:
        for start, end in self.sentences:
            if start <= pos < end or (pos == end and start < end):
                return start, end
        return pos, pos

    def clause_bounds(self, pos: int, stop_at_comma: bool = True, stop_words: bool = True) -> tuple[int, int]:
        """The stretch of the sentence around `pos` between clause punctuation (and scope breaks)."""
        s_start, s_end = self.sentence_of(pos)
        marks = r"[;,]" if stop_at_comma else r"[;]"
        left = s_start
        for m in re.finditer(marks, self.clean[s_start:pos]):
            left = s_start + m.end()
        right = s_end
        found = re.search(marks, self.clean[pos:s_end])
        if found:
            right = pos + found.start()
        if stop_words:
            breaks = self.lexicon.pattern(self.lexicon.phrases(C, "scope_breaks"), "cue-breaks")
            for b in breaks.finditer(self.clean, left, pos):
                left = b.end()
            b2 = breaks.search(self.clean, pos, right)
            if b2:
                right = b2.start()
        return left, right

    def before_words(self, pos: int, limit: int = 8) -> list[Token]:
        """Tokens right before `pos` in the same clause, nearest last."""
        left, _ = self.clause_bounds(pos, stop_words=False)
        return [t for t in self.tokens if left <= t.start and t.end <= pos][-limit:]

    def section_at(self, pos: int) -> str | None:
        return next((cat for start, end, cat in self.sections if start <= pos < end), None)

    # --- numbers and time ---------------------------------------------------------------------------

    @property
    def number_re(self) -> str:
        return self.tables.number_re

    @property
    def time_re(self) -> str:
        return self.tables.time_re

    def num_at(self, text: str) -> float | None:
        """A number written as digits, a word, "four (4)", "twenty-four" or longer words."""
        raw = normalise(text)
        m = re.fullmatch(r"(?P<w>[a-z][a-z\-]*)\s*\(\s*(?P<d>\d+(?:\.\d+)?)\s*\)", raw)
        if m:
            return float(m.group("d"))
        if NUMBER_TOKEN.fullmatch(raw):
            return float(raw)
        words = self.tables.words
        if raw in words:
            return words[raw]
        if "-" in raw:
            a, _, b = raw.partition("-")
            if a in words and b in words:
                return words[a] + words[b]
        if raw and all(w.isalpha() for w in re.split(r"[\s-]+", raw)) and " " in raw:
            return _parsed_number(raw)
        return None

    def days_of(self, value_text: str, unit_text: str) -> float | None:
        value = self.num_at(value_text)
        unit = self.tables.time_units.get(normalise(unit_text))
        return value * unit[1] if value is not None and unit is not None else None

    def period_text(self, text: str) -> Period | None:
        text = normalise(text)
        text = re.sub(r"^(?:a|an|the|one|any|same|this|each|every|per)\s+", "", text)
        text = re.sub(r"^(?:same|current)\s+", "", text)
        text = re.sub(r"\s+(?:period|window|interval)$", "", text)
        names = self.tables.period_names
        if text in names:
            return Period(1.0, names[text])  # type: ignore[arg-type]
        m = re.fullmatch(rf"(?P<n>{self.number_re})[\s-]*(?P<t>{self.time_re})", text, re.I)
        if m:
            value = self.num_at(m.group("n"))
            unit = self.tables.time_units.get(normalise(m.group("t")))
            if value is not None and unit is not None:
                return Period(value, unit[0])  # type: ignore[arg-type]
        unit = self.tables.time_units.get(text)
        if unit is not None:
            return Period(1.0, unit[0])  # type: ignore[arg-type]
        return None
