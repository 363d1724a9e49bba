"""Clause metadata by rule: `kind`, `coverage_type` and `benefit` from headings and wording, read
sentence by sentence so negation and exceptions count; benefit names from data/benefits.yaml.
It never calls a model and never edits clause text.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Final

from clauseguard.corpus.model import ClauseKind, CoverageType
from clauseguard.corpus.readers.structure import sentences
from clauseguard.datafiles import load_yaml
from clauseguard.errors import CorpusError, Problem

BENEFITS_FORMAT: Final = "clauseguard.benefits/v1"


@dataclass(frozen=True)
class ClauseMetadata:
    kind: ClauseKind
    coverage_type: CoverageType
    benefit: str | None


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


# -- coverage, sentence by sentence -------------------------------------------------------------------

_BE = r"(?:is|are|shall be|will be|remains?|becomes?|being)"
_NOT_EXCLUDED = _rx(rf"\b{_BE}\s+not\s+excluded\b|\bnot\s+an?\s+exclusion\b")
# Conditions on cover: the clause grants or refuses only when something holds.
_CONDITION = _rx(
    r"\b(?:unless|provided that|providing that|on condition that|subject to|if and only if|as long as|so long as"
    r"|only (?:if|when|where|after|once|in|for|on|up to|within)"
    r"|(?:all|any|one|both|each|either) of the following"
    r"|(?:medically necessary|covered|reimbursed|payable|paid|eligible|approved|available) (?:when|if|where|once|after)"
    r"|requires? (?:prior |pre-?)?(?:authori[sz]ation|approval|certification)|prior (?:authori[sz]ation|approval))\b"
)
# Conditions that gate cover by themselves, with no coverage verb in the sentence.
_GATE = _rx(r"\b(?:of the following|requires? (?:prior |pre-?)?(?:authori[sz]ation|approval|certification)"
            r"|prior (?:authori[sz]ation|approval))\b")
# Carve-outs: the statement holds except for something named here or elsewhere ("except as provided in 6.4").
_CARVE_OUT = _rx(r"\b(?:except|excepting|other than|save (?:as|where|for|that))\b")
_NEGATIVE = _rx(
    rf"\b(?:{_BE}\s+(?:excluded|not covered|not payable|not reimbursed|not reimbursable|not eligible"
    r"|not medically necessary|investigational|experimental)"
    r"|not (?:be )?(?:covered|reimbursed|payable|paid)"
    r"|no (?:benefits?|cover|coverage|payment|reimbursement|cash sum|daily cash sum)\b[^.;]{0,60}?"
    rf"\b(?:{_BE}\s+)?(?:paid|payable|provided|due|available|granted|given)"
    r"|(?:does|do|will|shall|can) not (?:cover|pay|reimburse|provide|give rise to|extend to)"
    r"|(?:we|the insurer) (?:do not|don't|does not|will not|won't) (?:cover|pay)"
    r"|excluded from (?:cover|coverage|benefit)"
    r"|(?:considered|deemed) (?:investigational|experimental|cosmetic|not medically necessary)"
    r"|requires? individual consideration|not covered under a standing policy)\b"
)
_POSITIVE = _rx(
    rf"\b(?:{_BE}\s+(?:covered|reimbursed|payable|paid|medically necessary|limited to|eligible for (?:cover|reimbursement|benefits?))"
    r"|qualif(?:y|ies) for"
    r"|cover applies|paid in full|considered medically necessary"
    r"|(?:the insurer|we|the plan|this (?:policy|rider|plan|contract)|the (?:policy|contract))\s+"
    r"(?:pays?|will pay|covers?|will cover|reimburses?|will reimburse|adds|provides?)"
    r"|benefits? (?:is|are) (?:payable|paid))\b"
)

Reading = CoverageType | None


@lru_cache(maxsize=4096)
def _sentence_coverage(sentence: str) -> tuple[Reading, str]:
    """(coverage this sentence states or None, and which qualifier it carries: condition, carve-out or "")."""
    s = " ".join(sentence.replace("’", "'").split())
    not_excluded = _NOT_EXCLUDED.search(s)
    rest = _NOT_EXCLUDED.sub(" ", s) if not_excluded else s
    negative = _NEGATIVE.search(rest) is not None
    positive = not_excluded is not None or _POSITIVE.search(rest) is not None
    condition = _CONDITION.search(s) is not None
    carve_out = _CARVE_OUT.search(s) is not None
    qualifier = "condition" if condition else ("carve-out" if carve_out else "")
    if condition and (negative or positive or _GATE.search(s)):
        return "conditional", qualifier
    if (negative or positive) and carve_out:
        return "conditional", qualifier  # "excluded, except as provided in 6.4": the answer depends on 6.4
    if negative:
        return "not_covered", qualifier
    if positive:
        return "covered", qualifier
    return None, qualifier


def coverage_type(text: str) -> CoverageType:
    """Conditional when any sentence makes cover depend on a condition or an exception; otherwise what
    the first sentence that decides says (covered or not covered); unknown when none decides."""
    readings = [_sentence_coverage(s)[0] for s in sentences(" ".join(text.split()))]
    if "conditional" in readings:
        return "conditional"
    return next((r for r in readings if r is not None), "unknown")


# -- kind ---------------------------------------------------------------------------------------------

_HEADING_CUES: Final[tuple[tuple[ClauseKind, re.Pattern[str]], ...]] = (
    ("definition", _rx(r"\bdefinitions?\b|\bmeaning of\b|\bglossary\b|\binterpretation\b")),
    ("waiting_period", _rx(r"\bwaiting periods?\b|\bqualifying periods?\b")),
    ("exclusion", _rx(r"\bexclusions?\b|\bexcluded\b|\bnot covered\b")),
    ("documents", _rx(r"\bdocuments?\b|\bdocumentation\b|\bclaims?\b|\bevidence\b|\bhow to claim\b")),
    ("limit", _rx(r"(?<!time )\blimits?\b|\blimitations?\b|\bcaps?\b|\bmaximum\b|\bdeductible\b|\bceilings?\b")),
    ("criteria", _rx(r"\bcriteria\b|\beligibility\b|\bmedical necessity\b|\bindications?\b|\brequirements?\b"
                     r"|\bconditions for\b|\bprior authori[sz]ation\b")),
    ("scope", _rx(r"\bscope\b|\bobject of\b|\bwhat is covered\b|\bextent of cover\b|\bpurpose\b|\bapplicability\b")),
)
_DEFINITION = _rx(
    r"['\"‘“][^'\"’”]{1,60}['\"’”]\s+(?:means|shall mean|is defined as|refers to)\b"
    r"|\bthe terms? ['\"‘“]?[\w -]{1,40}['\"’”]? (?:means|is defined as|refers to)\b"
)
_WAITING = _rx(r"\bwaiting period\b|\bqualifying period\b|\bnot (?:payable|covered|reimbursed) (?:during|within|for) the first\b")
_DOCUMENT_VERB = _rx(
    r"\b(?:must|shall|should|(?:is|are) required to|need to)\b[^.]{0,80}?"
    r"\b(?:send|submit|provide|include|enclose|attach|accompan|receive|produce|present|reach)\w*"
    r"|\b(?:is|are) required\b|\bmust be accompanied\b"
)
_DOCUMENT_NOUN = _rx(
    r"\b(?:invoices?|receipts?|discharge summary|reports?|quotes?|x-rays?|certificates?|claim forms?"
    r"|prescriptions?|medical records?|evidence|documents?|letters?)\b"
)
_LIMIT = _rx(
    r"\bup to\b|\bmaximum\b|\bat most\b|\blimited to\b|\bnot (?:to )?exceed\w*\b|\bno more than\b"
    r"|\b(?:annual|yearly|lifetime|overall) (?:\w+ )?(?:cap|limit|maximum)s?\b|\bcap of\b|\bcapped\b|\bceiling\b"
    r"|\bper (?:insured person|member|person|policy year|contract year|calendar year|year|lifetime|day|night"
    r"|visit|session|operative session|knee|eye|tooth|dispensing|month|week|claim|event)\b"
    r"|\bonce (?:in|per|every)\b"
)
_SCOPE = _rx(
    r"\bthis (?:policy|rider|section|chapter|contract|benefit|plan) (?:applies|covers|adds|describes)\b"
    r"|\bcover applies\b|\bapplies to\b"
)


def _heading_kind(headings: Sequence[str]) -> ClauseKind | None:
    """The kind the nearest heading names ("Exclusions", "Waiting periods"), own heading first."""
    for heading in reversed(headings):
        for kind, cue in _HEADING_CUES:
            if cue.search(heading):
                return kind
    return None


def clause_kind(text: str, headings: Sequence[str] = ()) -> ClauseKind:
    """What the clause is: its own heading says it when it names a kind ("Exclusions"); else a
    definition, a waiting period or an exclusion as its wording states one; else what an enclosing
    heading names; else its wording (a condition, documents, a limit, a grant of cover)."""
    own = _heading_kind(headings[-1:])
    if own is not None:
        return own
    flat = " ".join(text.split())
    if _DEFINITION.search(flat):
        return "definition"
    if _WAITING.search(flat):
        return "waiting_period"
    readings = [_sentence_coverage(s) for s in sentences(flat)]
    first = next(((r, q) for r, q in readings if r is not None), (None, ""))
    if first[0] == "not_covered" or (first[0] == "conditional" and first[1] == "carve-out"):
        return "exclusion"
    enclosing = _heading_kind(headings[:-1])
    if enclosing is not None:
        return enclosing
    if any(r == "conditional" and q == "condition" for r, q in readings):
        return "criteria"
    if _DOCUMENT_VERB.search(flat) and _DOCUMENT_NOUN.search(flat):
        return "documents"
    if _LIMIT.search(flat):
        return "limit"
    if first[0] == "covered" or _SCOPE.search(flat):
        return "scope"
    return "other"


# -- benefit ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class BenefitTerms:
    """benefit id -> phrases that name it, compiled once (word boundaries, case-insensitive)."""

    patterns: tuple[tuple[str, tuple[tuple[str, re.Pattern[str]], ...]], ...]

    @property
    def _keys(self) -> tuple[tuple[str, str], ...]:
        """(phrase in lower case, benefit) of every phrase: one substring test each tells which
        benefits a text can name at all."""
        keys = self.__dict__.get("_key_cache")
        if keys is None:
            keys = tuple((phrase.lower(), benefit) for benefit, phrases in self.patterns for phrase, _ in phrases)
            object.__setattr__(self, "_key_cache", keys)
        return keys

    @classmethod
    def from_mapping(cls, terms: Mapping[str, Sequence[str]]) -> BenefitTerms:
        return cls(
            tuple(
                (benefit, tuple((p, re.compile(rf"(?<![\w-]){re.escape(p.lower())}(?![\w-])")) for p in phrases))
                for benefit, phrases in sorted(terms.items())
            )
        )

    def benefit(self, text: str, headings: Sequence[str] = ()) -> str | None:
        """The benefit named most (a phrase in the own heading counts three times, longer phrases
        more); ties go to the one named first, then by id. None when no phrase occurs.

        A phrase's pattern runs only where the phrase occurs as a substring (one C-level search,
        the same answer): most clauses name one or two of the benefits, not all of them."""
        body = " ".join(text.lower().split())
        own = " ".join(headings[-1:]).lower()
        named = {benefit for key, benefit in self._keys if key in body or key in own}
        best: tuple[int, int, str] | None = None
        for benefit, phrases in self.patterns:
            if benefit not in named:
                continue
            score, first = 0, len(body) + 1
            for phrase, pattern in phrases:
                key = phrase.lower()
                hits = [m.start() for m in pattern.finditer(body)] if key in body else []
                heading_hits = len(pattern.findall(own)) if key in own else 0
                score += (len(hits) + 3 * heading_hits) * len(phrase)
                if hits:
                    first = min(first, hits[0])
            if score and (best is None or (score, -first) > (best[0], best[1])):
                best = (score, -first, benefit)
        return best[2] if best else None


@lru_cache(maxsize=1)
def benefit_terms() -> BenefitTerms:
    """The bundled term list (data/benefits.yaml)."""
    path = resources.files("clauseguard") / "data" / "benefits.yaml"
    data = load_yaml(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or data.get("format") != BENEFITS_FORMAT or not isinstance(data.get("benefits"), dict):
        raise CorpusError([Problem(str(path), "format", f"expected 'format: {BENEFITS_FORMAT}' and a 'benefits' mapping")])
    terms = {str(k): [str(p) for p in v] for k, v in data["benefits"].items()}
    return BenefitTerms.from_mapping(terms)


# -- together ------------------------------------------------------------------------------------------


def classify(
    text: str,
    headings: Sequence[str] = (),
    *,
    title: str = "",
    chunk: bool = False,
    terms: BenefitTerms | None = None,
) -> ClauseMetadata:
    """Kind, coverage type and benefit of one clause. A fallback chunk is `other` with coverage
    `unknown` (it is a window of text, not a statement); a definition states no coverage and no
    benefit. A clause that names no benefit takes the one its document's title names, if any."""
    names = terms or benefit_terms()
    benefit = names.benefit(text, headings) or (names.benefit(title) if title else None)
    if chunk:
        return ClauseMetadata("other", "unknown", benefit)
    kind = clause_kind(text, headings)
    coverage: CoverageType = "unknown" if kind == "definition" else coverage_type(text)
    return ClauseMetadata(kind, coverage, None if kind == "definition" else benefit)
