"""The signs that a capitalised run is a clinical term and not a person: an eponym before or ending in a
clinical head word ("Crohn's disease", "Wilms tumor", "Epworth Sleepiness Scale"), a possessive of a
clinical word, or a product in a therapy context ("started Xarelto", "Humira 40 mg").

A mixin of the name reader (names.py): it reads the reader's tokens and tables and decides nothing
on its own; it never looks at anything but the text given.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left

from clauseguard.privacy.name_tokens import Token, Tokens
from clauseguard.privacy.tables import NAME_STRONG, Tables, fold
from clauseguard.text import STOP_WORDS


def _stem(word: str) -> str:
    return word.removesuffix("'s").removesuffix("’s")


class Terms:
    """Clinical-term signs around a run; the reader supplies the tokens, tables and its own predicates."""

    text: str
    toks: Tokens
    t: Tables
    starts: array[int]
    run_at: dict[int, int]

    def _gap(self, a: int, b: int) -> bool:
        raise NotImplementedError

    def word_kind(self, w: Token) -> str | None:
        raise NotImplementedError

    def heads_follow(self, end: int) -> bool:
        """Lower-case clinical words follow the run up to a clinical head word ("Wilms tumor",
        "Roux-en-Y gastric bypass", "Karnofsky performance status"), also after a second eponym
        joined by "and" ("Hoehn and Yahr stage 3")."""
        j, n = end, len(self.toks)
        if j + 1 < n and self.toks[j].text in ("and", "&") and j + 1 in self.run_at \
                and self._gap(j - 1, j) and self._gap(j, j + 1):
            j = self.run_at[j + 1]
        for k in range(j, min(j + 3, n)):
            tok = self.toks[k]
            if not (tok.is_word and tok.text.islower() and self._gap(k - 1, k)):
                return False
            if fold(tok.text) in self.t.cues.clinical_heads:
                return True
            if not self.t.is_clinical(tok.text) or self.verb_or_function_word(tok):
                return False  # "Grace prefers surgery", "Tomás has type 1": a sentence about a person
        return False

    def verb_or_function_word(self, tok: Token) -> bool:
        """A reporting verb or a function word: it starts a predicate, never sits inside a clinical term."""
        folded = fold(tok.text)
        return folded in self.t.cues.reporting_verbs or folded in STOP_WORDS

    def clinical_after(self, offset: int) -> bool:
        """A clinical head word follows the character offset ("Parkinson's disease", "Wilms tumor")."""
        k = bisect_left(self.starts, offset)
        while k < len(self.toks) and self.toks[k].text in ("'s", "’s", "'", "’"):
            k += 1
        return k < len(self.toks) and self.toks[k].is_word and self.toks[k].text.islower() and self.heads_follow(k)

    def therapy_context(self, i: int, end: int) -> bool:
        """A therapy word before or after the run ("started Xarelto", "Humira 40 mg", "Omnipod pods"),
        or a generic name in brackets beside it ("Leqembi (lecanemab)", "lecanemab (Leqembi)")."""
        before = self.toks[i - 1] if i > 0 else None
        if before is not None and before.is_word and before.text.islower() and fold(before.text) in self.t.cues.therapy_before:
            return True
        after = self.toks[end:end + 3]
        if after and (fold(after[0].text) in self.t.cues.therapy_after or after[0].text.isdigit()
                      and len(after) > 1 and fold(after[1].text) in self.t.cues.therapy_after):
            return True
        if len(after) == 3 and after[0].text == "(" and after[2].text == ")" and after[1].text.islower() \
                and self.t.is_clinical(after[1].text):
            return True
        return i >= 2 and before is not None and before.text == "(" and self.toks[i - 2].text.islower() \
            and self.t.is_clinical(self.toks[i - 2].text)

    def eponym(self, end: int, words: list[Token]) -> bool:
        """A clinical term named after a person, not a person: one word (or a hyphenated pair, or a
        possessive) before clinical head words, or a capitalised term ending in a head word
        ("Epworth Sleepiness Scale", "Harvey-Bradshaw Index")."""
        if len(words) >= 2 and fold(_stem(words[-1].text)) in self.t.cues.clinical_heads:
            return True
        words = [w for w in words if fold(w.text) not in STOP_WORDS] or words  # "The King-Devick test"
        words = [w for w in words if not w.all_caps] or words  # "PET-CT Deauville score"
        # one word, a possessive, or words no name table lists ("Phonak Audéo hearing aids")
        short = len(words) == 1 or words[-1].text.endswith(("'s", "’s")) or all(
            self.word_kind(w) is None for w in words)
        return short and len(words) <= 3 and self.heads_follow(end)

    def clinical_context(self, i: int, end: int, words: list[Token]) -> bool:
        """The run is an eponym or another clinical term: an eponym before its head word, possessive of
        a clinical word, or clinical words that are no names ("Crohn's disease", "Hodgkin lymphoma",
        "Parkinson's", "Metformin", "Henoch-Schönlein")."""
        if self.eponym(end, words):
            return True
        if all(self.t.is_clinical(_stem(w.text)) for w in words):
            return words[-1].text.endswith(("'s", "’s")) or all(
                k != NAME_STRONG for w in words for k in self.t.part_kinds(_stem(w.text))) and all(
                self.t.name_kind(_stem(w.text)) is None for w in words)
        return False
