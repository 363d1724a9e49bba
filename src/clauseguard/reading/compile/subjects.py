"""The services a sentence is about: one service named (with the codes written after it), or a list of
services the lexicon knows. A phrase the lexicon lacks stands for itself only as a plain noun phrase.
"""

from __future__ import annotations

import re

from clauseguard.corpus.criteria import Service
from clauseguard.reading.compile.reader import _ClauseReader, _Seg
from clauseguard.reading.lexicon import normalise

_CODE = re.compile(r"\s*\(\s*((?:[A-Z]\d{4}|\d{4}[A-Z0-9])(?:\s*,\s*(?:[A-Z]\d{4}|\d{4}[A-Z0-9]))*)\s*\)")


class _SubjectReader(_ClauseReader):
    """Services named as a sentence's subject."""

    def _subject_np(self, seg: _Seg) -> Service | None:
        start, end = self._trim(seg.start, seg.end)
        text = self.text[start:end]
        codes: tuple[str, ...] = ()
        m = _CODE.search(text)
        billed = re.search(r"\s+(?:billed|coded|reported)\s+(?:under|as|with)\s+(?:codes?\s+)?"
                           r"(?P<codes>(?:[A-Z]\d{4}|\d{4}[A-Z0-9])(?:\s*(?:,|or|and)\s*(?:[A-Z]\d{4}|\d{4}[A-Z0-9]))*)$", text)
        if m and m.end() == len(text):
            codes = tuple(c.strip() for c in m.group(1).split(","))
            text = text[:m.start()]
        elif billed:
            codes = tuple(re.findall(r"[A-Z]\d{4}|\d{4}[A-Z0-9]", billed.group("codes")))
            text = text[:billed.start()]
        phrase = normalise(text)
        phrase = re.sub(r"^(?:a|an|the|any|all)\s+", "", phrase)
        if not phrase:
            return None
        concept = self.lex.concept_named(phrase)
        if concept is None:
            by_code = {c for code in codes for c in self.lex.services_for_code(code)}
            if len(by_code) == 1:
                concept = by_code.pop()  # the code names the service the prose describes
            elif not self._free_ok(phrase, max_words=7):
                return None
            else:
                concept = phrase
        return Service(self.fresh(), self._span(start, end), concept, codes)

    def _generic_item(self, concept: str) -> bool:
        """'services', 'testing', 'units': words that stand for whatever service is requested."""
        return concept in self.g.generic_services

    @staticmethod
    def _plain_list(text: str) -> list[tuple[int, int]]:
        """'A, B or C' / 'A and B': the items' offsets in `text`."""
        out: list[tuple[int, int]] = []
        pos = 0
        for m in re.finditer(r",\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+", text, re.I):
            out.append((pos, m.start()))
            pos = m.end()
        out.append((pos, len(text)))
        return out

    def _subject_list(self, seg: _Seg) -> list[Service] | None:
        """Services named as a list ('Crowns, bridges and dentures', 'to implant treatment and to crowns',
        'Benefits for dental prosthetics, including crowns and bridges'): every item a service the
        lexicon knows, else None. An item may borrow the last item's head ('prosthetic or implant
        treatment'); 'including' names kinds of the head, kept only where the lexicon does not already
        place them under it."""
        start, end = self._trim(seg.start, seg.end)
        text = self.text[start:end]
        lead = re.match(r"^(?:(?:the\s+)?(?:benefits?|cover|costs?)\s+(?:for|of)\s+)", text, re.I)
        if lead:
            start += lead.end()
            text = self.text[start:end]
        inc = re.match(r"^(?P<head>.+?),?\s+including\s+(?P<ex>.+)$", text, re.I)
        if inc:
            heads = self._known_services(start, start + inc.end("head"))
            examples = self._known_services(start + inc.start("ex"), end)
            if heads is None or examples is None:
                return None
            extra = [e for e in examples if not any(self.lex.is_a(e.concept, h.concept) for h in heads)]
            return heads + extra
        return self._known_services(start, end)

    def _known_services(self, start: int, end: int) -> list[Service] | None:
        text = self.text[start:end]
        parts = [(a, b) for a, b in self._plain_list(text) if text[a:b].strip()]
        out: list[Service] = []
        last = re.sub(r"^(?:to\s+)?(?:(?:a|an|the|any|all)\s+)?", "", normalise(text[parts[-1][0]:parts[-1][1]]))
        for a, b in parts:
            item = text[a:b]
            lead = re.match(r"^\s*(?:to\s+)?(?:(?:a|an|the|any|all)\s+)?", item, re.I)
            s0 = start + a + (lead.end() if lead else 0)
            phrase = normalise(self.text[s0:start + b])
            alone = self.lex.concept_named(phrase)
            borrowed = None
            if phrase != last and (alone is None or len(phrase.split()) == 1):
                # "prosthetic or implant treatment": an item may borrow the last item's head (a lone
                # modifier borrows it first)
                words = last.split()
                for k in range(1, len(words)):
                    borrowed = self.lex.concept_named(f"{phrase} {' '.join(words[-k:])}")
                    if borrowed is not None:
                        break
            concept = (borrowed or alone) if len(phrase.split()) == 1 else (alone or borrowed)
            if concept is None or self.lex.concepts[concept].domain == "condition":
                return None
            if any(o.concept == concept for o in out):
                continue  # "general practitioner and specialist consultations": one service
            codes = tuple(re.findall(r"[A-Z]\d{4}|\d{4}[A-Z0-9]", self.text[s0:start + b]))
            out.append(Service(self.fresh(), self._span(s0, start + b), concept, codes))
        return out
