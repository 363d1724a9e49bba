"""Preflight: the HALT rules, PHI redaction, and instruction-like text in the narrative.

Pure code, no model. It decides only whether a determination may be attempted at all; it never
reads policy text. Facts are read from the original narrative in memory; everything that leaves the
process (answers, traces, logs, the audit table) is taken from `Redaction` output.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from typing import Final

from clauseguard.corpus.codes import SHAPE_HELP, is_diagnosis_code, is_procedure_code
from clauseguard.corpus.model import Corpus
from clauseguard.requests import DeterminationRequest, parse_iso_date, structured_problems
from clauseguard.responses import Reason

# ----------------------------------------------------------------------------- PHI redaction

_LABEL = r"(?:\s*[:#=-]\s*|\s+)"
_PHI_PATTERNS: Final[tuple[tuple[str, re.Pattern[str]], ...]] = (
    ("EMAIL", re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}")),
    (
        "DOB",
        re.compile(
            r"\b(?:DOB|D\.O\.B\.?|date of birth|born(?: on)?|birth ?date)" + _LABEL
            + r"(?P<phi>\d{1,4}[/.-]\d{1,2}[/.-]\d{1,4}|[A-Z][a-z]+\.? \d{1,2},? \d{4}|\d{1,2} [A-Z][a-z]+ \d{4})",
            re.IGNORECASE,
        ),
    ),
    (
        "ID",
        re.compile(
            r"\b(?:MRN|medical record(?: number| no\.?| #)?|member(?: id| number| no\.?| #)|subscriber(?: id| number)"
            r"|patient id|record(?: number| no\.?| #)|SSN|social security(?: number)?|policy(?: number| no\.?| #))"
            + _LABEL + r"(?P<phi>(?-i:(?=[A-Za-z0-9-]*\d)[A-Za-z0-9][A-Za-z0-9-]{3,}))\b",
            re.IGNORECASE,
        ),
    ),
    ("SSN", re.compile(r"\b\d{3}-\d{2}-\d{4}\b")),
    (
        "PHONE",
        re.compile(r"(?<![\w.])(?:\+?1[ .-]?)?(?:\(\d{3}\)\s?|\d{3}[ .-])\d{3}[ .-]\d{4}\b|\+\d{2}[ \d]{8,14}\d\b"),
    ),
    (
        "ADDRESS",
        re.compile(
            r"\b\d{1,6}\s+(?:[A-Z][a-z]+\s+){1,4}(?:Street|St|Avenue|Ave|Road|Rd|Lane|Ln|Drive|Dr|Boulevard|Blvd"
            r"|Court|Ct|Way|Place|Pl|Terrace|Close)\b\.?(?:,?\s*(?:Apt|Unit|Suite)\.?\s*\w+)?"
        ),
    ),
    (
        "NAME",
        re.compile(
            r"(?i:\b(?:patient|member|client|insured|subscriber)(?: full)? name|\bname)\s*[:=-]\s*"
            r"(?P<phi>[A-Z][a-zA-Z'-]+(?:\s+[A-Z]\.?(?=\s))?(?:\s+[A-Z][a-zA-Z'-]+){0,2})",
        ),
    ),
    ("NAME", re.compile(r"\b(?:Mr|Mrs|Ms|Miss|Mx|Dr)\.?\s+[A-Z][a-zA-Z'-]+(?:\s+[A-Z][a-zA-Z'-]+)?")),
)


@dataclass(frozen=True)
class Redaction:
    """PHI regions of one text, found once; redacts the whole text or any span of it."""

    original: str
    regions: tuple[tuple[int, int, str], ...]  # (start, end, label), sorted, non-overlapping

    @classmethod
    def of(cls, text: str) -> Redaction:
        found: list[tuple[int, int, str]] = []
        for label, pattern in _PHI_PATTERNS:
            for m in pattern.finditer(text):
                # A labelled value ("DOB 03/14/1981") keeps its label and loses its value.
                group = "phi" if "phi" in pattern.groupindex else 0
                found.append((m.start(group), m.end(group), label))
        found.sort(key=lambda r: (r[0], -r[1], r[2]))
        merged: list[tuple[int, int, str]] = []
        for start, end, label in found:
            if merged and start < merged[-1][1]:
                prev = merged[-1]
                merged[-1] = (prev[0], max(prev[1], end), prev[2])
            else:
                merged.append((start, end, label))
        return cls(text, tuple(merged))

    @property
    def text(self) -> str:
        return self.span(0, len(self.original))

    @property
    def labels(self) -> tuple[str, ...]:
        return tuple(sorted({label for _, _, label in self.regions}))

    def span(self, start: int, end: int) -> str:
        """original[start:end] with every PHI region that touches it replaced by `[LABEL]`."""
        out: list[str] = []
        pos = start
        for r_start, r_end, label in self.regions:
            if r_end <= start or r_start >= end:
                continue
            if r_start > pos:
                out.append(self.original[pos:r_start])
            out.append(f"[{label}]")
            pos = max(pos, r_end)
        if pos < end:
            out.append(self.original[pos:end])
        return "".join(out)


def redact(text: str) -> str:
    """The text with names, dates of birth, member/record ids, phones, emails and addresses replaced."""
    return Redaction.of(text).text


# ----------------------------------------------------------------------------- instructions in the narrative

_INSTRUCTION = re.compile(
    r"ignore (?:all |any )?(?:the )?(?:previous|prior|above|earlier) (?:instructions|rules|criteria)"
    r"|disregard (?:the |all |any )?(?:previous |prior |above )?(?:instructions|rules|policy|criteria)"
    r"|you are now\b|as the (?:medical director|reviewer|system)|system prompt"
    r"|\bapprove (?:this|the) (?:claim|request)|\bapprove this\b|\bmark (?:this|it) (?:as )?(?:covered|approved)"
    r"|\bcite (?:clause|policy)\b|regardless of the (?:criteria|policy|rules)|\bnew instructions?\b"
    r"|\boverride (?:the )?(?:policy|criteria|gate)",
    re.IGNORECASE,
)
_SENTENCE = re.compile(r"(?:[^.!?\n]|[.!?](?=\S))+[.!?]*")


@dataclass(frozen=True)
class NarrativeReading:
    """The narrative for fact reading: instruction-like sentences blanked (offsets kept) and flagged."""

    fact_text: str
    flags: tuple[str, ...]


def screen_instructions(text: str, redaction: Redaction | None = None) -> NarrativeReading:
    """Blank out sentences that read as instructions to the system; record each as a flag, never obey it."""
    redaction = redaction or Redaction.of(text)
    chars = list(text)
    flags: list[str] = []
    for sentence in _SENTENCE.finditer(text):
        if _INSTRUCTION.search(sentence.group()):
            flags.append(redaction.span(sentence.start(), sentence.end()).strip())
            for i in range(sentence.start(), sentence.end()):
                chars[i] = " "
    return NarrativeReading("".join(chars), tuple(flags))


# ----------------------------------------------------------------------------- HALT rules


@dataclass(frozen=True)
class Preflight:
    """What preflight decided: HALT reasons (empty when the request may proceed) and the parsed date."""

    halts: tuple[Reason, ...]
    as_of: date | None
    redaction: Redaction
    narrative: NarrativeReading
    question_redacted: str

    @property
    def ok(self) -> bool:
        return not self.halts


def preflight(request: DeterminationRequest, corpus: Corpus) -> Preflight:
    """Every field a determination needs, checked by value; each failure names its field."""
    halts: list[Reason] = []
    payers = {p.id for p in corpus.payers}
    plans = {p.id: p for p in corpus.plans}

    if not request.payer_id.strip():
        halts.append(Reason("halt_payer_id", "payer_id is empty; give the payer's id"))
    elif request.payer_id not in payers:
        halts.append(Reason("halt_payer_id", f"payer_id '{request.payer_id}' is not a payer of this corpus"))

    if not request.plan_id.strip():
        halts.append(Reason("halt_plan_id", "plan_id is empty; give the member's plan id"))
    elif request.plan_id not in plans:
        halts.append(Reason("halt_plan_id", f"plan_id '{request.plan_id}' is not a plan of this corpus"))
    elif request.payer_id in payers and plans[request.plan_id].payer != request.payer_id:
        halts.append(
            Reason(
                "halt_plan_id",
                f"plan_id '{request.plan_id}' belongs to payer {plans[request.plan_id].payer}, "
                f"not to payer_id '{request.payer_id}'",
            )
        )

    as_of: date | None = None
    try:
        as_of = parse_iso_date(request.as_of_date.strip())
    except ValueError:
        shown = request.as_of_date or "empty"
        halts.append(Reason("halt_as_of_date", f"as_of_date '{shown}' is not a date; write YYYY-MM-DD"))

    codes = [c.strip() for c in request.procedure_codes]
    if not [c for c in codes if c]:
        halts.append(Reason("halt_procedure_codes", "procedure_codes is empty; give at least one CPT or HCPCS code"))
    for code in codes:
        if not is_procedure_code(code):
            halts.append(
                Reason(
                    "halt_procedure_codes",
                    f"procedure_codes: '{code}' has neither a CPT shape ({SHAPE_HELP['CPT']}) "
                    f"nor an HCPCS shape ({SHAPE_HELP['HCPCS']})",
                )
            )
    for code in (c.strip() for c in request.diagnosis_codes):
        if not is_diagnosis_code(code):
            halts.append(
                Reason(
                    "halt_diagnosis_codes",
                    f"diagnosis_codes: '{code}' does not have an ICD-10-CM shape ({SHAPE_HELP['ICD-10-CM']})",
                )
            )

    # the optional structured fields (and the narrative's length) have their checks in requests.py
    for field, message in structured_problems(request, as_of):
        halts.append(Reason(f"halt_{field.replace('.', '_')}", message))
    if request.contract_id is not None and request.contract_id not in {c.id for c in corpus.contracts}:
        halts.append(Reason("halt_contract_id", f"contract_id '{request.contract_id}' is not a contract of this corpus"))

    redaction = Redaction.of(request.narrative)
    return Preflight(
        halts=tuple(halts),
        as_of=as_of,
        redaction=redaction,
        narrative=screen_instructions(request.narrative, redaction),
        question_redacted=redact(request.question),
    )
