"""The assertion status of every mention: medspaCy's ConText over the rules in data/facts/context.yaml,
and the note's sections (data/facts/sections.yaml), which set the status of what sits under them.

It owns turning ConText's modifiers and a section heading into one status per mention, by the rules'
precedence; it never names a cue in code and never builds a fact.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from clauseguard.reading.facts.mentions import Mention
from clauseguard.reading.facts.note import C, Note
from clauseguard.reading.facts.pipeline import Pipeline, Target
from clauseguard.reading.lexicon import normalise


@dataclass(frozen=True)
class Region:
    """Where the narrative speaks of someone else: from the cue naming them to the end of its reach."""

    start: int
    end: int
    cue_spans: tuple[tuple[int, int], ...]
    negated: bool = False  # the negation is written on the relative ("no family history of ...")
    hedged: bool = False


def find_sections(note: Note, pipeline: Pipeline) -> list[tuple[int, int, str]]:
    """(start, end, category) of each section body, as character offsets: from a heading the sectionizer
    found to the next heading, or to the next line that opens with a label of its own ("Clinical
    rationale: ..."), which ends the section before it whether or not the rules know that label; and the
    sections a status-setting heading opens inside a line, which end the one they interrupt."""
    doc = note.doc
    inline = _inline_sections(note)
    labels = [m.start() for m in _LABEL_LINE.finditer(note.clean)] + [start for start, _, _ in inline]
    out: list[tuple[int, int, str]] = []
    for section in doc._.sections:
        if section.category is None:
            continue
        start_tok, end_tok = section.section_span
        start = doc[start_tok].idx if start_tok < len(doc) else len(note.clean)
        end = doc[end_tok - 1].idx + len(doc[end_tok - 1].text) if end_tok > start_tok else start
        end = min([end, *(p for p in labels if start < p < end)])
        out.append((start, end, str(section.category)))
    return out + inline


def _inline_sections(note: Note) -> list[tuple[int, int, str]]:
    """A heading that opens a sentence inside a line ("T2DM on metformin. Plan: insulin glargine qHS"), for
    the sections whose heading sets a status (`inline_sections`): to the end of that line, or to the next
    label in it."""
    out: list[tuple[int, int, str]] = []
    for category, heading in note.rules_derived("facts.inline-headings", _inline_headings):
        for m in heading.finditer(note.clean):
            line_end = note.clean.find("\n", m.end())
            end = len(note.clean) if line_end < 0 else line_end
            nxt = _INLINE_LABEL.search(note.clean, m.end(), end)
            out.append((m.start("h"), nxt.start() if nxt else end, category))
    return out


def _inline_headings(note: Note) -> list[tuple[str, re.Pattern[str]]]:
    """Each inline section's heading pattern, built once per rules."""
    rules = note.rules.section("sections.yaml")
    out = []
    for category in rules.get("inline_sections") or ():
        headings = sorted((str(h) for h in rules["sections"][category]), key=len, reverse=True)
        alt = "|".join(r"\s+".join(map(re.escape, h.split())) for h in headings)
        out.append((str(category), re.compile(rf"(?<=[.;!?])[ \t]+(?P<h>(?:{alt})[ \t]*:)", re.I)))
    return out


# a further label inside the line ("... qHS. Follow-up: 3 months"): it ends an inline section
_INLINE_LABEL: Final = re.compile(r"(?<=[.;!?])[ \t]+[A-Za-z][A-Za-z/&'() -]{0,30}:")


# A line that opens with a short label and its colon: a form's field or a note's heading.
_LABEL_LINE: Final = re.compile(r"(?m)^[ \t]*[A-Za-z][A-Za-z/&'() -]{0,40}:")


def assert_mentions(note: Note, pipeline: Pipeline, mentions: Sequence[Mention]) -> list[Mention]:
    """Set each mention's assertion; mentions a section drops (a drug under allergies) are left out."""
    targets = [Target(m.kind, m.name, m.tok_start, m.tok_end, m.start, m.end) for m in mentions]
    kept: list[Mention] = []
    for m, (_t, modifiers) in zip(mentions, pipeline.assert_targets(note.doc, targets), strict=True):
        m.modifiers = modifiers
        m.section = note.section_at(m.start)
        if _settle(note, m, modifiers):
            kept.append(m)
    _start_tails(note, kept)
    _counts_of_planned(note, kept)
    return _form_labels(note, kept)


def _start_tails(note: Note, mentions: list[Mention]) -> None:
    """A clause that only says when a therapy starts, after the therapy ("insulin glargine prescribed today,
    first dose tomorrow"; "insulin 3 injections daily, to start after education class"; "MDI recommended;
    starting next week"), plans the last therapy named before it in the sentence (cues.yaml `start_tails`)."""
    tails = note.lexicon.pattern(note.lexicon.phrases(C, "start_tails"), "cue-start-tails")
    for m in re.finditer(r"[,;]\s*", note.clean):
        if tails.match(note.clean, m.end()) is None:
            continue
        s_start, s_end = note.sentence_of(m.start())
        _, tail_end = note.clause_bounds(m.end() + 1, stop_words=False)
        if any(t.kind == "therapy" and m.end() <= t.start < tail_end for t in mentions):
            continue  # the tail names a therapy of its own
        before = [t for t in mentions if t.kind == "therapy" and s_start <= t.start and t.end <= m.start()]
        if before and before[-1].assertion == "affirmed":
            before[-1].assertion = "planned"


def _counts_of_planned(note: Note, mentions: list[Mention]) -> None:
    """A count of doses (a quantity that defines a regimen, values.yaml `regimens_by_count`) in a sentence that
    plans a therapy counts that planned regimen ("Plan: insulin glargine qHS plus lispro TID (4 injections/day)"):
    planned too. Any other count keeps its own status ("P: fingersticks QID; start basal insulin"): plans restate
    what the member does as often as what is to come."""
    planned = {note.sentence_of(m.start) for m in mentions if m.kind == "therapy" and m.assertion == "planned"}
    dosing = {str(rule["quantity"]) for rule in note.rules.values("regimens_by_count").values()}
    for m in mentions:
        if m.kind == "quantity" and m.name in dosing and m.assertion == "affirmed" and not m.by_cue \
                and note.sentence_of(m.start) in planned:
            m.assertion = "planned"


def _form_labels(note: Note, mentions: list[Mention]) -> list[Mention]:
    """A mention inside a form field's label takes its status from the field's answer: dropped where the
    answer names the same thing again (the restatement carries the status), left unread where the answer
    opens with a negation no cue read as answering the label."""
    text = note.clean
    negations = frozenset(normalise(w) for w in note.rules.section("context.yaml")["label_answer_negations"])
    kept: list[Mention] = []
    for m in mentions:
        label = _LABEL_LINE.match(text, text.rfind("\n", 0, m.start) + 1)
        if label is None or m.end >= label.end():
            kept.append(m)
            continue
        end = max(note.sentence_of(m.start)[1], label.end())  # the answer: the rest of the label's sentence
        lex = note.lexicon
        if any(o is not m and o.kind == m.kind and label.end() <= o.start < end
               and (o.name == m.name or (o.by_cue and (lex.is_a(o.name, m.name) or lex.is_a(m.name, o.name))))
               for o in mentions):
            continue  # "Prosthetic training: not yet trained on the knee": the answer's kind of it, with a cue, says
        answer = normalise(text[label.end():end]).split()
        if m.assertion == "affirmed" and not m.by_cue and answer and answer[0].strip(".,;") in negations:
            m.assertion, m.by_cue = "not_documented", True
        kept.append(m)
    return kept


def value_assertion(note: Note, pipeline: Pipeline, start: int, end: int, kind: str = "value") -> tuple[str, bool]:
    """The assertion of a stated value or count (no mention of its own): (status word, by a cue)."""
    span = note.doc.char_span(start, end, alignment_mode="expand")
    if span is None:
        return "affirmed", False
    probe = Mention("", start, end, kind, span.start, span.end)
    modifiers = pipeline.modifiers_of(note.doc, span.start, span.end, kind)
    probe.section = note.section_at(start)
    _settle(note, probe, modifiers)
    return probe.assertion, probe.by_cue


def _settle(note: Note, m: Mention, modifiers: tuple[Any, ...]) -> bool:
    rules = note.rules
    found: dict[str, Any] = {}
    for mod in modifiers:
        found.setdefault(str(mod.category), mod)
    for when, then in rules.combinations:
        if when <= set(found):
            found.setdefault(then, found[sorted(when)[0]])
    m.categories = tuple(sorted(found))
    for category in rules.precedence:
        if category in found:
            meaning = rules.meaning(category, m.kind)
            if meaning is None:
                continue
            m.assertion, m.by_cue = meaning, True
            m.suspicion = bool(found[category].rule.metadata.get("suspicion")) if meaning == "possible" else False
            break
    sections = rules.section("sections.yaml")
    effects = sections.get("effects", {}).get(m.section or "", {})
    # a step done for the member (training, attempts to adjust treatment) takes a heading as a service does,
    # though the lexicon keeps it among the states a record shows, unless its own words say it was done
    # ("P: Trained by the diabetes educator")
    clause = note.clean[slice(*note.clause_bounds(m.start, stop_words=False))]  # "P: Psych eval completed, ..."
    step = m.name in (sections.get("step_concepts") or ()) and not (
        (set(normalise(note.clean[m.start:m.end]).split()) | set(normalise(clause).split()))
        & set(sections.get("step_done_words") or ()))
    effect = effects.get("step" if step else m.kind)
    if effect == "drop":
        return False
    if effect is not None and (not m.by_cue or effect == "family"):
        if effect == "family" or m.assertion == "affirmed":
            m.assertion = effect
    return True


def relative_regions(note: Note) -> list[Region]:
    """Statements about someone else: each FAMILY cue's reach, and each family-history section line."""
    doc = note.doc
    graph = doc._.context_graph
    out: list[Region] = []
    if graph is not None:
        negations = [mod for mod in graph.modifiers if mod.category == "NEGATED"]
        hedges = [mod for mod in graph.modifiers if mod.category in ("POSSIBLE", "PENDING")]
        for mod in graph.modifiers:
            if mod.category != "FAMILY":
                continue
            cue_start, cue_end = mod.modifier_span
            scope_start, scope_end = mod.scope_span
            lead = cue_start
            while lead < cue_end - 1 and doc[lead].lower_ in note.rules.relative_leads:
                lead += 1  # "in her sister": the cue names the sister
            cue = (doc[lead].idx, doc[cue_end - 1].idx + len(doc[cue_end - 1].text))
            targets = list(mod._targets)
            if targets and all(t.end <= cue_start for t in targets):
                start, end = doc[min(t.start for t in targets)].idx, cue[1]  # "breast cancer (mother)"
            else:
                start = cue[0]
                last = scope_end - 1 if scope_end > cue_end else cue_end - 1
                end = doc[last].idx + len(doc[last].text)
            between = [t for n in negations if n.modifier_span[1] <= cue_start
                       for t in doc[n.modifier_span[1]:cue_start]]
            negated = any(n.modifier_span[1] <= cue_start and all(
                t.lower_ in note.rules.glue or t.is_space for t in doc[n.modifier_span[1]:cue_start])
                and doc[n.modifier_span[0]].sent == doc[cue_start].sent for n in negations)
            del between
            hedged = any(min(start, cue[0]) <= doc[h.modifier_span[0]].idx < end for h in hedges)
            out.append(Region(start, end, (cue,), negated, hedged))
    for start, end, category in note.sections:
        effects = note.rules.section("sections.yaml").get("effects", {}).get(category, {})
        if effects.get("condition") != "family":
            continue
        for s_start, s_end in note.sentences:
            if start <= s_start < end and not any(r.start <= s_start < r.end or s_start <= r.start < s_end for r in out):
                out.append(Region(s_start, s_end, ((s_start, s_start),)))
    out.sort(key=lambda r: (r.start, r.end))
    merged: list[Region] = []
    for r in out:
        if merged and r.start < merged[-1].end:
            last = merged[-1]
            merged[-1] = Region(last.start, max(last.end, r.end), last.cue_spans + r.cue_spans,
                                last.negated or r.negated, last.hedged or r.hedged)
        else:
            merged.append(r)
    return merged
