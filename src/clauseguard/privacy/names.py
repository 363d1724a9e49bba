"""Person names in free text, with or without a label before them.

A capitalised run of words is a name when a cue says so (a title, a label such as "Patient" or
"Pt:", a header word before a colon, a relative, a degree after it), when it holds a name from the
name table, when two of its words are names ("Faith Young"), or by the vocabulary rule: a capitalised
word that is neither ordinary English nor clinical vocabulary is a name in a run of several words or
in a name position (a sentence's subject before a verb, a sign-off line). Clinical terms are kept:
eponyms before or ending in a clinical head word ("Crohn's disease", "Wilms tumor", "Epworth
Sleepiness Scale"), acronyms, and products in a therapy context ("started Xarelto") (name_terms.py).
Names typed in lower case are read after a cue only (name_lowercase.py). A word of a name found once
is a name wherever it recurs (name_mentions.py). It never reads the corpus and never looks at
anything but the text given.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Final

from clauseguard.privacy.name_lowercase import lowercase_names
from clauseguard.privacy.name_signs import SENTENCE_END, Signs, before_honorifics
from clauseguard.privacy.name_terms import Terms, _stem
from clauseguard.privacy.name_tokens import DIGIT, Token, Tokens
from clauseguard.privacy.tables import NAME_STRONG, NAME_WEAK, Tables, fold, tables
from clauseguard.text import STOP_WORDS

_OPENERS: Final = frozenset("([\"'“‘-–—")
MAX_RUN: Final = 6  # words in one name


_PREFIXED: Final = re.compile(r"[a-z]{1,3}['’-][^\W\d_]")  # al-Rashid, d'Angelo, bin-Talal (then a capital)


def _prefixed(word: str) -> bool:
    m = _PREFIXED.match(word)
    return m is not None and word[m.end() - 1].isupper()


def _acronym(word: str) -> bool:
    """Two capitals inside a word after a small letter: an acronym or a brand (MoCA, BiPAP), not a name
    (McDonald, DeShawn and LaToya have one)."""
    return any(a.islower() and b.isupper() and c.isupper() for a, b, c in zip(word, word[1:], word[2:], strict=False))


# Calendar words read as a name before a verb ("Thu is 84"), but not before a modal ("May I").
_MODALS: Final = frozenset({"may", "might", "can", "could", "will", "would", "should", "must", "did", "does"})


class _Reader(Signs, Terms):
    """One pass over one text's tokens."""

    def __init__(self, text: str, words: Tables) -> None:
        self.text = text
        self.t = words
        self.toks = Tokens(text)
        self.starts = self.toks.starts
        self.run_list = list(self._runs())
        self.run_at = dict(self.run_list)

    def particles_before(self, i: int) -> int:
        """The index where lower-case particles right before token i begin ("von Hohenberg", "ter Haar")."""
        while i > 0 and self.is_particle(self.toks[i - 1]) and self._gap(i - 1, i):
            i -= 1
        return i

    def sentence_initial(self, i: int) -> bool:
        j = self.particles_before(i) - 1
        while j >= 0 and self.toks[j].text in _OPENERS:
            j -= 1
        if j < 0:
            return True
        prev = self.toks[j]
        return prev.text in SENTENCE_END or "\n" in self.text[prev.end:self.toks[i].start]

    def word_before(self, i: int) -> tuple[Token, int] | None:
        """The word before token i and its index, skipping a colon, hash, period or dash ("Pt: ", "Dr. ")."""
        j = self.particles_before(i) - 1
        while j >= 0 and self.toks[j].text in ":#.-–=":
            j -= 1
        return (self.toks[j], j) if j >= 0 and self.toks[j].is_word else None

    def cue_before(self, i: int) -> bool:
        before = self.word_before(i)
        if before is not None and fold(before[0].text) in self.t.cues.relatives \
                and "." in self.text[before[0].end:self.toks[i].start]:
            return self.closing_before(i)  # "seen by her brother. Covered?": a full stop ends the relative's sentence
        return before is not None and self.is_cue(*before) or self.closing_before(i)

    def relative_before(self, i: int) -> bool:
        before = self.word_before(i)
        return before is not None and fold(before[0].text) in self.t.cues.relatives

    def name_like(self, tok: Token) -> bool:
        if not tok.is_word or DIGIT.search(tok.text):
            return False
        # a cased script's lower-case word ("фуросемид") is no more a name than a Latin one
        return (tok.other_script and tok.uncased) or (tok.text[0].isupper()) or _prefixed(tok.text)

    def is_particle(self, tok: Token) -> bool:
        """A name particle as written in lower case ("de", "van", "ní"); "Văn" and "Lê" are names."""
        return tok.text.islower() and fold(tok.text) in self.t.cues.particles

    def particles_then_name(self, j: int) -> bool:
        """Token j starts one or more name particles followed by a capitalised word (de la Cruz)."""
        while j < len(self.toks) and self.is_particle(self.toks[j]):
            j += 1
        return j < len(self.toks) and self.name_like(self.toks[j])

    def is_cue(self, tok: Token, i: int | None = None) -> bool:
        """A title, label or relative before a name; a header word ("From", "Re") only before a colon."""
        folded = fold(tok.text)
        if folded in self.t.cues.before:
            return True
        return (i is not None and folded in self.t.cues.before_colon and i + 1 < len(self.toks)
                and self.toks[i + 1].text == ":")

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
                if prev.text.endswith(("'s", "’s")) and self.t.is_clinical(tok.text) and self.word_kind(tok) is None:
                    break  # a possessive ends a name: "Mrs Okafor's Dupixent renewal"
                if tok.is_word and prev.is_word and tok.uncased != prev.uncased:
                    break  # a name is written in one script: "Chen Zhiqiang 随访两周"
                if self.name_like(tok) or tok.text == ".":
                    j += 1
                elif self.particles_then_name(j):
                    j += 1
                else:
                    break
            start = i
            for k in range(i + 1, j - 1):  # "Dear Dr Kang": a title inside the run opens the name
                if self.toks[k].is_word and fold(self.toks[k].text) in self.t.cues.before and k > start:
                    yield start, k
                    start = k
            while start < j - 1 and self.is_cue(self.toks[start]):
                yield start, start + 1
                start += 1
            yield start, j
            i = j

    def _gap(self, a: int, b: int) -> bool:
        """Only spaces (no line break, no punctuation) between tokens a and b."""
        return a >= 0 and self.text[self.toks[a].end:self.toks[b].start] in (" ", "")

    def cue_after(self, end: int) -> bool:
        """A degree ("Jane Doe, MD"), or a relative ("Jane Doe is his wife", "Jane Doe (daughter)")."""
        rest = [t for t in self.toks[end:end + 5] if t.text not in ",()"]
        if not rest or not rest[0].is_word:
            return False  # "FHx: mother with T1DM" is a heading, not "Jane Doe, his mother"
        if fold(rest[0].text) in self.t.cues.after_words and rest[0].all_caps:
            return True
        words = [fold(t.text) for t in rest if t.is_word]
        if words and words[0] in self.t.cues.relatives:
            return True
        return len(words) >= 3 and words[0] in ("is", "was", "s") and words[2] in self.t.cues.relatives

    def comma_continues(self, end: int) -> bool:
        """'SMITH, JOHN': a capitalised run follows the run after a comma."""
        return end + 1 < len(self.toks) and self.toks[end].text == "," and end + 1 in self.run_at

    def abbreviated_given_name(self, i: int) -> int:
        """The start of a name that opens with a short abbreviated given name ("Ma. Lourdes", "Wm. Hardy"):
        a capitalised word of two or three letters and its full stop right before token i."""
        if i >= 2 and self.toks[i - 1].text == "." and self._gap(i - 2, i - 1) \
                and self.text[self.toks[i - 1].end:self.toks[i].start] == " ":
            word = self.toks[i - 2]
            if word.is_word and 2 <= len(word.text) <= 3 and word.text[0].isupper() and word.text[1:].islower() \
                    and not self.is_cue(word) and fold(word.text) not in STOP_WORDS:
                return i - 2
        return i

    def opens_sentence(self, i: int) -> bool:
        """Token i is an ordinary word capitalised only because a sentence starts with it: no name, or a
        function word before a word that is no name either ("Is Leqembi covered", "Requesting Dexcom")."""
        tok = self.toks[i]
        if not tok.is_word or tok.all_caps or self.is_cue(tok, i) or not self.t.is_ordinary(tok.text):
            return False
        if self.word_kind(tok) is None:
            return True
        nxt = self.toks[i + 1] if i + 1 < len(self.toks) else None
        return fold(tok.text) in STOP_WORDS and nxt is not None and nxt.is_word and self.word_kind(nxt) is None

    def word_kind(self, w: Token) -> str | None:
        """The name kind of a word; of a hyphenated one, its strongest part's ("Dubois-Marchand")."""
        kinds = self.t.part_kinds(_stem(w.text))
        return NAME_STRONG if NAME_STRONG in kinds else NAME_WEAK if any(kinds) else None

    def caps_given_name(self, end: int) -> bool:
        """After 'SURNAME,' in capitals, the given names hold a name or an unknown word of five letters
        or more: a person, not a list of acronyms ("COPD, CHF")."""
        after = [t for t in self.toks[end + 1:self.run_at[end + 1]] if t.is_word and not t.initial]
        if after and self.clinical_context(end + 1, self.run_at[end + 1], after):
            return False  # "stage IIA, Deauville score 2": a term follows, not a given name
        return any(self.word_kind(t) is not None or (len(t.text) >= 5 and not self.t.is_ordinary(t.text)
                                                     and not self.t.is_clinical(t.text)) for t in after)

    def alone_on_line(self, i: int, end: int) -> bool:
        """The run is a line of its own that closes the text or follows a line ending in a comma
        (a sign-off: "Thank you,\nHonor")."""
        toks, text = self.toks, self.text
        if i == 0 or "\n" not in text[toks[i - 1].end:toks[i].start]:
            return False  # the text's first words (a term on its own), or words after others on the line
        k = end
        while k < len(toks) and toks[k].text in ".,;" and "\n" not in text[toks[k - 1].end:toks[k].start]:
            k += 1
        if k == len(toks):
            return True
        return "\n" in text[toks[k - 1].end:toks[k].start] and toks[i - 1].text == ","

    def name_position(self, i: int, end: int) -> bool:
        """Where a capitalised word is a person and not a term: the subject opening a sentence before a
        reporting verb or an apposition ("Okafor reports", "Hope, 34,"), or a sign-off line."""
        if self.alone_on_line(i, end):
            return True
        if not self.sentence_initial(i) or end >= len(self.toks):
            return False
        nxt, last = self.toks[end], self.toks[end - 1]
        return nxt.text in ",(" or last.text.endswith(("'s", "’s")) or fold(nxt.text) in self.t.cues.reporting_verbs

    def is_name(self, i: int, end: int) -> bool:
        run = self.toks[i:end]
        words = [t for t in run if t.is_word and not t.initial and not self.is_particle(t)]
        if not words or all(self.is_cue(w) for w in words):
            return False
        if self.cue_before(i):
            # "father MI at 52", "Mother CHF": a diagnosis in capitals after a relative, not a name
            if len(words) == 1 and words[0].all_caps and len(words[0].text) <= 4 and self.relative_before(i):
                return False
            # "Dr. Cardiology", "Dr ENT": a title before a specialty, a clinical word or an acronym that no
            # name table lists is a role, not a person
            return not (len(words) == 1 and self.word_kind(words[0]) is None and self.title_before(i) and (
                self.t.is_clinical(_stem(words[0].text)) or words[0].all_caps and len(words[0].text) <= 4))
        if len(words) == 1 and fold(words[0].text) in STOP_WORDS:
            return False  # "Will", "The", "Is": a function word opening a sentence
        if any(w.uncased for w in words):
            # capitals cannot mark a name in these scripts: a label before it (handled above), an honorific
            # after it ("伊藤 大輔様"), or a name in another script beside it ("Min-jun Kim (김민준)")
            return self.honorific_after(end) or self.beside_a_name(i, end) or self.subject_of_latin_verb(i, end)
        if any(w.other_script for w in words) and (len(words) >= 2 or self.beside_a_name(i, end)):
            return True  # "Ольга Петрова", "(Γεώργιος Παπαδόπουλος)": capitalised words of a cased script
        if self.dash_signoff(i, end) and len(words) <= 3 and not any(w.all_caps for w in words):
            return True  # "... split dose. — Dana Whitlock": a sign-off, whatever its words also mean
        if self.clinical_context(i, end, words):
            return False
        if len(words) <= 3 and all(self.word_kind(w) is None for w in words) and self.therapy_context(i, end):
            return False  # a product: "started Xarelto", "Freestyle Libre sensor"
        if self.particles_before(i) < i:
            return True  # "ter Haar", "van der Berg", "bin Salem": a particle before a capitalised word
        if len(words) == 1 and (words[0].all_caps or _acronym(words[0].text)) and not self.comma_continues(end):
            return False  # an acronym (GERD, PASI, MoCA, BiPAP); a surname in capitals comes with a cue or a comma
        if len(words) == 1 and words[0].all_caps and self.comma_continues(end):
            return self.caps_given_name(end)  # "LI, XIAOMING", "AL-HASHIMI, TARIQ"
        kinds = [None if (w.all_caps and len(w.text) <= 3) else self.word_kind(w) for w in words]
        parts = [k for w in words if not (w.all_caps and len(w.text) <= 3) for k in self.t.part_kinds(_stem(w.text))]
        if any(k == NAME_STRONG for k in parts) or sum(k is not None for k in parts) >= 2:
            return True
        if any(k is not None for k in kinds) and any(
                t.initial and j + 1 < len(run) and run[j + 1].text == "." for j, t in enumerate(run)):
            return True  # a name and an initial: "Fang W.", "J. Hardy" (not "Factor V Leiden")
        if self.cue_after(end) and (any(k is not None for k in kinds)
                                    or not all(self.t.is_ordinary(w.text) for w in words)):
            return True
        # The vocabulary rule: a Title-case word that is neither ordinary nor clinical is a name, in a
        # run of several words or in a name position; a run that holds a clinical word is a term
        # ("Advair Diskus"), and one unknown word inside a sentence is more often a brand than a person.
        unknown = [w for w in words if not w.all_caps and len(w.text) > 1 and not self.t.is_ordinary(_stem(w.text))
                   and not self.t.is_clinical(_stem(w.text)) and not _acronym(w.text)]
        if unknown and not any(self.t.is_clinical(_stem(w.text)) and self.word_kind(w) is None for w in words):
            if sum(not w.all_caps for w in words) >= 2 or self.name_position(i, end):
                return True
        return self._weak_name_in_position(i, end, words, kinds)

    def _weak_name_in_position(self, i: int, end: int, words: list[Token], kinds: list[str | None]) -> bool:
        """A name that is also a word ("Hope", "Grace") counts where a word would not be capitalised:
        inside a sentence, or in a name position; a calendar word ("May", "Thu") only in a name position."""
        if len(words) != 1 or kinds[0] is None or words[0].all_caps:
            return False
        word = fold(_stem(words[0].text))
        if word in self.t.cues.calendar:
            return self.sentence_initial(i) and end < len(self.toks) and \
                fold(self.toks[end].text) in self.t.cues.reporting_verbs and fold(self.toks[end].text) not in _MODALS
        if len(word) <= 2:  # "Li", "Wu" or "Hg", "Wt": a two-letter name needs a name position
            return self.name_position(i, end)
        if not self.sentence_initial(i):
            return not self.t.is_clinical(word)
        return self.name_position(i, end)

    def regions(self) -> list[tuple[int, int]]:
        out: list[tuple[int, int]] = []
        for i, end in self.run_list:
            if end - i > 1 and self.sentence_initial(i) and self.opens_sentence(i):
                i += 1  # "Requesting Leqembi", "The brother": the first word is capitalised as a sentence's
            if not self.is_name(i, end):
                continue
            stop = end
            # 'SMITH, JOHN' / 'Smith, John A.': a surname-first name continues after the comma.
            if end + 1 < len(self.toks) and self.toks[end].text == "," and end + 1 in self.run_at:
                nxt = self.run_at[end + 1]
                after = [t for t in self.toks[end + 1:nxt] if t.is_word]
                names = [self.t.name_kind(_stem(t.text)) for t in after]
                degree = all(fold(t.text) in self.t.cues.after_words for t in after)
                if not degree and (self.toks[i].all_caps or any(k is not None for k in names)) \
                        and not self.clinical_context(end + 1, nxt, after):
                    stop = nxt  # not into a term: "Anwar Siddiqui, Glasgow Coma Scale 14"
            last = self.toks[stop - 1]
            finish = last.end - (2 if last.text.endswith(("'s", "’s")) else 0)
            out.append((self.toks[self.abbreviated_given_name(self.particles_before(i))].start, finish))
        return out


def find_names(text: str) -> list[tuple[int, int]]:
    """Character spans of the person names in `text`, in order."""
    reader = _Reader(text, tables())
    return sorted({*reader.regions(), *before_honorifics(reader.toks, reader.t),
                   *lowercase_names(reader.toks, reader.t)})
