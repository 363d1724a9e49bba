"""read_facts: one request's codes, narrative and structured fields -> a FactSheet.

It owns the order of the reading (mentions, assertions, then each kind of fact) and the pipeline memo
per (lexicon, rules); it never decides coverage.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from datetime import date

from clauseguard.corpus.criteria import Criteria, all_atoms
from clauseguard.reading.facts.acuity import acuity_facts
from clauseguard.reading.facts.ages import age_facts, onset_from_age
from clauseguard.reading.facts.assertion import assert_mentions, find_sections, relative_regions
from clauseguard.reading.facts.changes import counted_changes
from clauseguard.reading.facts.codes import code_facts, reconcile
from clauseguard.reading.facts.diagnoses import condition_facts
from clauseguard.reading.facts.events import described_events
from clauseguard.reading.facts.measures import measure_facts
from clauseguard.reading.facts.mentions import find_mentions
from clauseguard.reading.facts.note import Note
from clauseguard.reading.facts.pipeline import Pipeline
from clauseguard.reading.facts.qualified import qualified
from clauseguard.reading.facts.regimen import regimen_counts, regimens_by_count
from clauseguard.reading.facts.relatives import about_relative, relative_facts
from clauseguard.reading.facts.repeats import consolidate
from clauseguard.reading.facts.requests import narrative_requests
from clauseguard.reading.facts.rules import Rules, default_rules
from clauseguard.reading.facts.services import (
    count_facts,
    counted,
    documentation_facts,
    history_facts,
    quantity_facts,
    tenure_facts,
)
from clauseguard.reading.facts.sheet import ConditionFact, Fact, FactSheet, GapFact, fact_order
from clauseguard.reading.facts.structured import Structured, structured_facts
from clauseguard.reading.facts.therapies import therapy_facts
from clauseguard.reading.lexicon import Lexicon, default_lexicon
from clauseguard.requests import MAX_NARRATIVE_CHARS  # longer is preflight's HALT; read at most this much

_LOCK = threading.Lock()


def pipeline_for(lexicon: Lexicon, rules: Rules) -> Pipeline:
    """The spaCy pipeline of a lexicon and a rule set, built on first use and kept on the lexicon (per
    instance: the cold verifier's own lexicon gets its own pipeline)."""
    with _LOCK:
        return lexicon.derived(f"facts.pipeline:{rules.fingerprint}", lambda lex: Pipeline(lex, rules))


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
    *,
    rules: Rules | None = None,
    as_of: date | None = None,
    structured: Structured | None = None,
) -> FactSheet:
    """Read the facts of one request. Spans are offsets into `narrative` as given; `as_of` dates
    "since 11/2023"; `structured` holds the request's optional prior-authorization fields."""
    lex = lexicon or default_lexicon()
    rules = rules or default_rules()
    vocab = tuple(sorted(set(vocabulary)))
    note = Note(narrative[:MAX_NARRATIVE_CHARS], lex, rules, as_of)
    pipeline = pipeline_for(lex, rules)
    note.doc = pipeline.doc(note.clean, [s for s, _ in note.sentences])
    note.sections = find_sections(note, pipeline)
    mentions = assert_mentions(note, pipeline, find_mentions(note, pipeline, vocab))
    regions = relative_regions(note)
    gaps: list[GapFact] = []
    facts: list[Fact] = []
    for found, missing in (condition_facts(note, mentions), therapy_facts(note, mentions), measure_facts(note, mentions)):
        facts.extend(found)
        gaps.extend(missing)
    onset_spans: list[tuple[int, int]] = []
    ages = age_facts(note, onset_spans)
    facts.extend(ages)
    if not any(a.of == "onset" for a in ages):
        # how long a condition has lasted, or when it began ("developed headaches ... three weeks ago")
        lasting = [(f, f.concept) for f in facts if isinstance(f, ConditionFact) and f.status == "present"
                   and (f.duration_days is not None or f.ago_days is not None)]
        facts.extend(onset_from_age(note, ages, lasting))
    facts.extend(tenure_facts(note, pipeline))
    counts = count_facts(note, mentions)
    facts.extend(counts)
    history, missing = history_facts(note, mentions)
    facts.extend(f for f in history if not counted(note, f, counts))
    gaps.extend(missing)
    facts.extend(quantity_facts(note, pipeline, mentions, vocab))
    facts.extend(documentation_facts(note, mentions))
    facts.extend(acuity_facts(note, mentions))  # "BCVA 20/400 OD, 20/300 OS": severe visual impairment
    # a value stated about a relative ("her mother was diagnosed at age 42") is not the member's
    facts = [f for f in facts if f.span is None or not about_relative(regions, f.span.start)]
    facts.extend(relative_facts(note, regions, mentions))
    # after the relatives' filter: the one who found the member or called for help is often a relative
    facts.extend(described_events(note, mentions))
    facts.extend(counted_changes(note, mentions, facts))  # "glimepiride stopped ... Lantus then cut": two attempts
    conditions, services, unknown = code_facts(note, tuple(diagnosis_codes), tuple(procedure_codes), vocab)
    facts = reconcile(note, facts, conditions)
    facts.extend(regimen_counts(note, facts))  # "glargine once at bedtime, no mealtime insulin": one injection a day
    facts.extend(regimens_by_count(note, facts))  # "four injections a day for four months": an intensive regimen
    facts = qualified(note, facts)  # "fewer than 4 a day" is < 4; "two to four", "nearly 3 months": no figure
    facts = consolidate(sorted(facts, key=fact_order))  # a value stated twice is one fact; two values for one are a conflict
    facts.extend(services)
    facts.extend(narrative_requests(note, mentions, services))  # "Requesting endoscopic sleeve gastroplasty"
    if structured is not None:
        facts = structured_facts(note, structured, facts)
    facts.sort(key=fact_order)
    gaps.sort(key=fact_order)
    unique = {(f.kind, f.message, f.span): f for f in note.flags}
    flags = sorted(unique.values(), key=lambda f: (f.span.start if f.span else -1, f.kind, f.message))
    return FactSheet(tuple(facts), tuple(flags), lex.fingerprint, vocab, tuple(unknown), rules.fingerprint,
                     tuple(dict.fromkeys(gaps)))
