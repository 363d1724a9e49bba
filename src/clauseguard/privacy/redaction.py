"""PHI regions of one text, found once, and the text with each region replaced by `[LABEL]`.

It runs every detector (identifier patterns, phones, presidio's validated ids, addresses, names)
and merges what they find; each detector is linear in the text (RE2, or bounded windows), so a
hostile 256 KB narrative costs what its length says. It never logs, stores or returns the values
it finds except through `Redaction.values` for scrubbing derived strings.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from threading import Lock
from typing import Final

from clauseguard.privacy.addresses import find_addresses
from clauseguard.privacy.form_rows import form_row_dates
from clauseguard.privacy.name_mentions import later_mentions
from clauseguard.privacy.names import find_names
from clauseguard.privacy.patterns import Region, find_identifiers, is_code
from clauseguard.privacy.phones import find_phones
from clauseguard.privacy.presidio_ids import find_presidio_ids
from clauseguard.privacy.recurrences import recurrences
from clauseguard.privacy.rows import dates_beside_dobs, row_dates_of_birth

# When two detectors claim overlapping text the merged region keeps the first label in this order.
_LABEL_ORDER: Final = ("EMAIL", "URL", "SSN", "DOB", "PHONE", "ID", "IP", "ADDRESS", "NAME")
_MEMO_SIZE: Final = 64


# Typographic variants read as their plain ASCII form, one character for one, so every offset found in
# the plain text is the same offset in the original: dashes, spaces, apostrophes, full-width forms.
_PLAIN: Final[dict[int, str]] = {
    **{ord(c): "-" for c in "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63"},
    **{ord(c): " " for c in "\u00a0\u2007\u2009\u200a\u202f\u205f\u3000\u200b\u200c\u200d\u2060\ufeff"},
    **{ord(c): "'" for c in "\u2018\u2019\u02bc\u2032"},
    **{ord(c): '"' for c in "\u201c\u201d"},
    **{code: chr(code - 0xFEE0) for code in range(0xFF01, 0xFF5F)},  # full-width ASCII (＠, １２３)
}


def plain(text: str) -> str:
    """`text` with typographic dashes, spaces, quotes and full-width forms as ASCII; same length."""
    return text.translate(_PLAIN)


def detect(text: str) -> list[Region]:
    """Every PHI region of `text`, merged: sorted, non-overlapping, each with one label. The detectors
    read the plain form of the text (same offsets), so "123–45–6789" is the SSN "123-45-6789"."""
    text = plain(text)
    found = [*find_identifiers(text), *find_phones(text), *find_presidio_ids(text), *find_addresses(text)]
    names = find_names(text)
    found += [(start, end, "NAME") for start, end in names]
    found += row_dates_of_birth(text, names)
    found += dates_beside_dobs(text, found)
    found += form_row_dates(text)  # after the dates beside a DOB: a form row's date pulls no other date in
    found += [(start, end, "NAME") for start, end in later_mentions(text, names)]
    found = [r for r in found if r[2] == "NAME" or not is_code(text, r[0], r[1])]
    found += recurrences(text, found)
    rank = {label: i for i, label in enumerate(_LABEL_ORDER)}
    found.sort(key=lambda r: (r[0], -r[1], rank.get(r[2], len(rank))))
    merged: list[Region] = []
    for start, end, label in found:
        if merged and start < merged[-1][1]:
            prev = merged[-1]
            keep = prev[2] if rank.get(prev[2], 99) <= rank.get(label, 99) else label
            merged[-1] = (prev[0], max(prev[1], end), keep)
        else:
            merged.append((start, end, label))
    return merged


@dataclass(frozen=True)
class Redaction:
    """PHI regions of one text, found once; redacts the whole text or any span of it."""

    original: str
    regions: tuple[Region, ...]  # (start, end, label), sorted, non-overlapping

    @classmethod
    def of(cls, text: str) -> Redaction:
        """The redaction of `text`; the same text within a request is scanned once (memoised)."""
        with _MEMO_LOCK:
            hit = _MEMO.get(text)
            if hit is not None:
                _MEMO.move_to_end(text)
                return hit
        made = cls(text, tuple(detect(text)) if text else ())
        with _MEMO_LOCK:
            _MEMO[text] = made
            while len(_MEMO) > _MEMO_SIZE:
                _MEMO.popitem(last=False)
        return made

    @property
    def text(self) -> str:
        return self.span(0, len(self.original))

    @property
    def labels(self) -> tuple[str, ...]:
        return tuple(sorted({label for _, _, label in self.regions}))

    @property
    def values(self) -> tuple[tuple[str, str], ...]:
        """(value, label) of every region: what must be scrubbed from strings derived from the text."""
        return tuple((self.original[s:e], label) for s, e, label in self.regions)

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


_MEMO: OrderedDict[str, Redaction] = OrderedDict()
_MEMO_LOCK = Lock()


def redact(text: str) -> str:
    """The text with names, dates of birth, ids, phones, e-mails, addresses and other identifiers replaced."""
    return Redaction.of(text).text
