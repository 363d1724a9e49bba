"""Code shapes are ASCII: full-width and Arabic-Indic digits are not CPT/HCPCS/ICD digits."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from clauseguard.corpus.codes import has_shape, is_diagnosis_code, is_procedure_code

FULL_WIDTH = str.maketrans("0123456789", "０１２３４５６７８９")
ARABIC_INDIC = str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩")


@pytest.mark.parametrize("code", ["99213", "0501T", "A9276", "E10.9"])
@pytest.mark.parametrize("table", [FULL_WIDTH, ARABIC_INDIC], ids=["full-width", "arabic-indic"])
def test_unicode_digits_are_not_code_digits(code: str, table: dict[int, str]) -> None:
    assert not (is_procedure_code(code.translate(table)) or is_diagnosis_code(code.translate(table)))


@given(st.text(min_size=3, max_size=8))
def test_every_accepted_code_is_ascii(code: str) -> None:
    for system in ("CPT", "HCPCS", "ICD-10-CM"):
        if has_shape(code, system):
            assert code.isascii() and code == code.strip()
