"""Ages in a narrative: the member's ("67 yo", "67F", "Age: 67", "over age 65") and the age at onset of a
condition ("dx age 11", "diagnosed before age 50", "onset at age <40"), stated or derived from how long a
new condition has lasted.

It owns reading an age and the comparison written with it; the notations are data (data/facts/values.yaml
and the lexicon's cues). It never guesses an age: a bound is kept as a bound, and a derived onset is only
ever "at or after" the member's age less one year.
"""

from __future__ import annotations

import re
from typing import Any

from clauseguard.reading.facts.note import C, Note
from clauseguard.reading.facts.sheet import AgeFact
from clauseguard.reading.facts.values import _alt
from clauseguard.reading.lexicon import normalise


class AgeNotation:
    """The age notations of one rule set as compiled patterns (built once per rules instance)."""

    def __init__(self, note: Note) -> None:
        r, N = note.rules, note.tables.number_re
        self.symbols = {str(k): str(v) for k, v in r.values("comparator_symbols").items()}
        op = rf"(?:(?P<op>{_alt(self.symbols)})\s*)?"
        suffixes = _alt(r.values("age_suffixes"))
        labels = _alt(r.values("age_labels"))
        sexes = "|".join(map(re.escape, r.values("age_sex_letters")))
        self.age_re = re.compile(
            rf"(?<![\w./-])(?:(?P<a>\d{{1,3}})\s*-?\s*(?:{suffixes})(?![\w])"
            rf"|(?P<b>\d{{1,3}})(?:{sexes})(?![\w])"
            rf"|(?:{labels})\s*(?:[:=-]\s*|is\s+|of\s+)?{op}(?P<c>{N})(?:\s*(?:years?|yrs?|y))?(?![\w/-])(?!\.\d)"
            r"(?!\s*(?:weeks|wks|months|mos|days)\b))",
            re.I)
        self.onset_re = re.compile(rf"(?<![\w])(?:{_alt(r.values('onset_labels'))})\s*[:=]?\s*{op}(?P<n>{N})(?![\w/-])"
                                   r"(?!\.\d)(?!\s*(?:weeks|wks|wk|months|mos|days|w)\b)", re.I)
        self.onset_events = tuple(normalise(w) for w in r.values("onset_events"))
        self.comparators = {normalise(k): str(v) for k, v in r.values("onset_comparators").items()}
        # "before age 50", "prior to the age of 40": the comparison right before an age's label
        self.before_re = re.compile(rf"(?<![\w])(?P<w>{_alt(self.comparators)})\s+(?:the\s+)?$", re.I)
        self.trailing = {normalise(k): str(v) for k, v in r.values("age_comparators_after").items()}
        self.after_re = re.compile(rf"\s*(?:years?\s+(?:of\s+age\s+)?|yrs?\s+)?(?P<w>{_alt(self.trailing)})(?![\w])", re.I)
        self.new_onset = tuple(normalise(w) for w in r.values("new_onset_words"))


def age_notation(note: Note) -> AgeNotation:
    return note.rules_derived("facts.ages", AgeNotation)


def _comparison(nt: AgeNotation, text: str, start: int, end: int, m: re.Match[str], label: bool) -> str | None:
    """The comparison an age is written with: a symbol ("age <50"), a word before its label ("before age
    50", only for a labelled age), or words after it ("45 or younger"). None: exact; "" two that disagree."""
    found: set[str] = set()
    if m.groupdict().get("op"):
        found.add(nt.symbols[m.group("op")])
    if label:
        before = nt.before_re.search(text, max(0, start - 30), start)
        if before is not None:
            found.add(nt.comparators[normalise(before.group("w"))])
    after = nt.after_re.match(text, end)
    if after is not None:
        found.add(nt.trailing[normalise(after.group("w"))])
    if len(found) > 1:
        return ""
    return found.pop() if found else None


def _after_event(nt: AgeNotation, note: Note, pos: int) -> bool:
    """An event the age dates ("developed", "diagnosed", "onset") stands earlier in the same sentence."""
    s_start, _ = note.sentence_of(pos)
    before = normalise(note.clean[s_start:pos])
    return any(re.search(rf"(?<![\w]){re.escape(e)}(?![\w])", before) for e in nt.onset_events)


def age_facts(note: Note, onset_spans: list[tuple[int, int]]) -> list[AgeFact]:
    """The member's age ("67 yo", "67F", "Age: 67", "aged 81", "a 66-year-old", "over age 65") and onset
    ages ("dx age 11", "Age at diagnosis: 12", "since the age of nine", "diagnosed before age 50")."""
    nt = age_notation(note)
    text = note.clean
    out = _lexicon_onsets(note, onset_spans)
    for m in nt.onset_re.finditer(text):
        if any(s <= m.start() < e for s, e in onset_spans):
            continue
        label = normalise(text[m.start():m.start("n")])
        # "at the age of 58" dates an onset only after an event ("developed headaches ... at the age of 58")
        if label.startswith(("at ", "from ")) and not _after_event(nt, note, m.start()):
            continue
        value = note.num_at(m.group("n"))
        comparator = _comparison(nt, text, m.start(), m.end(), m, label=False)
        if value is not None and 0 < value < 120 and comparator != "":
            onset_spans.append((m.start(), m.end()))
            out.append(AgeFact(value, note.span(m.start(), m.end()), "onset", comparator or "=="))
    for m in nt.age_re.finditer(text):
        if any(s <= m.start() < e or m.start() <= s < m.end() for s, e in onset_spans):
            continue
        raw = m.group("a") or m.group("b") or m.group("c")
        value = note.num_at(raw) if raw else None
        if value is None or not (0 < value < 120):
            continue
        if m.group("b") and not _age_letter_context(note, m.start(), m.end()):
            continue
        comparator = _comparison(nt, text, m.start(), m.end(), m, label=bool(m.group("c")))
        if comparator == "":
            continue  # "under age 65 or older": no reading of it is safe
        if comparator is not None and _after_event(nt, note, m.start()):
            # "breast cancer diagnosed before age 50": a bound on the age at onset, never the member's age
            out.append(AgeFact(value, note.span(m.start(), m.end()), "onset", comparator))
            continue
        out.append(AgeFact(value, note.span(m.start(), m.end()), "member", comparator or "=="))
    return out


def _lexicon_onsets(note: Note, onset_spans: list[tuple[int, int]]) -> list[AgeFact]:
    """Onsets by the lexicon's cue phrases ("onset at age 61", "diagnosed with breast cancer at age 41")."""
    lex, text = note.lexicon, note.clean
    nt = age_notation(note)
    out: list[AgeFact] = []
    not_years = "|".join(re.escape(t) for t, (unit, _) in sorted(note.tables.time_units.items()) if unit != "year")
    age_number = rf"(?:of\s+)?(?:(?P<op>{_alt(nt.symbols)})\s*)?(?P<n>{note.number_re})(?![\w-])(?!\s+(?:{not_years})\b)"
    onset = lex.pattern(lex.phrases(C, "onset"), "cue-onset")
    for m in onset.finditer(text):
        nm = re.match(r"\s+" + age_number, text[m.end():], re.I)
        value = note.num_at(nm.group("n")) if nm else None
        if nm and value is not None:
            end = m.end() + nm.end()
            words = normalise(m.group()).split()
            stated = next((c for w, c in nt.comparators.items() if w in words), None)  # "onset after age 50"
            written = _comparison(nt, text, m.end(), end, nm, label=False)
            if written == "" or (stated and written and stated != written):
                continue
            onset_spans.append((m.start(), end))
            out.append(AgeFact(value, note.span(m.start(), end), "onset", stated or written or "=="))
    onset_with = lex.pattern(lex.phrases(C, "onset_with"), "cue-onset-with")
    preps = _alt(["at", *nt.comparators])
    for m in onset_with.finditer(text):
        # "diagnosed with breast cancer at age 41", "... before age 50": the condition, then its age, in one clause
        _, right = note.clause_bounds(m.end(), stop_words=False)
        nm = re.match(rf"\s+(?:[\w'-]+\s+){{1,6}}?(?P<p>{preps})\s+(?:the\s+)?(?:age\s+)?{age_number}",
                      text[m.end():right], re.I)
        if nm is None or any(s <= m.start() < e for s, e in onset_spans):
            continue
        value = note.num_at(nm.group("n"))
        prep = nt.comparators.get(normalise(nm.group("p")))
        end = m.end() + nm.end()
        written = _comparison(nt, text, end, end, nm, label=False)
        if value is None or written == "" or (prep and written and prep != written):
            continue
        onset_spans.append((m.start(), end))
        out.append(AgeFact(value, note.span(m.start(), end), "onset", prep or written or "=="))
    for tok in note.tokens:
        if tok.text in note.tables.age_words:
            op, value = note.tables.age_words[tok.text]
            out.append(AgeFact(float(value), note.span(tok.start, tok.end), "member", op))
    return out


def onset_from_age(note: Note, ages: list[AgeFact], lasting: list[tuple[Any, str]]) -> list[AgeFact]:
    """A new condition that has lasted a stated time began at the member's age less that time ("58 yo,
    new daily headaches x 3 wks", "developed headaches for the first time three weeks ago": onset at 57 or
    later): derived, never guessed, only from an exact age and a length (or a time since) of at most a year."""
    nt = age_notation(note)
    exact = [a for a in ages if a.of == "member" and a.comparator == "=="]
    if len({a.value for a in exact}) != 1:
        return []
    age = exact[0].value
    out: list[AgeFact] = []
    for fact, concept in lasting:
        began = fact.duration_days if fact.duration_days is not None else fact.ago_days[1] if fact.ago_days else None
        if began is None or began > 365.25 or fact.span is None:
            continue
        left, right = note.clause_bounds(fact.span.start, stop_words=False)
        # the condition's clause ("developed headaches for the first time") and its name ("new headache" is
        # the lexicon's new-onset headache)
        stretch = normalise(note.clean[left:max(right, fact.span.end)]) + " | " + normalise(concept)
        if any(re.search(rf"(?<![\w-]){re.escape(w)}(?![\w-])", stretch) for w in nt.new_onset):
            span = fact.duration_span or fact.span
            out.append(AgeFact(float(age - 1), span, "onset", ">="))
    return out


def _age_letter_context(note: Note, start: int, end: int) -> bool:
    """"67F" is an age only where a note opens a member's description: at a sentence's start (or after a
    heading's colon) and followed by a space or comma, never inside a code or a measurement."""
    s_start, _ = note.sentence_of(start)
    before = note.clean[s_start:start]
    return bool(re.fullmatch(r"\s*(?:[A-Za-z/ ]{1,20}:\s*)?(?:(?:a|an|this|the)\s+)?", before)) and \
        bool(re.match(r"[\s,;.)]|$", note.clean[end:end + 1]))
