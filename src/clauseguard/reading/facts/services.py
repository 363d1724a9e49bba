"""Services the member already had and the evidence the request states: prior services with when ("MRI
4 months ago") or how many in a window ("24 visits this calendar year", "the 12th visit"), billed or
requested quantities per period ("#100 strips/90 days"), how long the member has been insured, and
documentation ("radiculopathy corroborated by MRI").

It owns counting and dating services; a planned or requested service is never a prior one, and what
the request says it lacks is a gap, never a count of zero.
"""

from __future__ import annotations

import math
import re

from clauseguard.corpus.codes import is_procedure_code
from clauseguard.corpus.criteria import Period
from clauseguard.reading.facts.assertion import value_assertion
from clauseguard.reading.facts.mentions import Mention
from clauseguard.reading.facts.note import C, Note
from clauseguard.reading.facts.pipeline import Pipeline
from clauseguard.reading.facts.sheet import DocumentationFact, GapFact, QuantityFact, ServiceFact, TenureFact
from clauseguard.reading.facts.values import dated_after
from clauseguard.reading.lexicon import normalise

# a counted noun phrase, its head a word; a billing code may name it ("a second 90837 session")
ITEM = r"(?P<item>(?:[a-z0-9][a-z0-9\-]*\s+){0,3}?[a-z][a-z\-]*)"


def _owner(mentions: list[Mention], s_start: int, s_end: int, at: int) -> Mention | None:
    """Which service of the sentence a date at `at` belongs to: the nearest one named before it, else
    the first one named after it."""
    services = [o for o in mentions if o.kind in ("service", "generic") and s_start <= o.start < s_end]
    before = [o for o in services if o.end <= at]
    if before:
        return max(before, key=lambda o: o.start)
    after = [o for o in services if o.start >= at]
    return min(after, key=lambda o: o.start) if after else None


_NEAR = 24  # characters either side of a service that a history cue names it as a prior one from


def history_facts(note: Note, mentions: list[Mention]) -> tuple[list[ServiceFact], list[GapFact]]:
    """Prior services: 'an earlier MRI, done five months back', 'nothing of the kind since January'."""
    out: list[ServiceFact] = []
    gaps: list[GapFact] = []
    lex = note.lexicon
    history = lex.pattern(lex.phrases(C, "service_history"), "cue-service-history")
    latest = lex.pattern(lex.phrases(C, "latest_occasion"), "cue-latest-occasion")
    repeat = lex.pattern(lex.phrases(C, "repeat_words"), "cue-repeat")
    ends_the_name, device_age = note.rules_derived("facts.history-patterns", _history_patterns)
    N, T = note.number_re, note.time_re
    for m in mentions:
        if m.kind not in ("service", "generic") or m.assertion == "family":
            continue
        if m.assertion == "not_documented":
            gaps.append(GapFact("service", m.name, note.span(m.start, m.end)))
            continue
        if m.assertion in ("planned", "possible"):
            # a service ordered, requested or hedged has not been had; a repeat of it says one was
            if m.assertion == "planned" and m.status != "absent" and repeat.search(note.clean, max(0, m.start - 20), m.start):
                out.append(ServiceFact((m.name,) if m.kind == "service" else (), note.span(m.start, m.end), named_prior=True))
            continue
        s_start, s_end = note.sentence_of(m.start)
        clause = note.clean[s_start:s_end]
        has_cue = history.search(note.clean, s_start, s_end) is not None
        ago = re.search(rf"(?P<n>{N})\s+(?P<t>{T})\s+ago", clause, re.I)
        if ago and _owner(mentions, s_start, s_end, s_start + ago.start()) is not m:
            ago = None  # "seen in clinic 5 weeks ago ... qualifies for the sensor": the visit's date, not the sensor's
        # "office visit 03/22/2024", "last saw him in March 2024", "seen in person today": a date right after it
        # (only for a named service: a bare "session" or "visit" may be the requested one itself)
        on = dated_after(note, m.end, s_end) if ago is None and m.kind == "service" else None
        if on is None and ago is None and m.kind == "service":
            on = _aged(note, device_age.match(note.clean, m.end, s_end))  # "the current pump is 5 years old"
        window = re.search(r"(?:in|within|during)\s+the\s+(?:past|last|previous|same|current|preceding)\s+(?P<w>[^,.;]+?)"
                           r"(?=$|[,.;]|\s+(?:and|but|with)\s)", clause, re.I) or \
            re.search(r"(?:earlier|already)\s+(?:in\s+)?(?:the\s+)?(?P<w>(?:same|this)\s+(?:calendar\s+)?(?:year|month|week))",
                      clause, re.I)
        if not (has_cue or ago or window or on):
            continue
        concepts = (m.name,) if m.kind == "service" else ()
        # the service and what dates or counts it, no more of the sentence than that
        dated_end = max([m.end] + [s_start + x.end() for x in (ago, window) if x is not None] + ([on[2]] if on else []))
        if m.kind == "service" and (ago or on):
            dated_end = max(dated_end, s_end)  # what the sentence says of it ("seen 5 weeks ago - control reviewed")
        span = note.span(min([m.start] + [s_start + x.start() for x in (ago, window) if x is not None]), dated_end)
        ago_days = note.days_of(ago.group("n"), ago.group("t")) if ago else on[1] if on else None
        ago_least = on[0] if on else ago_days
        within = note.period_text(window.group("w")) if window else None
        if m.status == "absent":
            out.append(ServiceFact(concepts, span, status="absent", within=within, prior_count=0.0, assertion="negated"))
        elif m.status == "present" and (ago_days is not None or within is not None or has_cue):
            count = 1.0 if within is not None else None
            # the cue next to the service itself ("prior X", "s/p X", "X performed"), not elsewhere in the sentence
            near = (history.search(note.clean, max(s_start, m.start - _NEAR), m.start) is not None or
                    history.search(note.clean, m.end, min(s_end, m.end + _NEAR)) is not None) and \
                ends_the_name.match(note.clean, m.end, s_end) is not None
            out.append(ServiceFact(concepts, span, ago_days=ago_days, ago_least=ago_least, on_date=on[3] if on else None,
                                   within=within, prior_count=count,
                                   latest=latest.search(clause) is not None, named_prior=near))
    return out, gaps


def _history_patterns(note: Note) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """Where a named service's noun phrase ends ("gastric bypass in 2017", "sleeve gastrectomy 2019.", never
    "insulin pump training"), and a device's age written after it ("is 5 years old"); built once."""
    followers = "|".join(r"\s+".join(map(re.escape, w.split())) for w in note.lexicon.phrases(C, "service_name_followers"))
    ends_the_name = re.compile(rf"\s*(?:$|[,.;:()\-\d]|(?:{followers})(?![\w-]))", re.I)
    device_age = re.compile(rf"[^.;]{{0,20}}?(?<![\w-])(?P<more>(?:more\s+than|over)\s+)?(?P<n>{note.number_re})[\s-]+"
                            rf"(?P<t>{note.time_re})[\s-]+old(?![\w-])", re.I)
    return ends_the_name, device_age


def _aged(note: Note, found: re.Match[str] | None) -> tuple[float, float, int, str] | None:
    """A device's age as (fewest, most) days since it was supplied: "2 years old" is two to three years,
    "more than 4 years old" has no upper bound."""
    age = note.days_of(found.group("n"), found.group("t")) if found else None
    if found is None or age is None:
        return None
    most = math.inf if found.group("more") else age + (note.days_of("1", found.group("t")) or 0.0)
    return age, most, found.end(), "age"


def count_facts(note: Note, mentions: list[Mention]) -> list[ServiceFact]:
    """Stated counts of the service in a counting window: "25 visits used this calendar year" (25 prior),
    "this is the 12th visit this year" (11 prior, the requested one is the 12th)."""
    out: list[ServiceFact] = []
    T = note.tables
    cardinal, ordinal_re, numbered, opening, boundaries = note.rules_derived("facts.count-patterns", _count_patterns)
    concepts_found = [m for m in mentions if m.kind in ("condition", "therapy", "service")]
    for pattern, is_ordinal in ((cardinal, False), (ordinal_re, True), (numbered, True)):
        for m in pattern.finditer(note.clean):
            first = m.start("o") if is_ordinal else m.start("n")
            if any(c.start <= first < c.end for c in concepts_found):
                continue  # the "2" of "type 2 diabetes" counts nothing
            concepts = counted_service(note, normalise(m.group("item")))
            if concepts is None:
                continue
            within = _count_window(note, m.group("w"))
            if within is None:
                continue
            if is_ordinal:
                before = [normalise(t.text) for t in note.before_words(m.start(), 3)]
                if any(w in boundaries for w in before):
                    continue  # "after the tenth visit" is a boundary, not the requested occasion
                raw = normalise(m.group("o"))
                value = float(raw) if raw.isdigit() else float(raw[:-2]) if raw[:-2].isdigit() else T.ordinals.get(raw)
                if value is None or value < 1:
                    continue
                prior = value - 1  # the requested one is the n-th
            else:
                if is_procedure_code(m.group("n")):
                    continue  # "90837 session this week": the code names the service, it counts nothing
                found = note.num_at(m.group("n"))
                if found is None:
                    continue
                prior = found
            out.append(ServiceFact(concepts, note.span(m.start(), m.end()), within=within, prior_count=prior))
    # "the first hyperbaric session is requested": none before it in the course it opens (its episode)
    for m in opening.finditer(note.clean):
        if any(c.span is not None and c.span.start <= m.start() < c.span.end for c in out):
            continue
        concepts = counted_service(note, normalise(m.group("item")))
        if concepts is not None:
            out.append(ServiceFact(concepts, note.span(m.start(), m.end()), within=Period(1.0, "episode"),
                                   prior_count=0.0))
    return out


def _count_patterns(note: Note) -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str], re.Pattern[str], frozenset[str]]:
    """The count readings' patterns, built once per lexicon and rules."""
    T, lex, N = note.tables, note.lexicon, note.number_re
    ordinal = "|".join(sorted(map(re.escape, T.ordinals), key=len, reverse=True))
    occasions = "|".join(r"\s+".join(map(re.escape, w.split())) for w in sorted(T.count_occasions, key=len, reverse=True))
    window = (r"(?P<w>(?:this|the\s+same|the\s+current|the)\s+(?:[a-z]+\s+)?year"
              rf"|(?:this|the\s+same|the\s+current)\s+(?:{occasions or 'year'})"
              r"|(?:this|the\s+same|the\s+current)\s+(?:calendar\s+)?(?:week|month|day))")
    count_links = "|".join(r"\s+".join(map(re.escape, w.split()))
                           for w in sorted(lex.phrases(C, "count_links"), key=len, reverse=True))
    links = rf"(?:(?:{count_links})\s+){{0,3}}"
    boundaries = frozenset(normalise(w) for w in lex.phrases(C, "ordinal_boundaries"))
    cardinal = re.compile(rf"(?<![\w-])(?P<n>{N})\s+{ITEM}\s+{links}{window}(?![\w-])", re.I)
    ordinal_re = re.compile(rf"(?<![\w-])(?P<o>\d+(?:st|nd|rd|th)|{ordinal})(?:\s*\(\s*\d+(?:st|nd|rd|th)\s*\))?\s+"
                            rf"{ITEM}\s+{links}{window}(?![\w-])", re.I)
    # "HBOT session number 6 for this episode", "visit #3 this year": the requested one's number in its window
    numbered = re.compile(rf"(?<![\w-]){ITEM}\s+(?:number\s+|no\.\s*|#\s*)?(?P<o>\d{{1,3}})\s+{links}{window}(?![\w-])", re.I)
    first_words = [w for w, v in T.ordinals.items() if v == 1] + ["1st"]
    opening = re.compile(rf"(?<![\w-])(?:the|a|this)\s+(?:{'|'.join(map(re.escape, first_words))})\s+{ITEM}\s+"
                         rf"(?:is|was|being)?\s*(?:requested|planned|scheduled|ordered|proposed)(?![\w-])", re.I)
    return cardinal, ordinal_re, numbered, opening, boundaries


def counted_service(note: Note, item: str) -> tuple[str, ...] | None:
    """What a counted noun phrase is: () for a generic unit of the requested service ("visits",
    "physical therapy visits"), the service concept it names, or None when it counts something else."""
    lex = note.lexicon
    words = item.split()
    head = words[-1]
    singular = head[:-1] if head.endswith("s") and not head.endswith("ss") else head
    services = [c.name for c in lex.find_concepts(item) if lex.concepts[c.name].domain == "service"]
    services += [c for w in words if w[:1].isdigit() for c in lex.services_for_code(w.upper()) if c not in services]
    generic = note.tables.generic
    if head in generic or singular in generic:
        return tuple(services[-1:])
    if services and lex.concept_named(item) is not None:
        return (services[-1],)
    return None


def _count_window(note: Note, text: str) -> Period | None:
    name = re.sub(r"\bcalendar\s+(?=week|month|day)", "", normalise(text))
    occasion = note.tables.count_occasions.get(re.sub(r"^(?:this|the same|the current)\s+", "", name))
    if occasion is not None:
        return Period(1.0, occasion)  # type: ignore[arg-type]
    if name in note.tables.period_names:
        return Period(1.0, note.tables.period_names[name])  # type: ignore[arg-type]
    period = note.period_text(name)
    return period if period is not None and period.unit != "year" else None


def counted(note: Note, fact: ServiceFact, counts: list[ServiceFact]) -> bool:
    """A history fact the stated count of the same service (in its sentence) already says more precisely."""
    if fact.span is None:
        return False
    sentence = note.sentence_of(fact.span.start)
    return any(c.span is not None and note.sentence_of(c.span.start) == sentence
               and (not c.concepts or not fact.concepts or c.concepts == fact.concepts) for c in counts)


def quantity_facts(note: Note, pipeline: Pipeline, mentions: list[Mention], vocabulary: tuple[str, ...]) -> list[QuantityFact]:
    """"40 sensors for 31 days", "#100 strips/90 days", "150 strips a month": a countable supply (or the
    service) over a period; "two episodes in six months" counts events and is no quantity."""
    out: list[QuantityFact] = []
    lex = note.lexicon
    N = note.number_re
    # the period may follow a second amount joined to the first ("#100 strips and #100 lancets per 90 days"):
    # it is read in a lookahead, so the second amount is found again on its own
    pattern = note.rules_derived("facts.quantity-pattern", lambda n: re.compile(
        rf"(?<![\w-])#?(?P<n>{n.number_re})\s*(?P<item>(?:[a-z][a-z\-]*\s+){{0,3}}?[a-z][a-z\-]*?s?)\s*"
        rf"(?=(?:(?:,|and|&|\+)\s*#?(?:{n.number_re})\s*(?:[a-z][a-z\-]*\s+){{0,3}}?[a-z][a-z\-]*?s?\s*)?"
        rf"(?:for|per|in|over|during|within|every|/|a)\s*(?:a|an|one|each|the|every)?\s*"
        rf"(?P<p>(?:{n.number_re})?[\s-]*(?:{n.time_re}|d)(?:\s+(?:period|window|interval))?)(?![\w]))", re.I))
    concepts = [m for m in mentions if m.kind in ("condition", "therapy", "service")]
    countable = note.tables.generic | note.tables.supplies
    for m in pattern.finditer(note.clean):
        item_words = normalise(m.group("item")).split()
        if not item_words or any(c.start <= m.start("n") < c.end for c in concepts):
            continue
        if any(lex.concepts[c.name].domain == "condition" for c in lex.find_concepts(m.group("item"))):
            continue
        head = item_words[-1]
        if head in note.tables.time_units or lex.quantity_named(" ".join(item_words)):
            continue
        raw_period = re.sub(r"(?<=\d)\s*d$|^d$", " days", m.group("p").strip())
        period = note.period_text(raw_period or "day")
        value = note.num_at(m.group("n"))
        if period is None or value is None:
            continue
        singular = head[:-1] if head.endswith("s") and not head.endswith("ss") else head
        concept = lex.concept_named(" ".join(item_words))
        if concept is None and head not in countable and singular not in countable and \
                not any(v.split()[-1] in (head, singular) for v in vocabulary):
            continue  # "two severe episodes in six months" counts events, not a supply of the service
        supplies = note.tables.supplies
        if not re.search(r"\d|" + N, m.group("p"), re.I) and head not in supplies and singular not in supplies:
            continue  # "4 tests per day" is how often, not how much is billed: only a supply is billed "a month"
        assertion, _ = value_assertion(note, pipeline, m.start(), m.end("p"), "quantity")
        if assertion in ("negated", "not_documented", "family", "possible"):
            continue
        if concept is None:
            # "300 strips / 3 months" against criteria that count "test strips": the criteria's own name for the
            # thing, the term of theirs that ends in this word (the shortest, when the others only narrow it:
            # "test strips", "blood glucose test strips"; none when they name different things)
            named = sorted((normalise(v) for v in vocabulary if normalise(v).split()[-1] in (head, singular)), key=len)
            concept = named[0] if named and all(n.endswith(" " + named[0]) or n == named[0] for n in named) else None
        out.append(QuantityFact(concept or singular, value, period, note.span(m.start(), m.end("p")),
                                assertion="planned" if assertion == "planned" else "affirmed"))
    return out


def tenure_facts(note: Note, pipeline: Pipeline) -> list[TenureFact]:
    """'joined the group scheme ten months ago', 'insured under the contract for three years'."""
    out: list[TenureFact] = []
    for m in _tenure_re(note).finditer(note.clean):
        days = note.days_of(m.group("n") or m.group("n2"), m.group("t") or m.group("t2"))
        if days is None:
            continue
        assertion, _ = value_assertion(note, pipeline, m.start(), m.end())
        if assertion != "affirmed" or _negated_in(note, m.start(), m.end()):
            continue
        out.append(TenureFact(days, note.span(m.start(), m.end()), ">=" if m.group("more") else "=="))
    return out


def _negated_in(note: Note, start: int, end: int) -> bool:
    """A negation inside the statement itself ("has not been insured under the plan for 2 years")."""
    pattern = note.lexicon.pattern(note.lexicon.phrases(C, "negation_before"), "cue-negation_before")
    s_start, _ = note.sentence_of(start)
    return pattern.search(note.clean, s_start, end) is not None


def _tenure_re(note: Note) -> re.Pattern[str]:
    def build(n: Note) -> re.Pattern[str]:
        tenure = n.lexicon.phrase_map(C, "tenure")
        N, T = n.number_re, n.time_re
        holder = rf"(?:(?:the|its|their|his|her|this)\s+)?(?:group\s+)?(?:{'|'.join(map(re.escape, tenure['contracts']))})"
        return re.compile(
            rf"(?<![\w-])(?:(?:{'|'.join(map(re.escape, tenure['joined']))})\s+{holder}\s+(?P<n>{N})[\s-]+(?P<t>{T})\s+ago"
            rf"|(?:{'|'.join(map(re.escape, tenure['insured']))})\s+(?:under|in|with|by|on)\s+{holder}\s+for\s+"
            rf"(?P<more>more\s+than\s+|over\s+)?(?P<n2>{N})[\s-]+(?P<t2>{T}))(?![\w-])", re.I)
    return note.lexicon.derived("facts.tenure", lambda _lex: build(note))  # type: ignore[no-any-return]


def documentation_facts(note: Note, mentions: list[Mention]) -> list[DocumentationFact]:
    out: list[DocumentationFact] = []
    lex = note.lexicon
    evidence = lex.pattern(lex.phrases(C, "evidence"), "cue-evidence")
    usable = [m for m in mentions if m.assertion not in ("family", "not_documented")]
    for cue in evidence.finditer(note.clean):
        sentence = note.sentence_of(cue.start())
        before = [m for m in usable if m.end <= cue.start() and m.kind in ("condition", "free")
                  and note.sentence_of(m.start) == sentence]
        after = [m for m in usable if m.start >= cue.end() and m.kind in ("service", "free", "generic")
                 and note.sentence_of(m.start) == sentence]
        if not before or not after:
            continue
        about, item = before[-1], after[0]
        status = "unknown" if "unknown" in (about.status, item.status) else item.status
        out.append(DocumentationFact(item.name, status, note.span(about.start, item.end), about.name))  # type: ignore[arg-type]
    forward = lex.pattern(lex.phrases(C, "evidence_forward"), "cue-evidence-forward")
    for cue in forward.finditer(note.clean):
        # "MRI confirms a tear": the test right before the cue, the finding after it, one clause
        left, right = note.clause_bounds(cue.start(), stop_words=False)
        tests = [m for m in usable if left <= m.start and m.end <= cue.start() and m.kind == "service"
                 and re.fullmatch(r"[\s\w'-]*", note.clean[m.end:cue.start()])]
        found = [m for m in usable if cue.end() <= m.start and m.end <= right and m.kind in ("condition", "free")]
        if not tests or not found:
            continue
        item, about = tests[-1], found[0]
        status = "unknown" if "unknown" in (about.status, item.status) else about.status
        out.append(DocumentationFact(item.name, status, note.span(item.start, about.end), about.name))  # type: ignore[arg-type]
    out.extend(_compound_evidence(note, usable))
    out.extend(_report_lines(note, usable))
    for m in usable:
        # a service ordered, pending or hedged documents nothing yet; one stated not done documents its absence
        if m.kind == "service" and m.status in ("unknown", "absent"):
            out.append(DocumentationFact(m.name, m.status, note.span(m.start, m.end), assertion=m.assertion))  # type: ignore[arg-type]
    return out


def _compound_evidence(note: Note, usable: list[Mention]) -> list[DocumentationFact]:
    """"MRI-confirmed medial meniscus tear": the test, a hyphen and the cue, then the finding in the same clause
    with only words between."""
    lex = note.lexicon
    cue = re.compile(rf"\s*-\s*(?:{'|'.join(map(re.escape, lex.phrases(C, 'evidence_compound')))})(?![\w-])", re.I)
    out: list[DocumentationFact] = []
    for m in (m for m in usable if m.kind == "service"):
        hit = cue.match(note.clean, m.end)
        if hit is None:
            continue
        _left, right = note.clause_bounds(m.start, stop_words=False)
        found = [x for x in usable if hit.end() <= x.start and x.end <= right and x.kind in ("condition", "free")
                 and re.fullmatch(r"[\s\w'-]*", note.clean[hit.end():x.start])]
        if found:
            about = found[0]
            status = about.status if m.status == "present" and about.status != "unknown" else "unknown"
            out.append(DocumentationFact(m.name, status, note.span(m.start, about.end), about.name))  # type: ignore[arg-type]
    return out


def _report_lines(note: Note, usable: list[Mention]) -> list[DocumentationFact]:
    """A result line: the test opens its line or its label, then only where and when, a separator and the
    finding within a few words ("Imaging: MRI 09/2023 - horizontal tear of the medial meniscus", "MRI L-spine:
    L4-5 extrusion"); a remark after the separator ("MRI - patient is anxious about ...") documents nothing."""
    lex = note.lexicon
    marks = "|".join(map(re.escape, lex.phrases(C, "evidence_report_marks")))
    sep = re.compile(rf"(?P<gap>[^.;,:\n]{{0,40}}?)(?:\s*:|\s+(?:{marks}))\s+")
    out: list[DocumentationFact] = []
    for m in (m for m in usable if m.kind == "service"):
        line_start = note.clean.rfind("\n", 0, m.start) + 1
        if not re.fullmatch(r"\s*(?:[A-Za-z][\w /()-]{0,30}:\s*)?", note.clean[line_start:m.start]):
            continue
        hit = sep.match(note.clean, m.end)
        if hit is None or len(hit.group("gap").split()) > 4 \
                or any(m.end <= x.start < hit.end() for x in usable if x is not m):
            continue
        found = next((x for x in usable if x.start >= hit.end() and x.kind in ("condition", "free")), None)
        lead = note.clean[hit.end():found.start] if found is not None else ""
        if found is None or re.search(r"[.;,\n]", lead) or len(lead.split()) > 3:
            continue
        status = found.status if m.status == "present" and found.status != "unknown" else "unknown"
        out.append(DocumentationFact(m.name, status, note.span(m.start, found.end), found.name))  # type: ignore[arg-type]
    return out
