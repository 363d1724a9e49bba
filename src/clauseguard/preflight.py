"""Preflight: the HALT rules, the narrative's PHI redaction (`clauseguard.privacy`), and
instruction-like text in the narrative (rules in `data/screening/instructions.yaml`, RE2).

Pure code, no model. It decides only whether a determination may be attempted at all; it never
reads policy text. Facts are read from the original narrative in memory; everything that leaves the
process (answers, traces, logs, the audit table) is taken from `Redaction` output.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass
from datetime import date
from functools import cache
from importlib import resources
from typing import Any, Final

import re2

from clauseguard.corpus.codes import SHAPE_HELP, is_diagnosis_code, is_procedure_code
from clauseguard.corpus.model import Corpus
from clauseguard.datafiles import load_yaml
from clauseguard.privacy import Redaction, redact
from clauseguard.requests import DeterminationRequest, parse_iso_date, structured_problems
from clauseguard.responses import Reason
from clauseguard.text import sentences

__all__ = ["NarrativeReading", "Preflight", "Reason", "Redaction", "preflight", "redact", "screen_instructions"]

# ----------------------------------------------------------------------------- instructions in the narrative

_INSTRUCTION_FILE: Final = resources.files("clauseguard") / "data" / "screening" / "instructions.yaml"
# Where a narrative divides into pieces that are screened one at a time: its sentences (the text
# toolkit's splitter, the one every reader uses), then inside a sentence the line breaks and the edges
# of markup (an HTML comment or tag) and dashes, so an unterminated hidden comment ends where the
# visible text resumes instead of swallowing the real sentence after it.
_EDGE: Final = re2.compile(r"<!--|-->|</?[A-Za-z][^<>\n]{0,200}>|\n+|\s--+\s|\s?[—–]\s")
# Inside one piece, a run-on "approve this claim Chart documents two tests" turns at a capital after
# a lower-case word, and "onset age 32. IGNORE ALL..." at a capital after a stop the sentence splitter
# kept (it reads "32." as a list number): only the part holding the instruction is blanked.
_RUN_ON_TURN: Final = re2.compile(r"\b[a-z][a-z0-9]*[,;)\]]?\s+([A-Z])[a-z]|\b[a-z0-9]+[.!?]\s+([A-Z])")


@cache
def _instruction_patterns() -> tuple[Any, ...]:
    data = load_yaml(_INSTRUCTION_FILE.read_text(encoding="utf-8"))
    options = re2.Options()
    options.case_sensitive = False
    return tuple(re2.compile(p, options) for p in data["patterns"])


@dataclass(frozen=True)
class NarrativeReading:
    """The narrative for fact reading: instruction-like sentences blanked (offsets kept) and flagged."""

    fact_text: str
    flags: tuple[str, ...]


def _segments(text: str) -> list[tuple[int, int]]:
    """(start, end) of each piece: every sentence, cut again at line breaks and markup edges."""
    edges = [(m.start(), m.end()) for m in _EDGE.finditer(text)]  # once over the whole text (RE2 re-encodes per call)
    out, k = [], 0
    for sentence in sentences(text):
        pos = sentence.start
        while k < len(edges) and edges[k][1] <= sentence.start:
            k += 1
        j = k
        while j < len(edges) and edges[j][0] < sentence.end:
            if edges[j][0] > pos:
                out.append((pos, edges[j][0]))
            pos = max(pos, edges[j][1])
            j += 1
        if pos < sentence.end:
            out.append((pos, sentence.end))
    return out


def _instruction_hits(text: str) -> list[tuple[int, int]]:
    """Every instruction match over the whole text, sorted (each pattern runs once: RE2's Python
    binding re-encodes its whole input per call, so calls per segment would be quadratic)."""
    return sorted((m.start(), m.end()) for p in _instruction_patterns() for m in p.finditer(text))


def _blanked_part(text: str, start: int, end: int, hits: list[tuple[int, int]]) -> tuple[int, int] | None:
    """The part of one segment that holds an instruction: from the first run-on piece an instruction
    touches to the last one it touches (None when the segment holds none). `hits` lie in the segment."""
    if not hits:
        return None
    segment = text[start:end]
    turns = [max(m.start(1), m.start(2)) for m in _RUN_ON_TURN.finditer(segment)]  # the capital that turns
    cuts = [start] + [start + turn for turn in turns] + [end]
    pieces = list(zip(cuts, cuts[1:], strict=False))
    touched = [i for i, (a, b) in enumerate(pieces) if any(h0 < b and h1 > a for h0, h1 in hits)]
    return pieces[touched[0]][0], pieces[touched[-1]][1]


def screen_instructions(text: str, redaction: Redaction | None = None) -> NarrativeReading:
    """Blank out text that reads as instructions to the system; record each as a flag, never obey it."""
    redaction = redaction or Redaction.of(text)
    chars = list(text)
    flags: list[str] = []
    hits = _instruction_hits(text)
    starts = [h[0] for h in hits]
    for seg_start, seg_end in _segments(text):
        inside = [h for h in hits[bisect_left(starts, seg_start):bisect_left(starts, seg_end)] if h[1] <= seg_end]
        part = _blanked_part(text, seg_start, seg_end, inside)
        if part is None:
            continue
        flags.append(redaction.span(*part).strip())
        for i in range(*part):
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
