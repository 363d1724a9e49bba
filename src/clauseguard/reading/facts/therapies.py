"""Therapy history: each drug or therapy with its status (treated, failed, intolerant, contraindicated,
never tried, planned), how long, dose and frequency, and how the course stands (current, completed,
stopped); class membership is the lexicon's (a drug the dictionary names but the lexicon does not
place has an unknown class).

It owns tying status words to the therapy they speak of: within its clause, never across "but",
"however" or a semicolon. It never names a drug or a status word in code.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Final

from clauseguard.reading.facts.mentions import Mention
from clauseguard.reading.facts.note import C, Note
from clauseguard.reading.facts.sheet import GapFact, TherapyFact
from clauseguard.reading.facts.values import dose_after, duration_in, notation, rate_in
from clauseguard.reading.lexicon import normalise

_STATUSES: Final = ("failed", "intolerant", "contraindicated")


def therapy_facts(note: Note, mentions: list[Mention]) -> tuple[list[TherapyFact], list[GapFact]]:
    lex = note.lexicon
    out: list[TherapyFact] = []
    gaps: list[GapFact] = []
    status_cues = lex.phrase_map(C, "treatment_status")
    patterns = {k: lex.pattern(v, f"cue-status-{k}") for k, v in status_cues.items() if k != "treated"}
    therapies = [m for m in mentions if m.kind == "therapy" and m.assertion not in ("family", "not_documented")]
    for m in mentions:
        if m.kind == "therapy" and m.assertion == "not_documented":
            gaps.append(GapFact("therapy", m.name, note.span(m.start, m.end)))
    # a status word speaks of the nearest therapy in its clause and of those listed with it ("PT and NSAIDs
    # have not given relief", "failure of MTX and SSZ")
    reached: dict[int, list[tuple[str, bool, int, int]]] = {}
    hedged: set[int] = set()  # therapies a status word speaks of under a query mark ("?intolerant of steroids")
    for status in _STATUSES:
        for cue in patterns[status].finditer(note.clean):
            left, right = note.clause_bounds(cue.start(), stop_words=True)
            near = _nearest(therapies, cue.start(), left, right)
            if near is None:
                continue
            negated = _negated_before(note, cue.start(), left)
            # a status in brackets after one item is that item's own ("metformin (GI upset), sitagliptin
            # (inadequate response)")
            aside = note.clean.rfind("(", left, cue.start()) > note.clean.rfind(")", left, cue.start())
            for t in [near] if aside else listed_with(note, therapies, near, backward=near.end <= cue.start()):
                reached.setdefault(t.start, []).append((status, negated, left, right))
                if note.clean[max(0, cue.start() - 1):cue.start()] == "?":
                    hedged.add(t.start)  # a query mark on the status word, as on a finding ("?papilledema")
    for m in therapies:
        left, right = note.clause_bounds(m.start, stop_words=True)
        statuses = ["treated"]
        denied: list[str] = []
        said = left, right  # where the failure was told: the therapy's own clause or its list's
        for status, negated, cue_left, cue_right in reached.get(m.start, ()):
            (denied if negated else statuses).append(status)
            if status == "failed" and not negated:
                said = cue_left, cue_right
        if "contraindicated" in statuses:
            statuses = [s for s in statuses if s != "treated"]
        nxt = next((t.start for t in therapies if t.start > m.start and t.start < right), right)
        length = _therapy_duration(note, m, left, right)
        duration, fewest = (length if isinstance(length, tuple) else (length, None))
        outcome = _outcome_in(note, *said) if "failed" in statuses else None
        fact = _fact(note, m, statuses, denied, duration, outcome, nxt)
        if outcome is not None and said != (left, right):
            fact = replace(fact, response=_response_in(note, *said))
        if m.start in hedged:
            fact = replace(fact, status="unknown", assertion="possible")
        out.append(replace(fact, duration_min_days=fewest) if fewest is not None else fact)
    # status words with no therapy in their clause speak of the last therapy named before them in the
    # same sentence, unless a break ("but", "however", ";") lies between
    for status in _STATUSES:
        for cue in patterns[status].finditer(note.clean):
            left, right = note.clause_bounds(cue.start(), stop_words=True)
            if any(left <= t.start < right for t in therapies):
                continue
            s_start, _ = note.sentence_of(cue.start())
            earlier = [t for t in therapies if s_start <= t.start and t.end <= cue.start()
                       and not _broken(note, t.end, cue.start())]
            if not earlier:
                continue
            target = earlier[-1]
            negated = _negated_before(note, cue.start(), left)
            span = note.span(left, right)
            if negated:
                out.append(TherapyFact(target.name, target.status, span, target.known, (), (status,),  # type: ignore[arg-type]
                                       assertion=target.assertion, drug=target.drug, brand=target.brand))  # type: ignore[arg-type]
                continue
            # "X, including A and B, gave no relief": the course named with its parts failed as a whole
            heads = [h for h in earlier[:-1] if re.match(r"\s*,?\s*including\s", note.clean[h.end:cue.start()], re.I)]
            if not heads:
                for listed in listed_with(note, therapies, target, backward=True):
                    found_fact = next((f for f in out if f.span is not None and f.span.start == listed.start), None)
                    if found_fact is not None and status not in found_fact.statuses:
                        outcome = _outcome_in(note, left, right) if status == "failed" else found_fact.outcome
                        joined = tuple(s for s in (*found_fact.statuses, status)
                                       if not (status == "contraindicated" and s == "treated"))
                        out[out.index(found_fact)] = replace(found_fact, statuses=joined, outcome=outcome)
            for head in heads:
                for i, fact in enumerate(out):
                    if fact.span is not None and fact.span.start == head.start and fact.therapy == head.name \
                            and status not in fact.statuses:
                        outcome = _outcome_in(note, left, right) if status == "failed" else fact.outcome
                        out[i] = replace(fact, statuses=(*fact.statuses, status), outcome=outcome)
    # "eight weeks of X, including A and B": A and B are parts of that course, as long as it
    for i, fact in enumerate(out):
        if fact.duration_days is not None or fact.span is None:
            continue
        for course in out:
            if course.duration_days is not None and course.span is not None and course.span.end <= fact.span.start \
                    and note.sentence_of(course.span.start) == note.sentence_of(fact.span.start) \
                    and re.fullmatch(r"\s*,?\s*including\s+(?:[^.;,]*?(?:,\s*|\s+and\s+))?",
                                     note.clean[course.span.end:fact.span.start], re.I):
                out[i] = replace(fact, duration_days=course.duration_days)
                break
    # "10 wks PT/NSAIDs": a length told before the first of a list is each one's
    for m in therapies:
        lead = _told_before(note, m, note.clause_bounds(m.start, stop_words=True)[0])
        if lead is None or _required(note, m.end, note.sentence_of(m.start)[1]):
            continue
        days = note.days_of(lead.group("n"), lead.group("t"))
        for listed in listed_with(note, therapies, m, backward=False)[1:]:
            for i, fact in enumerate(out):
                if fact.span is not None and fact.span.start == listed.start and fact.duration_days is None:
                    out[i] = replace(fact, duration_days=days)
    out.extend(_unknown_therapies(note, therapies, mentions))
    out = [replace(f, response=f.response or response_of(note, f)) if "failed" in f.statuses else f for f in out]
    # "suspected corticosteroid intolerance", "? intolerant of steroids": a hedged course and its outcome are
    # unknown (a suspicion satisfies only a criterion that is itself a suspicion, and no therapy criterion is)
    out = [replace(f, status="unknown") if f.assertion == "possible" and f.status == "present" else f for f in out]
    return out, gaps


def _fact(note: Note, m: Mention, statuses: list[str], denied: list[str], duration: float | None,
          outcome: str | None, until: int) -> TherapyFact:
    """`until`: where the next therapy of the clause starts (a dose or rate after it is that one's)."""
    dose = dose_after(note, m.end, until)
    rate_found = rate_in(note, m.end, until, sig=True)
    rate = rate_found[0] if rate_found is not None and rate_found[1] - m.end <= 40 else None
    return TherapyFact(
        m.name, m.status, note.span(m.start, m.end), m.known,  # type: ignore[arg-type]
        tuple(dict.fromkeys(statuses)), tuple(dict.fromkeys(denied)), duration, outcome,
        assertion=m.assertion if m.assertion != "not_documented" else "affirmed",  # type: ignore[arg-type]
        course=_course(note, m), dose=dose[0] if dose else None, rate=rate, drug=m.drug, brand=m.brand,
    )


def listed_with(note: Note, therapies: list[Mention], m: Mention, *, backward: bool) -> list[Mention]:
    """`m` and the therapies listed with it, before it (`backward`) or after it, in one sentence: only a
    joiner ("and", "plus", "/", ",") and the earlier item's own values (dose, frequency, length, a one-word
    aside in brackets) between two of them ("PT (supervised) twice weekly x 10 wks plus naproxen")."""
    sentence = note.sentence_of(m.start)
    same = sorted((t for t in therapies if note.sentence_of(t.start) == sentence), key=lambda t: t.start)
    at = same.index(m)
    out = [m]
    step = -1 if backward else 1
    i = at
    while 0 <= i + step < len(same):
        a, b = (same[i + step], same[i]) if backward else (same[i], same[i + step])
        if not _joined(note, a.end, b.start):
            break
        out.append(same[i + step])
        i += step
    return out


def _joined(note: Note, start: int, end: int) -> bool:
    if start > end:
        return False
    nt = notation(note)
    between = note.clean[start:end]
    between = re.sub(r"\(\s*[\w-]+\s*\)", " ", between)  # a one-word aside: "PT (supervised)"
    for pattern in (nt.dose_re, nt.duration_re, nt.times_re, nt.sig_re, nt.abbr_re, nt.hourly_re):
        between = pattern.sub(" ", between)
    joiners = note.rules_derived("facts.list_joiners", _joiners_re)
    return joiners.fullmatch(between) is not None


def _joiners_re(note: Note) -> re.Pattern[str]:
    words = [re.escape(j) if not j[0].isalpha() else rf"(?<!\w){re.escape(j)}(?!\w)"
             for j in map(str, note.rules.values("list_joiners"))]
    return re.compile(rf"\s*(?:(?:{'|'.join(words)})\s*)+", re.I)


def _nearest(therapies: list[Mention], pos: int, left: int, right: int) -> Mention | None:
    """The therapy a status word in [left, right) speaks of: the nearest one before it, else after it."""
    inside = [t for t in therapies if left <= t.start < right]
    before = [t for t in inside if t.end <= pos]
    if before:
        return before[-1]
    after = [t for t in inside if t.start >= pos]
    return after[0] if after else None


def _negated_before(note: Note, pos: int, left: int) -> bool:
    """A negation right before a status word ("no intolerance", "not contraindicated")."""
    before = note.clean[max(left, pos - 20):pos]
    pattern = note.lexicon.pattern(note.lexicon.phrases(C, "negation_before"), "cue-negation_before")
    return any(m.end() >= len(before.rstrip()) - 12 for m in pattern.finditer(before))


def _broken(note: Note, start: int, end: int) -> bool:
    breaks = note.lexicon.pattern(note.lexicon.phrases(C, "scope_breaks"), "cue-breaks")
    return breaks.search(note.clean, start, end) is not None or ";" in note.clean[start:end]


def _course(note: Note, m: Mention) -> str | None:
    """current / completed / stopped, from words in the therapy's clause or its section."""
    left, right = note.clause_bounds(m.start, stop_words=True)
    found: dict[str, int] = {}
    for course, pattern in _patterns(note, "course_words").items():
        for hit in pattern.finditer(note.clean, left, right):
            found[course] = min(found.get(course, 1 << 30), abs(hit.start() - m.start))
    if "stopped" in found:
        return "stopped"
    if "completed" in found:
        return "completed"
    if "current" in found or m.section in note.rules.section("sections.yaml").get("current_therapy_sections", ()):
        return "current" if m.assertion == "affirmed" else None
    return None


def _outcome_in(note: Note, left: int, right: int) -> str | None:
    """The canonical outcome a clause states ("with inadequate response"), else the first the lexicon lists."""
    outcomes = note.lexicon.phrase_map(C, "outcomes")
    for name, phrases in outcomes.items():
        if note.lexicon.pattern(phrases, f"cue-outcome-{name}").search(note.clean, left, right):
            return name
    return next(iter(outcomes), None)


def response_of(note: Note, fact: TherapyFact) -> str | None:
    """"failed" / "inadequate response", when the therapy's clause says which in so many words."""
    if fact.span is None:
        return None
    return _response_in(note, *note.clause_bounds(fact.span.start, stop_words=True))


def _response_in(note: Note, left: int, right: int) -> str | None:
    found = None
    for name, pattern in _patterns(note, "response_words").items():
        if pattern.search(note.clean, left, right):
            if found is not None:
                return None
            found = str(name).replace("_", " ")
    return found


def _therapy_duration(note: Note, m: Mention, left: int, right: int) -> float | tuple[float, float] | None:
    """The course's length in days, or (most, fewest) when a month-only date bounds it."""
    N, T = note.number_re, note.time_re
    before = note.clean[left:m.start]
    after = note.clean[m.end:right]
    adj = "|".join(map(re.escape, note.lexicon.phrases(C, "duration_adjectives")))
    T = rf"(?:(?:{adj})\s+)?(?P<t>{T})"
    found = _told_before(note, m, left)
    if found is None:
        found = re.match(rf"^\s+(?:therapy\s+|treatment\s+)?for\s+(?P<n>{N})[\s-]+{T}\b", after, re.I)
    if found is None:
        # "X, four a day with self-adjusted doses, for six weeks" / "X (four a day) for five weeks" /
        # "X with self-adjustment for four months": a short aside between the therapy and its length
        _, s_end = note.sentence_of(m.start)
        rest = note.clean[m.end:s_end]
        found = re.match(rf"^(?:\s*,[^,;.]{{1,60}},|\s*\([^()]{{1,60}}\)|\s+with\s+(?:[a-z\-]+\s+){{0,3}}[a-z\-]+)?"
                         rf"\s+for\s+(?P<n>{N})[\s-]+{T}\b", rest, re.I)
    if found is None:
        # "started X three weeks ago": the course so far
        starts = "|".join(r"\s+".join(map(re.escape, w.split()))
                          for w in sorted(note.lexicon.phrases(C, "therapy_starts"), key=len, reverse=True))
        if re.search(rf"(?<![\w-])(?:{starts})\s+(?:[a-z\-]+\s+){{0,2}}$", before, re.I):
            found = re.match(rf"^\s+(?P<n>{N})[\s-]+{T}\s+ago\b", after, re.I)
    if found is not None:
        if _required(note, m.end, right):
            return None  # "six months of MDI are needed": a requirement someone states, not the course
        return note.days_of(found.group("n"), found.group("t"))
    # note shorthand after the drug and its dose: "MTX x3 mo", "SSZ 1 g BID x5 mo", "since 05/2024"
    shorthand = duration_in(note, m.end, right)
    if shorthand is not None:
        days, start, _end, fewest = shorthand
        between = note.clean[m.end:start]
        if len(between.split()) <= 8 and not re.search(r"[;]", between):
            return (days, fewest) if fewest != days else days
    return None


def _told_before(note: Note, m: Mention, left: int) -> re.Match[str] | None:
    """A length written right before the therapy: "10 wks PT", "six weeks of physiotherapy", "a 3-month trial of"."""
    N = note.number_re
    adj = "|".join(map(re.escape, note.lexicon.phrases(C, "duration_adjectives")))
    T = rf"(?:(?:{adj})\s+)?(?P<t>{note.time_re})"
    before = note.clean[left:m.start]
    found = re.search(rf"(?<![\w-])(?P<n>{N})[\s-]+{T}\s+(?:of\s+)?(?:[a-z\-]+\s+){{0,2}}$", before, re.I)
    if found is None:
        found = re.search(rf"(?<![\w-])(?P<n>{N})[\s-]+{T}\s+(?:trial|course)\s+of\s+(?:[a-z\-]+\s+){{0,2}}$", before, re.I)
    return found


def _required(note: Note, start: int, end: int) -> bool:
    return _patterns(note, "requirement_words")[""].search(note.clean, start, end) is not None


def _patterns(note: Note, key: str) -> dict[str, re.Pattern[str]]:
    """A values.yaml phrase table as patterns, built once per lexicon and rules ("" for a plain list)."""
    def build(n: Note) -> dict[str, re.Pattern[str]]:
        table = n.rules.values(key)
        groups = table.items() if isinstance(table, dict) else (("", table),)
        return {str(k): n.lexicon.pattern(tuple(normalise(str(p)) for p in v)) for k, v in groups}
    return note.rules_derived(f"facts.patterns.{key}", build)  # type: ignore[no-any-return]


def _unknown_therapies(note: Note, therapies: list[Mention], mentions: list[Mention]) -> list[TherapyFact]:
    """'N weeks of X' where X is no concept the lexicon knows: a therapy of unknown class."""
    out: list[TherapyFact] = []
    N, T = note.number_re, note.time_re
    for m in re.finditer(rf"(?<![\w-])(?P<n>{N})[\s-]+(?P<t>{T})\s+of\s+(?P<x>[a-z][a-z\-]+(?:\s+[a-z][a-z\-]+)?)",
                         note.clean, re.I):
        start, end = m.start("x"), m.end("x")
        if any(t.start < end and start < t.end for t in mentions):
            continue
        if note.lexicon.find_concepts(m.group("x")) or note.lexicon.find_quantities(m.group("x")):
            continue
        phrase = normalise(m.group("x"))
        if phrase.split()[0] in note.rules.values("not_therapies"):
            continue
        if not phrase.split()[0].endswith(tuple(note.rules.values("drug_stems"))):
            continue  # named like no drug: a length of something else ("six months of symmetric pain")
        days = note.days_of(m.group("n"), m.group("t"))
        if days is None or _required(note, start, note.sentence_of(start)[1]):
            continue
        out.append(TherapyFact(phrase, "present", note.span(start, end), False, ("treated",), (), days))
    return out
