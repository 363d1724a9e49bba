"""Street addresses that the identifier patterns do not shape, found by `pyap` (US, Canada, UK).

pyap's own regexes are not linear on every input, so it only ever sees short windows around a
house number followed by a capitalised word, found first with RE2; the cost is bounded by the
number of such windows times the window size. It finds regions only.
"""

from __future__ import annotations

from typing import Final

import re2

from clauseguard.privacy.patterns import Region

_HOUSE_NUMBER: Final = re2.compile(r"\b[0-9]{1,6}[A-Za-z]?\s+[\p{Lu}]")
WINDOW: Final = 160
COUNTRIES: Final = ("US", "CA", "GB")
MAX_WINDOWS: Final = 200  # past this many house numbers in one text, the patterns alone answer


def find_addresses(text: str) -> list[Region]:
    import pyap  # type: ignore[import-untyped]

    out: list[Region] = []
    for count, m in enumerate(_HOUSE_NUMBER.finditer(text)):
        if count >= MAX_WINDOWS:
            break
        start = m.start()
        window = text[start:start + WINDOW]
        for country in COUNTRIES:
            for address in pyap.parse(window, country=country):
                found = window.find(address.full_address)
                if found >= 0:
                    out.append((start + found, start + found + len(address.full_address), "ADDRESS"))
    return out
