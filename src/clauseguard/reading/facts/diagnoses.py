"""Conditions the narrative states: certainty, severity in any position ("severe asthma", "asthma - severe",
"mod-severe", "Severity: moderate" in the next sentence), qualifiers, history, how long, when.

It owns turning a condition mention and its assertion into a ConditionFact; codes are codes.py's, and
a statement about a relative is relatives.py's. It never lists a severity or a qualifier in code.
"""

from __future__ import annotations

import re

from clauseguard.corpus.criteria import Span
from clauseguard.reading.facts.mentions import Mention
from clauseguard.reading.facts.note import C, Note
from clauseguard.reading.facts.sheet import NARRATIVE, ConditionFact, FactCertainty, GapFact
from clauseguard.reading.facts.values import dated_before, duration_in, notation
from clauseguard.reading.lexicon import normalise


def condition_facts(note: Note, mentions: list[Mention]) -> tuple[list[ConditionFact], list[GapFact]]:
    out: list[ConditionFact] = []
    gaps: list[GapFact] = []
    high = _find(note, "high_probability")
    confirmed = _find(note, "confirmed")
    history = _find(note, "history")
    documented = _find(note, "documented")
    conditions = [m for m in mentions if m.kind in ("condition", "free")]
    for m in conditions:
        if m.assertion == "family":
            continue
        if m.assertion == "not_documented":
            gaps.append(GapFact("condition", m.name, note.span(m.start, m.end)))
            continue
        mod_start, words = _modifiers(note, m)
        severity = _severity(note, words) or _severity_after(note, m, conditions)
        qualifiers = tuple(w for w in words if w in note.tables.qualifier_words)
        left, right = note.clause_bounds(m.start, stop_words=False)
        gap = r"[\s,]*"
        certainty: FactCertainty = "suspected" if m.certainty == "suspected" else "stated"
        if certainty == "stated":
            if any(re.fullmatch(gap, note.clean[e:mod_start]) for s, e in high if e <= mod_start):
                certainty = "high_probability"
            elif any(mod_start <= s and e <= m.start for s, e in confirmed) or \
                    any(re.fullmatch(gap, note.clean[e:mod_start]) for s, e in confirmed if e <= mod_start):
                certainty = "confirmed"
        is_history = m.assertion == "historical" or any(
            re.fullmatch(r"[\s\w-]*", note.clean[e:mod_start]) and left <= s for s, e in history if e <= mod_start)
        is_documented = any(left <= s < right for s, _e in documented)
        status = m.status
        if m.assertion == "planned":
            status = "unknown"  # expected or hoped for, not yet so
        lasting = _lasting(note, m) if status == "present" else None
        out.append(ConditionFact(
            m.name, status, NARRATIVE, note.span(m.start, m.end), certainty, severity, qualifiers,  # type: ignore[arg-type]
            is_documented, is_history, within_days=_window_after(note, m.end), ago_days=dated_before(note, m.end, note.sentence_of(m.start)[1]),
            assertion=m.assertion,  # type: ignore[arg-type]
            duration_days=lasting[0] if lasting else None, duration_span=lasting[1] if lasting else None,
            resolved=m.assertion == "historical",
        ))
    return out, gaps


def _find(note: Note, key: str) -> list[tuple[int, int]]:
    pattern = note.lexicon.pattern(note.lexicon.phrases(C, key), f"cue-{key}")
    return [(m.start(), m.end()) for m in pattern.finditer(note.clean)]


def _modifiers(note: Note, mention: Mention) -> tuple[int, list[str]]:
    """The words that modify a mention, read back from it while they are modifiers
    ("confirmed moderate to severe active ..."): where they start, and the words."""
    left, _ = note.clause_bounds(mention.start, stop_words=False)
    toks = [t for t in note.tokens if left <= t.start and t.end <= mention.start]
    levels = note.tables.severity_levels
    aliases = notation(note).severity_aliases
    modifier_words = set(levels) | note.tables.qualifier_words | set(aliases) | {
        "to", "documented", "confirmed", "established", "known", "and", "or"}
    start = mention.start
    words: list[str] = []
    for tok in reversed(toks):
        word = tok.text[:-2] if tok.text.endswith("ly") and tok.text[:-2] in levels else tok.text
        if word not in modifier_words:
            break
        words.insert(0, tok.text)
        start = tok.start
    while words and words[0] in ("to", "and", "or"):
        words.pop(0)
    return start, words


def _level_words(note: Note, words: list[str]) -> list[str]:
    """Severity words with their shorthand expanded ("mod-severe" -> moderate to severe)."""
    aliases = notation(note).severity_aliases
    out: list[str] = []
    for w in words:
        out.extend(aliases.get(w, w).split())
    return out


def _severity(note: Note, words: list[str]) -> tuple[str, ...]:
    levels = note.tables.severity_levels
    base = [w[:-2] if w.endswith("ly") and w[:-2] in levels else w for w in _level_words(note, words)]
    found = [i for i, w in enumerate(base) if w in levels]
    if not found:
        return ()
    last = found[-1]
    if last >= 2 and base[last - 1] == "to" and base[last - 2] in levels:
        a, b = levels.index(base[last - 2]), levels.index(base[last])
        return tuple(levels[min(a, b):max(a, b) + 1])
    return (base[last],)


def _severity_after(note: Note, m: Mention, conditions: list[Mention]) -> tuple[str, ...]:
    """A severity written after the diagnosis: "asthma - severe", "RA, mod-severe,", "RA of moderate
    activity", "with moderate to severe disease activity", or a "Severity:" label opening the next
    sentence after a sentence that names only this condition."""
    nt = notation(note)
    levels = note.tables.severity_levels
    words_alt = "|".join(sorted({*map(re.escape, levels), *map(re.escape, nt.severity_aliases)}, key=len, reverse=True))
    level = rf"(?P<s>(?:{words_alt})(?:\s+to\s+(?:{words_alt}))?)(?![\w-])"
    nouns = "|".join(sorted(map(re.escape, nt.severity_nouns), key=len, reverse=True))
    _, s_end = note.sentence_of(m.start)
    rest = note.clean[m.end:s_end]
    hit = re.match(rf"\s*(?:[-–:]|,)\s*{level}", rest, re.I) or re.match(
        rf"[^.;]{{0,60}}?\b(?:with|of)\s+{level}\s+(?:{nouns})\b", rest, re.I)
    if hit is not None and re.match(r"[^.;]{0,60}?\b(?:with|of)\s", rest, re.I) and hit.re.pattern.startswith("[^"):
        between = rest[:hit.start("s")]
        if any(m.end <= c.start < m.end + len(between) for c in conditions if c is not m):
            hit = None  # the grade belongs to a condition named in between
    if hit is None:
        hit = _severity_label_after(note, m, conditions, level)
        if hit is None:
            return ()
    return _severity(note, normalise(hit.group("s")).split())


def _severity_label_after(note: Note, m: Mention, conditions: list[Mention], level: str) -> re.Match[str] | None:
    """ "Rheumatoid arthritis (M06.09).\nSeverity: severe.": the label opens the next sentence, and the
    diagnosis's own sentence names no other affirmed condition."""
    labels = "|".join(map(re.escape, notation(note).severity_labels))
    own = note.sentence_of(m.start)
    following = [s for s in note.sentences if s[0] >= own[1]]
    if not following:
        return None
    start, end = following[0]
    found = re.match(rf"(?:{labels})\s*[:=-]\s*{level}", note.clean[start:end], re.I)
    if found is None:
        return None
    others = [c for c in conditions if c is not m and c.assertion == "affirmed"
              and (note.sentence_of(c.start) == own or start <= c.start < end)]
    return None if others else found


def _lasting(note: Note, m: Mention) -> tuple[float, Span] | None:
    """How long a condition has lasted, written right after it ("LBP x 8 weeks", "since 03/01/2024", "onset
    2 weeks ago")."""
    _, right = note.clause_bounds(m.end, stop_words=False)
    found = duration_in(note, m.end, min(right, m.end + 60), onset=True)
    if found is None:
        # "Headache, onset 2 weeks ago", "LBP - x 8 weeks": a length set off right after the condition
        _, s_end = note.sentence_of(m.start)
        found = duration_in(note, m.end, min(s_end, m.end + 60), onset=True)
        if found is None or not re.fullmatch(r"\s*[,–-]\s*", note.clean[m.end:found[1]]):
            return None
    days, start, end, _fewest = found
    between = note.clean[m.end:start]
    return (days, note.span(start, end)) if len(between.split()) <= 6 and not re.search(r"[;(]", between) else None


def _window_after(note: Note, pos: int) -> float | None:
    """'... within the next four months' right after a mention: the window it is due in, in days."""
    m = re.match(rf"\s*(?:within|in)\s+(?:the\s+next\s+)?(?P<n>{note.number_re})[\s-]+(?P<t>{note.time_re})(?![\w-])",
                 note.clean[pos:], re.I)
    return note.days_of(m.group("n"), m.group("t")) if m else None
