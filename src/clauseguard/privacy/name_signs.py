"""The signs around a run of words that make it a person's name whatever its words are: a message's
closing word or a dash before it (a sign-off), a title, an honorific after it, or a name in another
script beside it. Scripts without capitals ("佐藤 結衣", "김민준") are told by these signs alone.

A mixin of the name reader (names.py): it reads the reader's tokens and tables and decides nothing
on its own; it never looks at anything but the text given.
"""

from __future__ import annotations

from typing import Final

from clauseguard.privacy.name_tokens import Token, Tokens
from clauseguard.privacy.tables import Tables, fold

SENTENCE_END: Final = frozenset(".!?;:\n•*>")  # marks after which a sentence (or a line) starts


class Signs:
    """Signs of a name around a run; the reader supplies the tokens, tables and its own predicates."""

    text: str
    toks: Tokens
    t: Tables
    run_list: list[tuple[int, int]]
    run_at: dict[int, int]

    def particles_before(self, i: int) -> int:
        raise NotImplementedError

    def sentence_initial(self, i: int) -> bool:
        raise NotImplementedError

    def word_before(self, i: int) -> tuple[Token, int] | None:
        raise NotImplementedError

    def is_name(self, i: int, end: int) -> bool:
        raise NotImplementedError

    def _gap(self, a: int, b: int) -> bool:
        raise NotImplementedError

    def closing_before(self, i: int) -> bool:
        """A message's closing word and a comma right before the run, the closing opening its line or
        sentence ("Cheers, Tommo", "Kind regards,\nSolveig")."""
        j = self.particles_before(i) - 1
        if j < 1 or self.toks[j].text != "," or fold(self.toks[j - 1].text) not in self.t.cues.closings:
            return False
        k = j - 1
        while k > 0 and self.toks[k - 1].is_word and fold(self.toks[k - 1].text) in self.t.cues.closing_openers:
            k -= 1  # "Kind regards", "Many thanks", "All the best"
        return self.sentence_initial(k)

    def title_before(self, i: int) -> bool:
        before = self.word_before(i)
        return before is not None and fold(before[0].text) in self.t.cues.titles

    def dash_signoff(self, i: int, end: int) -> bool:
        """The run follows a dash that opens a sentence or a line and closes its line (or is followed by
        a comma and credentials): "Thanks. — Devorah", "\n- K. Tanaka, RN"."""
        j = self.particles_before(i) - 1
        if j < 0 or self.toks[j].text not in ("—", "–", "-", "--"):
            return False
        if j > 0 and not (self.toks[j - 1].text in SENTENCE_END or "\n" in self.text[self.toks[j - 1].end:self.toks[j].start]):
            return False
        if end == len(self.toks) or "\n" in self.text[self.toks[end - 1].end:self.toks[end].start]:
            return True
        return self.toks[end].text == "," and end + 1 < len(self.toks) and \
            fold(self.toks[end + 1].text) in self.t.cues.after_words

    def honorific_after(self, end: int) -> bool:
        """A form of address written after the name ("様", "さん", "씨", "님", "女士"), as its own token or
        joined to the name's last word (scripts without spaces)."""
        last = self.toks[end - 1].text
        if any(last.endswith(h) and len(last) > len(h) for h in self.t.cues.honorifics_after):
            return True
        return end < len(self.toks) and self._gap(end - 1, end) and self.toks[end].text in self.t.cues.honorifics_after

    def subject_of_latin_verb(self, i: int, end: int) -> bool:
        """An other-script run opening a sentence of a Latin-script text before a reporting verb
        ("王伟 presented for review")."""
        return self.sentence_initial(i) and end < len(self.toks) and not self.toks[end].other_script \
            and fold(self.toks[end].text) in self.t.cues.reporting_verbs

    def beside_a_name(self, i: int, end: int) -> bool:
        """The run is the other-script form of a Latin-script name right before or after it, in brackets:
        "Min-jun Kim (김민준)", "佐藤 結衣 (Sato Yui)"."""
        if i >= 2 and self.toks[i - 1].text == "(":
            before = next((a for a, b in self.run_list if b == i - 1), None)
            if before is not None and not any(t.other_script for t in self.toks[before:i - 1]) \
                    and self.is_name(before, i - 1):
                return True
        if end + 1 < len(self.toks) and self.toks[end].text == "(" and end + 1 in self.run_at:
            after = self.run_at[end + 1]
            if not any(t.other_script for t in self.toks[end + 1:after]) and self.is_name(end + 1, after):
                return True
        return False


MAX_NAME_BEFORE_HONORIFIC: Final = 4  # characters of a name written without spaces before its honorific


def before_honorifics(toks: Tokens, words: Tables) -> list[tuple[int, int]]:
    """A name joined to the words after it in a script without spaces: the characters that open a word
    and end at an honorific inside it ("佐々木様は来月より..." names 佐々木)."""
    out = []
    for k in range(len(toks)):
        tok = toks[k]
        if not tok.uncased:
            continue
        for h in words.cues.honorifics_after:
            at = tok.text.find(h)
            if 0 < at <= MAX_NAME_BEFORE_HONORIFIC and at + len(h) < len(tok.text):
                out.append((tok.start, tok.start + at))
    return out
