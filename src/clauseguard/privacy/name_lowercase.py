"""Names written in lower case, as in chat-style notes and texts typed on a phone ("pt john mwangi 45m",
"rn note - pt rashida bello"): capitals cannot mark them, so only a title or label right before them does.

After a cue of `cues.yaml` (a title, a label or a relative), up to three lower-case words are a name when
each is a name of the table or a word no table knows, and one of them is a name that is neither an
ordinary nor a clinical word ("pt denies pain", "dr office", "pt on metformin" stay). Linear: one look
ahead of at most MAX_WORDS tokens per cue. It finds spans only.
"""

from __future__ import annotations

from typing import Final

from clauseguard.privacy.name_tokens import DIGIT, Token, Tokens
from clauseguard.privacy.tables import NAME_STRONG, Tables, fold

MAX_WORDS: Final = 3  # lower-case words of one name
_AFTER_CUE: Final = (" ", ": ", ". ", ":", "-", " - ")  # what may stand between a cue and the name


def _stem(tok: Token) -> str:
    return tok.text.removesuffix("'s").removesuffix("’s")


def _may_be_part(tok: Token, words: Tables) -> bool:
    """A lower-case word without digits that is a name of the table or a word no table knows; not a
    cue ("pt dr"), nor a particle, which the main reader keeps with its capitalised name ("ter Haar")."""
    if not (tok.is_word and tok.text.islower() and not DIGIT.search(tok.text)):
        return False
    stem, folded = _stem(tok), fold(tok.text)
    if folded in words.cues.before or folded in words.cues.particles:
        return False
    return words.name_kind(stem) is not None or not (words.is_ordinary(stem) or words.is_clinical(stem))


def _only_a_name(tok: Token, words: Tables) -> bool:
    stem = _stem(tok)
    return words.name_kind(stem) == NAME_STRONG and not words.is_ordinary(stem) and not words.is_clinical(stem)


def lowercase_names(toks: Tokens, words: Tables) -> list[tuple[int, int]]:
    """Spans of lower-case names right after a title, label or relative ("pt john mwangi", "dr okafor")."""
    out: list[tuple[int, int]] = []
    text = toks.text
    for k in range(len(toks) - 1):
        cue = toks[k]
        if not cue.is_word or fold(cue.text) not in words.cues.before:
            continue
        j, gap_start = k + 1, cue.end
        if toks[j].text in (":", ".", "-"):
            j += 1
        run: list[Token] = []
        while j < len(toks) and len(run) < MAX_WORDS:
            tok = toks[j]
            before = text[(run[-1].end if run else gap_start):tok.start]
            if before not in (_AFTER_CUE if not run else (" ",)) or not _may_be_part(tok, words):
                break
            run.append(tok)
            j += 1
        while run and words.name_kind(_stem(run[-1])) is None:
            run.pop()  # a word no table knows closes no name: "pt rashida bello dob ..." keeps "dob"
        if run and any(_only_a_name(tok, words) for tok in run):
            last = run[-1]
            out.append((run[0].start, last.end - (2 if last.text.endswith(("'s", "’s")) else 0)))
    return out
