"""The cached ICD-10-CM table answers exactly as simple-icd-10-cm does: every item of the tabular list
(chapters, blocks, categories, codes), each also written without its dot, and strings that are not
codes (lower case, spaces, a dot out of place, unknown codes)."""

from __future__ import annotations

from pathlib import Path

import pytest

from clauseguard.reading.facts import codes


@pytest.mark.slow
def test_the_cached_table_says_what_the_library_says() -> None:
    every = codes._icd().get_all_codes(True)
    assert len(every) > 90_000
    written = [*every, *(c.replace(".", "") for c in every if "." in c)]
    odd = ["e10.9", " E10.9", "E10..9", "E1.09", "Z99.999", "A0", "", "E10-", "U07.1", "XXX.X"]
    for code in [*written[::7], *odd]:
        codes.icd_entry.cache_clear()
        assert codes.icd_entry(code) == codes._library_entry(code), code


def test_the_table_is_read_back_from_its_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAUSEGUARD_HOME", str(tmp_path))
    codes._icd_table.cache_clear()
    codes.icd_entry.cache_clear()
    try:
        first = codes.icd_entry("E10.9")
        assert first is not None and "diabetes" in first[0].lower()
        assert list((tmp_path / "cache" / "icd").glob("*.marshal"))
        codes._icd_table.cache_clear()
        codes.icd_entry.cache_clear()
        assert codes.icd_entry("E109") == first  # from the file this time, dot or not
    finally:
        codes._icd_table.cache_clear()
        codes.icd_entry.cache_clear()
