"""Facts from a request's codes, narrative and structured fields, each anchored to its span, with the
assertion status of every mention (affirmed, negated, possible, planned, family, historical; what the
request says it lacks is a gap, counted as unstated).

Built on the field's libraries: medspaCy's target matcher, ConText and sectionizer (rules as data in
`clauseguard/data/facts/`), the ICD-10-CM tabular list (simple-icd-10-cm) and a drug dictionary
(drug-named-entity-recognition), each loaded lazily, once per process. It never decides coverage.
"""

from clauseguard.reading.facts.note import Flag
from clauseguard.reading.facts.reader import MAX_NARRATIVE_CHARS, pipeline_for, read_facts, vocabulary_of
from clauseguard.reading.facts.rules import Rules, default_rules, load_rules
from clauseguard.reading.facts.sheet import (
    NARRATIVE,
    AgeFact,
    Assertion,
    ConditionFact,
    DocumentationFact,
    Fact,
    FactCertainty,
    FactSheet,
    GapFact,
    MeasureFact,
    PlaceFact,
    PrescriberFact,
    QuantityFact,
    Rate,
    RelativeFact,
    ServiceFact,
    SexFact,
    Status,
    TenureFact,
    TherapyFact,
)
from clauseguard.reading.facts.structured import Structured

__all__ = [
    "MAX_NARRATIVE_CHARS", "NARRATIVE", "AgeFact", "Assertion", "ConditionFact", "DocumentationFact", "Fact",
    "FactCertainty", "FactSheet", "Flag", "GapFact", "MeasureFact", "PlaceFact", "PrescriberFact", "QuantityFact",
    "Rate", "RelativeFact", "Rules", "ServiceFact", "SexFact", "Status", "Structured", "TenureFact", "TherapyFact",
    "default_rules", "load_rules", "pipeline_for", "read_facts", "vocabulary_of",
]
