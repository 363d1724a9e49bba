"""Calendar dates and months as a question or a clause writes them ("1 December 2024", "March 3, 2025",
"April 2025", "2024-12-01"): never a value of a clause, and a timing fact of a question."""

from __future__ import annotations

import re
from typing import Final

# "May" is a month only with a year beside it: "up to 3 may be dispensed" is a count and a verb
_MONTH: Final = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|"
                 r"oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?")
_DAY: Final = r"\d{1,2}(?:st|nd|rd|th)?"
DATE: Final = re.compile(
    rf"\b{_DAY}\s+(?:of\s+)?{_MONTH}(?:,?\s+\d{{4}})?\b|\b{_MONTH}\s+{_DAY}(?:,?\s+\d{{4}})?\b|\b{_MONTH}\s+\d{{4}}\b"
    rf"|\b{_DAY}\s+(?:of\s+)?may,?\s+\d{{4}}\b|\bmay\s+(?:{_DAY},?\s+)?\d{{4}}\b"
    r"|\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}/\d{1,2}/\d{2,4}\b|\b(?:in|since|during|until|before|after|from)\s+(?:19|20)\d{2}\b",
    re.IGNORECASE)


def dates_in(text: str) -> list[str]:
    """The calendar dates and months a text names, as written."""
    return [m.group(0) for m in DATE.finditer(text)]
