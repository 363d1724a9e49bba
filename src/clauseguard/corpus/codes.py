"""Code systems and the shapes of their codes (CPT, HCPCS Level II, ICD-10-CM).

Shared by corpus validation and request preflight; it knows shapes only, never what a code means.
Shapes are ASCII only: a full-width or Arabic-Indic digit is not a code digit (a Unicode-aware
digit class would let them pass as CPT, turning a malformed field into a REFUSE instead of a HALT).
"""

from __future__ import annotations

import re
from typing import Final, Literal

CodeSystem = Literal["CPT", "HCPCS", "ICD-10-CM"]
CODE_SYSTEMS: Final[tuple[str, ...]] = ("CPT", "HCPCS", "ICD-10-CM")
SYSTEM_ALIASES: Final[dict[str, str]] = {"ICD-10": "ICD-10-CM"}

_SHAPES: Final[dict[str, re.Pattern[str]]] = {
    "CPT": re.compile(r"[0-9]{5}|[0-9]{4}[A-Z]", re.ASCII),
    "HCPCS": re.compile(r"[A-Z][0-9]{4}", re.ASCII),
    "ICD-10-CM": re.compile(r"[A-Z][0-9][A-Z0-9](\.[A-Z0-9]{1,4})?", re.ASCII),
}
SHAPE_HELP: Final[dict[str, str]] = {
    "CPT": "five digits or four digits and a letter (99213, 0501T)",
    "HCPCS": "a letter and four digits (A9276, E1399)",
    "ICD-10-CM": "a letter, a digit, a letter or digit, then optionally a dot and one to four "
    "letters or digits (I10, E10.9, S83.511D)",
}


def canonical_system(system: str) -> str:
    """The system name as the corpus stores it (`ICD-10` is read as `ICD-10-CM`)."""
    return SYSTEM_ALIASES.get(system, system)


def has_shape(code: str, system: str) -> bool:
    """True when `code` is written the way `system` writes its codes."""
    pattern = _SHAPES.get(canonical_system(system))
    return bool(pattern and pattern.fullmatch(code))


def is_procedure_code(code: str) -> bool:
    """A CPT or HCPCS shape: what a determination's procedure codes must look like."""
    return has_shape(code, "CPT") or has_shape(code, "HCPCS")


def is_diagnosis_code(code: str) -> bool:
    """An ICD-10-CM shape: what a determination's diagnosis codes must look like."""
    return has_shape(code, "ICD-10-CM")
