"""Telephone numbers in any format and region, with or without a country code or a label.

Candidates are digit groups found by one RE2 pattern (linear time); `phonenumbers` then says whether
a candidate is a possible number in any of the regions it is tried in. A run of seven or more
digits that is no phone number is still an identifier. ISO dates and year ranges are not numbers
to hide. It finds regions only and never calls out to anything.
"""

from __future__ import annotations

from typing import Final

import phonenumbers
import re2

from clauseguard.privacy.patterns import Region

# Regions a number without a country code is tried in: where the members and the names of the
# field's test corpora come from (North America, the British Isles, Europe, India, Nigeria, Asia).
REGIONS: Final = ("US", "GB", "IE", "FR", "DE", "ES", "PL", "IN", "NG", "VN", "CN", "AU", "ZA", "BR", "MX", "AE")
_CANDIDATE: Final = re2.compile(
    r"(?:\+|\b00)?\(?[0-9][0-9 ().\-/]{4,24}[0-9](?:\s*(?:ext\.?|extn\.?|x|#)\s*[0-9]{1,6})?\b"
)
_NOT_A_NUMBER: Final = re2.compile(
    r"\b(?:19|20)[0-9]{2}-[0-9]{2}-[0-9]{2}\b|\b[0-9]{1,2}/[0-9]{1,2}/[0-9]{2,4}\b|\b(?:19|20)[0-9]{2}\s?[-–/]\s?(?:19|20)[0-9]{2}\b"
    r"|\b[0-9]+\.[0-9]+\b|\b[0-9]{1,3}/[0-9]{1,3}\b"
)
_DATE_INSIDE: Final = re2.compile(
    r"\b(?:19|20)[0-9]{2}-[0-9]{2}-[0-9]{2}\b|\b[0-9]{1,2}/[0-9]{1,2}/[0-9]{2,4}\b|\b(?:19|20)[0-9]{2}\s?[-–/]\s?(?:19|20)[0-9]{2}\b"
)
_EXTENSION: Final = re2.compile(r"(?i)(?:ext\.?|extn\.?|x|#)\s*[0-9]{1,6}$")
MIN_DIGITS: Final = 7
# phonenumbers only names a region PHONE or ID (both are redacted); past this many candidates in one
# text the rest are labelled PHONE unchecked, so a wall of digits costs RE2 time, not parser time.
MAX_CHECKED: Final = 200
MAX_DIGITS: Final = 15


def _pieces(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The candidate split around dates, ranges and decimals inside it."""
    pieces, pos = [], start
    for m in _NOT_A_NUMBER.finditer(text[start:end]):  # a slice: the binding re-encodes its input per call
        if start + m.start() > pos:
            pieces.append((pos, start + m.start()))
        pos = start + m.end()
    if pos < end:
        pieces.append((pos, end))
    return pieces


def _trimmed(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and not (text[start].isdigit() or text[start] in "+("):
        start += 1
    while end > start and not text[end - 1].isdigit():
        end -= 1
    return start, end


# Procedure codes side by side ("97110 97530", "29881 29880 29877"): groups of exactly five digits
# are CPT codes, not a phone number split in an unusual way.
_CODE_LIST: Final = re2.compile(r"[0-9]{5}(?:[ ,;/]+[0-9]{5})+")


def _is_phone(candidate: str) -> bool:
    if _CODE_LIST.fullmatch(candidate.strip()):
        return False
    number = _EXTENSION.sub("", candidate).strip()
    for region in REGIONS:
        try:
            parsed = phonenumbers.parse(number, region)
        except phonenumbers.NumberParseException:
            continue
        if phonenumbers.is_possible_number(parsed):
            return True
    return False


def find_phones(text: str) -> list[Region]:
    """PHONE regions (possible numbers) and ID regions (other runs of seven digits or more)."""
    out: list[Region] = []
    for count, m in enumerate(_CANDIDATE.finditer(text)):
        start, end = _trimmed(text, m.start(), m.end())
        whole = text[start:end]
        if count >= MAX_CHECKED:
            if sum(c.isdigit() for c in whole) >= MIN_DIGITS:
                out.append((start, end, "PHONE"))
            continue
        if MIN_DIGITS <= sum(c.isdigit() for c in whole) <= MAX_DIGITS + 6 and not _DATE_INSIDE.search(whole) \
                and _is_phone(whole):
            out.append((start, end, "PHONE"))  # "555.123.4567" is a number, not two decimals
            continue
        for piece_start, piece_end in _pieces(text, m.start(), m.end()):
            start, end = _trimmed(text, piece_start, piece_end)
            digits = sum(c.isdigit() for c in text[start:end])
            if digits < MIN_DIGITS or _CODE_LIST.fullmatch(text[start:end]):
                continue
            if digits <= MAX_DIGITS + 6 and _is_phone(text[start:end]):
                out.append((start, end, "PHONE"))
            else:
                out.append((start, end, "ID"))
    return out
