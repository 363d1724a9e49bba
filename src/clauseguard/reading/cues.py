"""The cue words of search's extractive reader (`data/search/cues.yaml`) and the tests they give a
sentence: it denies, grants, restricts, is negative, names an approval phase. Data in, booleans out;
it never picks a value or an answer."""

from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources

from clauseguard import text as toolkit
from clauseguard.datafiles import load_yaml


@lru_cache(maxsize=1)
def cues() -> dict[str, re.Pattern[str] | list[re.Pattern[str]] | frozenset[str]]:
    raw = load_yaml((resources.files("clauseguard") / "data" / "search" / "cues.yaml").read_text("utf-8"))
    out: dict[str, re.Pattern[str] | list[re.Pattern[str]] | frozenset[str]] = {}
    for key in ("denies", "grants", "procedural", "occasions"):
        out[key] = [re.compile(rf"\b(?:{rx})", re.IGNORECASE) for rx in raw[key]]
    out["restricts"] = re.compile(rf"\b(?:{raw['restricts']})\b", re.IGNORECASE)
    out["excepts"] = re.compile(rf"\b(?:{raw['excepts']})\b", re.IGNORECASE)
    for side in ("excepts_below", "excepts_above"):  # the words just before an excepted case's figure
        out[side] = re.compile(rf"\b(?:{raw[side]})\s+(?:[a-z-]+\s*\(\s*)?$", re.IGNORECASE)
    out["unchanged"] = re.compile(rf"\b(?:{raw['unchanged']})\b", re.IGNORECASE)
    out["negators"] = re.compile(rf"\b(?:{raw['negators']})\b", re.IGNORECASE)
    for key in ("member_minor", "member_adult"):
        out[key] = re.compile(rf"\b(?:{raw[key]})\b", re.IGNORECASE)
    for phase, rx in raw["phases"].items():
        out[f"phase:{phase}"] = re.compile(rf"\b(?:{rx})\b", re.IGNORECASE)
    out["framing_sections"] = re.compile(rf"^\W*(?:\w+\s+\d+\.?\s*)?(?:{raw['framing_sections']})\b", re.IGNORECASE)
    out["circumstances"] = frozenset(str(raw["circumstances"]).split())
    out["paying"] = frozenset(toolkit.stem(w) for w in str(raw["paying"]).split())
    for word, wider in raw["relatives"].items():
        out[f"relative:{toolkit.stem(word)}"] = frozenset(toolkit.stem(w) for w in str(wider).split())
    return out


def broader(term: str) -> frozenset[str]:
    """The stems of the broader words a policy may use for a relative the question names ("father" ->
    parent, relative, family); empty for any other word."""
    found = cues().get(f"relative:{term}", frozenset())
    assert isinstance(found, frozenset)
    return found


def _patterns(key: str) -> list[re.Pattern[str]]:
    found = cues()[key]
    assert isinstance(found, list)
    return found


def frames(section: str) -> bool:
    """True for a section that describes the document (history, evidence, references), never governs."""
    pattern = cues()["framing_sections"]
    assert isinstance(pattern, re.Pattern)
    return bool(pattern.search(section))


def paying_terms() -> frozenset[str]:
    """The stems of the words for "the plan pays for it" (cover, reimburse, pay), one meaning everywhere."""
    found = cues()["paying"]
    assert isinstance(found, frozenset)
    return found


def circumstance_words() -> frozenset[str]:
    found = cues()["circumstances"]
    assert isinstance(found, frozenset)
    return found


def member_ages(text: str) -> tuple[float | None, float | None] | None:
    """The ages a text's member words imply ("per child": under 18; "for adults": 18 and over), or None when it
    names neither kind, or both."""
    minor, adult = cues()["member_minor"], cues()["member_adult"]
    assert isinstance(minor, re.Pattern) and isinstance(adult, re.Pattern)
    young, grown = bool(minor.search(text)), bool(adult.search(text))
    if young == grown:
        return None
    return (None, 18.0 - 1e-9) if young else (18.0, None)


def denies(text: str) -> bool:
    return any(p.search(text) for p in _patterns("denies"))


def grants(text: str) -> bool:
    return any(p.search(text) for p in _patterns("grants"))


def negative(text: str, before: int | None = None) -> bool:
    """True when the sentence holds a negative word (it may refuse a case, read as a denial or not),
    before the position `before` when given."""
    pattern = cues()["negators"]
    assert isinstance(pattern, re.Pattern)
    return bool(pattern.search(text, 0, len(text) if before is None else before))


def phases(text: str) -> frozenset[str]:
    """The approval phases a text names ("initial", "continuation"), from the cue file."""
    found = set()
    for key, pattern in cues().items():
        if key.startswith("phase:") and isinstance(pattern, re.Pattern) and pattern.search(text):
            found.add(key.removeprefix("phase:"))
    return frozenset(found)


def phase_named(text: str) -> str | None:
    """The words naming an approval phase, as written ("Initial approval" -> "Initial"), or None."""
    found = [m for key, pattern in cues().items() if key.startswith("phase:") and isinstance(pattern, re.Pattern)
             and (m := pattern.search(text)) is not None]
    return min(found, key=lambda m: m.start()).group(0) if found else None


def denial_at(text: str) -> int | None:
    """Where the sentence first refuses (a denial cue or a negative word), or None when it refuses nothing."""
    pattern = cues()["negators"]
    assert isinstance(pattern, re.Pattern)
    found = [m.start() for p in [*_patterns("denies"), pattern] if (m := p.search(text))]
    return min(found) if found else None


def grant_at(text: str) -> int | None:
    """Where the first grant cue of the sentence starts, or None when it grants nothing."""
    found = [m.start() for p in _patterns("grants") if (m := p.search(text))]
    return min(found) if found else None


def leaves_unchanged(text: str) -> bool:
    """True for a sentence that says an amendment leaves something as it was ("does not change the lubricant
    quantity", "... continue to apply")."""
    pattern = cues()["unchanged"]
    assert isinstance(pattern, re.Pattern)
    return bool(pattern.search(text))


def restricts(text: str) -> bool:
    return restriction_cue(text) is not None


def exception_cue(text: str) -> re.Match[str] | None:
    """The first "unless / except when" of the text (the cue file's `excepts`), or None."""
    pattern = cues()["excepts"]
    assert isinstance(pattern, re.Pattern)
    return pattern.search(text)


def side_of_figure(before: str) -> str | None:
    """"upper" when the words before a figure bound it from above ("less than three ("), "lower" from below
    ("at least"), else None (the cue file's `excepts_below` / `excepts_above`)."""
    for side, key in (("upper", "excepts_below"), ("lower", "excepts_above")):
        pattern = cues()[key]
        assert isinstance(pattern, re.Pattern)
        if pattern.search(before):
            return side
    return None


def restriction_cue(text: str) -> re.Match[str] | None:
    """The first "only when / only after / solely if" of the text (the cue file's `restricts`), or None."""
    pattern = cues()["restricts"]
    assert isinstance(pattern, re.Pattern)
    return pattern.search(text)
