"""Person names in free text, with or without a label before them.

A capitalised run of words is a name when a cue says so (a title, a label such as "Patient" or
"Pt:", a relative, a degree after it), when it holds a name from the name table, when two of its
words are names ("Faith Young"), or by the vocabulary rule: a capitalised word that is neither
ordinary English nor clinical vocabulary is taken for a name. Clinical eponyms ("Crohn's disease",
"Parkinson's") are kept. It never reads the corpus and never looks at anything but the text given.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final

import re2

from clauseguard.privacy.tables import NAME_STRONG, Tables, fold, tables

# Words (letters with inner apostrophes or hyphens), and single punctuation marks.
_TOKEN: Final = re2.compile(r"[\p{L}\p{M}][\p{L}\p{M}0-9]*(?:['’][\p{L}\p{M}]+|-[\p{L}\p{M}0-9]+)*|[0-9]+|[^\s\p{L}\p{M}0-9]")
# A word in a script other than Latin (Greek is left out: its letters name receptors and doses).
_OTHER_SCRIPT: Final = re2.compile(r"[^\p{Latin}\p{Greek}\p{Common}\p{Inherited}]")
_SENTENCE_END: Final = frozenset(".!?;:\n•*>")
_OPENERS: Final = frozenset("([\"'“‘-–—")
MAX_RUN: Final = 6  # words in one name


@dataclass(frozen=True)
class Token:
    start: int
    end: int
    text: str

    @property
    def is_word(self) -> bool:
        return self.text[0].isalpha()

    @property
    def capitalised(self) -> bool:
        """Title case (Smith, McCarthy, O'Brien) or all capitals of two letters or more (SMITH)."""
        first = self.text[0]
        return first.isupper() or (self.is_word and bool(_OTHER_SCRIPT.search(first)))

    @property
    def all_caps(self) -> bool:
        letters = [c for c in self.text if c.isalpha()]
        return len(letters) >= 2 and all(c.isupper() for c in letters)

    @property
    def initial(self) -> bool:
        return len(self.text) == 1 and self.text.isupper()

    @property
    def other_script(self) -> bool:
        return self.is_word and bool(_OTHER_SCRIPT.search(self.text))


def tokens_of(text: str) -> list[Token]:
    return [Token(m.start(), m.end(), m.group()) for m in _TOKEN.finditer(text)]


_PREFIXED: Final = re2.compile(r"[a-z]{1,3}['’-]\p{Lu}")  # al-Rashid, d'Angelo, bin-Talal


def _stem(word: str) -> str:
    return word.removesuffix("'s").removesuffix("’s")


class _Reader:
    """One pass over one text's tokens."""

    def __init__(self, text: str, words: Tables) -> None:
        self.text = text
        self.t = words
        self.toks = tokens_of(text)
        self.run_list = list(self._runs())
        self.run_at = dict(self.run_list)

    def sentence_initial(self, i: int) -> bool:
        j = i - 1
        while j >= 0 and self.toks[j].text in _OPENERS:
            j -= 1
        if j < 0:
            return True
        prev = self.toks[j]
        return prev.text in _SENTENCE_END or "\n" in self.text[prev.end:self.toks[i].start]

    def word_before(self, i: int) -> Token | None:
        """The word before token i, skipping a colon, hash, period or dash ("Pt: ", "Dr. ", "Name - ")."""
        j = i - 1
        while j >= 0 and self.toks[j].text in ":#.-–=":
            j -= 1
        return self.toks[j] if j >= 0 and self.toks[j].is_word else None

    def name_like(self, tok: Token) -> bool:
        if not tok.is_word or any(c.isdigit() for c in tok.text):
            return False
        return tok.capitalised or tok.other_script or bool(_PREFIXED.match(tok.text))

    def particles_then_name(self, j: int) -> bool:
        """Token j starts one or more name particles followed by a capitalised word (de la Cruz)."""
        while j < len(self.toks) and fold(self.toks[j].text) in self.t.cues.particles:
            j += 1
        return j < len(self.toks) and self.name_like(self.toks[j])

    def is_cue(self, tok: Token) -> bool:
        return fold(tok.text) in self.t.cues.before

    def _runs(self) -> Iterator[tuple[int, int]]:
        """Maximal runs of capitalised words, with initials and name particles inside (token index
        range); a label or title opening a run is left out of it ("Patient John Smith")."""
        i, n = 0, len(self.toks)
        while i < n:
            if not self.name_like(self.toks[i]):
                i += 1
                continue
            j = i + 1
            while j < n and j - i < MAX_RUN * 2:
                tok, prev = self.toks[j], self.toks[j - 1]
                gap = self.text[prev.end:tok.start]
                if gap not in ("", " "):
                    break
                if gap == "" and not (tok.text == "." and prev.initial):
                    break
                if self.name_like(tok) or tok.text == ".":
                    j += 1
                elif self.particles_then_name(j):
                    j += 1
                else:
                    break
            while i < j - 1 and self.is_cue(self.toks[i]):
                yield i, i + 1
                i += 1
            yield i, j
            i = j

    def clinical_context(self, i: int, end: int, words: list[Token]) -> bool:
        """The run is an eponym or another clinical term: possessive of a clinical word, before a
        clinical head word, or clinical words that are no names ("Crohn's disease", "Hodgkin
        lymphoma", "Parkinson's", "Metformin")."""
        if all(self.t.is_clinical(_stem(w.text)) for w in words):
            if words[-1].text.endswith(("'s", "’s")) or all(self.t.name_kind(_stem(w.text)) is None for w in words):
                return True
        nxt = self.toks[end] if end < len(self.toks) else None
        return nxt is not None and nxt.is_word and fold(nxt.text) in self.t.cues.clinical_heads and all(
            self.t.is_clinical(_stem(w.text)) or self.t.name_kind(_stem(w.text)) is None for w in words)

    def cue_after(self, end: int) -> bool:
        """A degree ("Jane Doe, MD"), or a relative ("Jane Doe is his wife", "Jane Doe (daughter)")."""
        rest = [t for t in self.toks[end:end + 5] if t.text not in ",()"]
        if not rest:
            return False
        if fold(rest[0].text) in self.t.cues.after_words and rest[0].all_caps:
            return True
        words = [fold(t.text) for t in rest if t.is_word]
        if words and words[0] in self.t.cues.relatives:
            return True
        return len(words) >= 3 and words[0] in ("is", "was", "s") and words[2] in self.t.cues.relatives

    def is_name(self, i: int, end: int) -> bool:
        run = self.toks[i:end]
        words = [t for t in run if t.is_word and not t.initial and fold(t.text) not in self.t.cues.particles]
        if not words or all(self.is_cue(w) for w in words):
            return False
        before = self.word_before(i)
        if before is not None and self.is_cue(before):
            return True
        if any(w.other_script for w in words):
            return True
        if self.clinical_context(i, end, words):
            return False
        kinds = [None if (w.all_caps and len(w.text) <= 3) else self.t.name_kind(_stem(w.text)) for w in words]
        if any(k == NAME_STRONG for k in kinds) or sum(k is not None for k in kinds) >= 2:
            return True
        if self.cue_after(end) and (any(k is not None for k in kinds)
                                    or not all(self.t.is_ordinary(w.text) for w in words)):
            return True
        # The vocabulary rule: a Title-case word that is neither ordinary nor clinical is a name.
        if any(not w.all_caps and len(w.text) > 1 and not self.t.is_ordinary(_stem(w.text))
               and not self.t.is_clinical(_stem(w.text)) for w in words):
            return True
        return self._weak_name_in_position(i, end, words, kinds)

    def _weak_name_in_position(self, i: int, end: int, words: list[Token], kinds: list[str | None]) -> bool:
        """A name that is also a word ("Hope", "Grace") counts where a word would not be capitalised:
        inside a sentence, or opening one before a reporting verb or an apposition ("Hope, 34, ...")."""
        if len(words) != 1 or kinds[0] is None or words[0].all_caps:
            return False
        word = fold(_stem(words[0].text))
        if word in self.t.cues.calendar:
            return False
        if not self.sentence_initial(i):
            return not self.t.is_clinical(word)
        nxt = self.toks[end] if end < len(self.toks) else None
        if nxt is None:
            return False
        return nxt.text in ",(" or words[0].text.endswith(("'s", "’s")) or fold(nxt.text) in self.t.cues.reporting_verbs

    def regions(self) -> list[tuple[int, int]]:
        out: list[tuple[int, int]] = []
        for i, end in self.run_list:
            if not self.is_name(i, end):
                continue
            stop = end
            # 'SMITH, JOHN' / 'Smith, John A.': a surname-first name continues after the comma.
            if end + 1 < len(self.toks) and self.toks[end].text == "," and end + 1 in self.run_at:
                nxt = self.run_at[end + 1]
                after = [t for t in self.toks[end + 1:nxt] if t.is_word]
                names = [self.t.name_kind(_stem(t.text)) for t in after]
                degree = all(fold(t.text) in self.t.cues.after_words for t in after)
                if not degree and (self.toks[i].all_caps or any(k is not None for k in names)):
                    stop = nxt
            last = self.toks[stop - 1]
            finish = last.end - (2 if last.text.endswith(("'s", "’s")) else 0)
            out.append((self.toks[i].start, finish))
        return out


def find_names(text: str) -> list[tuple[int, int]]:
    """Character spans of the person names in `text`, in order."""
    return _Reader(text, tables()).regions()
