"""List markers, bullets and joiner lines as printed: which glyphs are bullets (private-use Symbol and
Wingdings bullets normalised to the Unicode ones), which line starts a numbered, lettered or roman
item, which line is a joiner ("-AND-", "- OR -", "AND"). The joiner words are data (cues.yaml).

Typography only: it never decides nesting (that is position) or what the items mean.
"""

from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources
from typing import Any, Final

from clauseguard.datafiles import load_yaml
from clauseguard.errors import CorpusError, Problem

CUES_FORMAT: Final = "clauseguard.reader-cues/v1"

# Bullets as fonts print them -> the one Unicode bullet of their rank. Private-use code points are
# what Symbol and Wingdings bullets become when a word processor exports them.
BULLETS: Final[dict[str, str]] = {
    "\u2022": "\u2022", "\uf0b7": "\u2022", "\u25cf": "\u2022", "\uf06c": "\u2022", "\uf09f": "\u2022",
    "\u2219": "\u2022", "\u00b7": "\u2022", "\uf0a7": "\u25aa", "\u25aa": "\u25aa", "\u25a0": "\u25aa",
    "\uf06e": "\u25aa", "\uf0d8": "\u27a2", "\u27a2": "\u27a2", "\uf0fc": "\u2713", "\u2713": "\u2713",
    "o": "\u25e6", "\u25e6": "\u25e6", "\u25cb": "\u25e6", "\uf0a8": "\u25e6", "-": "\u2013", "\u2013": "\u2013",
    "\u2014": "\u2013", "*": "\u2022",
}
_PRIVATE_USE = re.compile("[\ue000-\uf8ff]")
_ORDINAL = r"(?:[0-9]{1,2}|[a-zA-Z]|[ivxlc]{1,6}|[IVXLC]{1,6})"
LIST_START: Final = re.compile(rf"^(?P<marker>\({_ORDINAL}\)|{_ORDINAL}[.)]|[\u2022\u25cf\u25aa\u25e6\u2013\uf0b7\uf0a7])\s+(?=\S)")


def is_bullet(text: str) -> bool:
    return text in BULLETS and text not in ("o", "-", "*")


def normal_marker(marker: str) -> str:
    """A marker as clause text shows it: bullets as their Unicode glyph, ordinals as printed."""
    return BULLETS.get(marker, marker)


def clean_glyphs(text: str) -> tuple[str, int]:
    """Private-use bullets as Unicode bullets and other private-use glyphs (which stand for no
    character) removed; returns the text and how many glyphs were removed."""
    removed = 0

    def swap(m: re.Match[str]) -> str:
        nonlocal removed
        found = BULLETS.get(m.group(0))
        if found is None:
            removed += 1
            return ""
        return found

    return _PRIVATE_USE.sub(swap, text), removed


def text_marker(text: str) -> str | None:
    """The marker a line opens with in its own text ("1. The patient", "(a) the quote"), or None."""
    m = LIST_START.match(text)
    return m.group("marker") if m else None


# -- cue words ------------------------------------------------------------------------------------


@lru_cache(maxsize=1)
def cues() -> dict[str, tuple[str, ...]]:
    """The reader's cue words (data/readers/cues.yaml), lower case."""
    path = resources.files("clauseguard") / "data" / "readers" / "cues.yaml"
    data: Any = load_yaml(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or data.get("format") != CUES_FORMAT:
        raise CorpusError([Problem(str(path), "format", f"expected 'format: {CUES_FORMAT}'")])
    return {str(k): tuple(str(w).lower() for w in v) for k, v in data.items() if isinstance(v, list)}


def joiner_line(text: str) -> str | None:
    """"-AND-", "- OR -", "(or)", "AND": a line that is only a joiner word set apart by dashes,
    brackets or capitals; returns it as printed (trimmed), else None."""
    shown = " ".join(text.split())
    bare = shown.strip("-\u2013\u2014()[] ").strip()
    if not bare or bare.lower() not in cues()["joiners"]:
        return None
    if bare.isupper() or shown != bare:
        return shown
    return None


def ends_with_joiner(text: str) -> bool:
    """An item that ends "...; and" or "..., or," leads into the next one."""
    words = text.rstrip(" ,;").rsplit(None, 1)
    return len(words) == 2 and words[1].lower() in cues()["joiners"]
