"""An identifier found once is the same identifier wherever its exact text recurs: a date of birth, an
id, an e-mail or a phone read back later ("DOB 14 March 1962 ... the card says 14 March 1962",
"Member ID: XK4471 ... confirm XK4471"), where no label stands before the second one.

Names have their own rule (name_mentions.py: a word of a name recurs alone). Linear: one RE2
alternation of the values found over the text. It finds regions only.
"""

from __future__ import annotations

from typing import Final

import re2

from clauseguard.privacy.patterns import Region

MIN_LENGTH: Final = 4  # characters of a value looked for again (a lone "12" is no identifier)
MAX_VALUES: Final = 500  # distinct values looked for again in one text
_LABELS: Final = frozenset({"DOB", "ID", "SSN", "EMAIL", "PHONE", "URL", "IP"})


def recurrences(text: str, found: list[Region]) -> list[Region]:
    """Every other whole occurrence (not inside a longer word or number) of the exact text of a region
    found with one of _LABELS, with that region's label."""
    label_of: dict[str, str] = {}
    for start, end, label in found:
        value = text[start:end].strip()
        if label in _LABELS and len(value) >= MIN_LENGTH and any(c.isdigit() or c == "@" for c in value):
            label_of.setdefault(value, label)
    if not label_of or len(label_of) > MAX_VALUES:
        return []
    values = sorted(label_of, key=lambda v: (-len(v), v))
    pattern = re2.compile("|".join(re2.escape(v) for v in values))
    out: list[Region] = []
    for m in pattern.finditer(text):
        start, end = m.start(), m.end()
        if start > 0 and text[start - 1].isalnum() or end < len(text) and text[end].isalnum():
            continue
        out.append((start, end, label_of[m.group()]))
    return out
