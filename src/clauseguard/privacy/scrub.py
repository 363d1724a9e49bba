"""One request's PHI, found once, kept out of everything derived from it: the stored request, the
answer (question parts in `unsettled`, answer sentences, flags, criteria spans), traces and logs.

Detection runs once per string of the request (`Redaction.of`); every later string is scrubbed by
value (the PHI found, replaced wherever it recurs as a whole word) with one RE2 alternation, linear
in the string. It never adds to what detection found, and never keeps the values past the request.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any, Final

import re2
from pydantic import BaseModel

from clauseguard.privacy.redaction import Redaction

MIN_VALUE: Final = 2  # shorter values (an initial) are left to the regions of their own text


def _strings(data: Any) -> list[str]:
    out, todo = [], [data]
    while todo:
        value = todo.pop()
        if isinstance(value, str):
            out.append(value)
        elif isinstance(value, dict):
            todo.extend(value.values())
        elif isinstance(value, (list, tuple)):
            todo.extend(value)
    return out


# Fields that name what the corpus holds (contract "CT-48213", plan, payer, codes, targets, clause ids):
# checked against the corpus, never prose, so an id shape there is not a member or record id. Names,
# phones, e-mails, dates of birth and addresses typed into them are still found.
IDENTIFIER_FIELDS: Final = ("contract_id", "payer_id", "plan_id", "procedure_codes", "diagnosis_codes", "codes",
                            "a", "b", "gold_clause_ids", "assertion_id", "document_id", "clause_id")
FREE_TEXT_FIELDS: Final = ("narrative", "question", "reason")


def _free_text(request: dict[str, Any]) -> set[str]:
    return {v for k in FREE_TEXT_FIELDS if isinstance(v := request.get(k), str)}


def _is_word_char(ch: str) -> bool:
    return ch.isalnum()


def _inside_id(value: str, start: int, end: int) -> bool:
    """"FAQ" in the clause id "KHP-FAQ-0412.F-2024-02.C1": a word joined by '-', '.', '_' or '/' into a
    token that holds digits is a piece of an identifier ("Smith-Jones" holds none: still a name)."""
    a, b = start, end
    while a > 0 and (value[a - 1].isalnum() or value[a - 1] in "-._/"):
        a -= 1
    while b < len(value) and (value[b].isalnum() or value[b] in "-._/"):
        b += 1
    token = value[a:b].strip("-._/")
    return token != value[start:end] and any(ch.isdigit() for ch in token)


def _pieces(value: str) -> list[str]:
    """A value found, and its comma pieces: a question is split into parts at commas, so "Pt: SMITH,
    JOHN" reaches `unsettled` as "SMITH" and "JOHN", each of which must still be scrubbed."""
    whole = value.strip()
    pieces = [p.strip() for p in whole.split(",")] if "," in whole else []
    return [v for v in (whole, *pieces) if len(v) >= MIN_VALUE and any(ch.isalnum() for ch in v)]


@dataclass
class RequestPrivacy:
    """The PHI of one request (every string in it) and how to scrub it from anything derived."""

    redactions: dict[str, Redaction]
    _values: dict[str, str] = field(default_factory=dict)
    _pattern: Any = None

    @classmethod
    def of(cls, request: Any) -> RequestPrivacy:
        redactions = {s: Redaction.of(s) for s in _strings(request) if s}
        if isinstance(request, dict):  # an identifier field holds an identifier: its id shape is no PHI
            for key in IDENTIFIER_FIELDS:
                value = request.get(key)
                for text in (value if isinstance(value, (list, tuple)) else [value]):
                    if isinstance(text, str) and text in redactions and text not in _free_text(request):
                        found = redactions[text]
                        redactions[text] = Redaction(text, tuple(r for r in found.regions if r[2] != "ID"))
        made = cls(redactions)
        for redaction in redactions.values():
            for value, label in redaction.values:
                for piece in _pieces(value):
                    made._values.setdefault(piece, label)
        if made._values:
            ordered = sorted(made._values, key=lambda v: (-len(v), v))
            made._pattern = re2.compile("|".join(re2.escape(v) for v in ordered))
        return made

    @property
    def found(self) -> bool:
        return bool(self._values)

    def text(self, value: str) -> str:
        """A string of the request, redacted (its own regions), or any other string scrubbed."""
        known = self.redactions.get(value)
        return known.text if known is not None else self.scrub_text(value)

    def scrub_text(self, value: str) -> str:
        if self._pattern is None or not value:
            return value
        out, pos = [], 0
        for m in self._pattern.finditer(value):
            start, end = m.start(), m.end()
            if (start > 0 and _is_word_char(value[start - 1])) or (end < len(value) and _is_word_char(value[end])):
                continue  # "Li" inside "Lisinopril" is not the name Li
            if self._values[m.group()] == "NAME" and _inside_id(value, start, end):
                continue  # a name found in the narrative, met again inside a clause id
            out.append(value[pos:start])
            out.append(f"[{self._values[m.group()]}]")
            pos = end
        out.append(value[pos:])
        return "".join(out)

    def request(self, data: Any) -> Any:
        """The request as it may be stored or echoed: every string redacted."""
        if isinstance(data, str):
            return self.text(data)
        if isinstance(data, dict):
            return {k: self.request(v) for k, v in data.items()}
        if isinstance(data, (list, tuple)):
            return type(data)(self.request(v) for v in data)
        return data

    def scrub(self, value: Any) -> Any:
        """`value` (a string, JSON data or an answer model) with the request's PHI scrubbed from every
        string; answer models are updated in place where they allow it, copied where frozen."""
        if self._pattern is None:
            return value
        if isinstance(value, str):
            return self.scrub_text(value)
        if isinstance(value, BaseModel):
            changes = {}
            for name in type(value).model_fields:
                old = getattr(value, name)
                new = self.scrub(old)
                if new is not old and new != old:
                    changes[name] = new
            if not changes:
                return value
            if value.model_config.get("frozen"):
                return value.model_copy(update=changes)
            for name, new in changes.items():
                setattr(value, name, new)
            return value
        if isinstance(value, dict):
            return {k: self.scrub(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.scrub(v) for v in value]
        if isinstance(value, tuple):
            return tuple(self.scrub(v) for v in value)
        return value


class RedactingFilter(logging.Filter):
    """A logging filter that redacts each record's message (for server and access logs).

    Install on a handler or logger: `logging.getLogger("uvicorn").addFilter(RedactingFilter())`.
    The formatted message is redacted once and the record's arguments dropped, so no PHI reaches
    a log file or the console through a log call."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        redacted = Redaction.of(message).text if message else message
        record.msg, record.args = redacted, None
        return True
