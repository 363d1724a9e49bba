"""Two values of one kind in a passage that fit a part equally well: the reader then says both and decides
neither. Which one wins is for the part's own words to show (extract.py ranks them); this module says
when the winner is not marked out and when two values are one."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from clauseguard.reading.counted import counts_it
from clauseguard.reading.passage import DAYS, Asking, stems
from clauseguard.reading.stated import Stated, circumstance_words, paying_terms

Ranked = tuple[int, int, int, int, int, int, int, int, Stated]


def same_quantity(a: Stated, b: Stated) -> bool:
    """Two values that say one thing: "12 weeks" and "84 days", or the same figure twice."""
    if a.value == b.value:
        return True
    if a.kind == b.kind == "duration" and a.unit in DAYS and b.unit in DAYS:
        return abs(a.number * DAYS[a.unit] - b.number * DAYS[b.unit]) < 1.0
    return False


def unmarked_rival(ranked: list[Ranked], asking: Asking) -> Stated | None:
    """Another value of the chosen kind when nothing in the part's own words marks the chosen one out.

    With several values of one kind in a passage (a per-session amount and a yearly cap, an initial
    and a continuation approval), the winner must be told apart by the part itself: a condition the
    question meets that the others lack, the side of the bound asked ("maximum", "at least"), or a
    word of the part around it that is around no other value. Winning on word counts alone, or on
    reading order, is a guess; the part is then left to a person with both values named."""
    top, best = ranked[0], ranked[0][8]
    rivals = [t for t in ranked[1:] if t[8].kind == best.kind and not same_quantity(t[8], best)]
    if not rivals:
        return None
    if all(top[0] > t[0] or top[2] > t[2] or top[3] > t[3] for t in rivals):
        return None  # its condition is met, or it is in the unit or the bound asked, and no rival's is
    drop = stems(" ".join(sorted(circumstance_words()))) | set(paying_terms())  # paying_terms are stems already
    own = (stems(asking.words) | stems(asking.item)) - drop
    # the subject's words mark a value only against one in another sentence or line ("Headgear: 1 per
    # 6 months" against "Tubing: 1 per 3 months"): inside one sentence the subject is written once,
    # beside the first value ("X is reimbursed up to A per pair and B per year"). The member's own words
    # never mark one out: "an employee's husband" is a spouse, not the employee a value names
    bare = own - stems(asking.subject)

    def around(v: Stated) -> set[str]:
        return stems(f"{v.context} {v.period or ''} {v.unit}")

    def told_apart(rival: Stated) -> bool:
        # the part's words around the winner must include every part word around the rival, and more: a
        # rival with part words the winner lacks ("for hearing aids ... A" against "for hearing tests ... B",
        # asked of "hearing aids and tests") fits as well in its own way, and the part is left to a person
        one_sentence = rival.piece == best.piece and "\n" not in best.piece  # a list's lines are apart
        # in one sentence, what is written before its first figure ("The lump sum is EUR 4,000 on the death
        # of an employee and EUR 2,000 on ...") is said of every value in it and marks none out, when the
        # rival names nothing of its own before its figure ("... for 3 months and a renewal for 9 months"
        # names the renewal, so "initial approval" before the first figure is the first value's own)
        words = bare - stems(best.piece[:_first_figure(best, rival)]) if one_sentence and _gapped(rival) else \
            bare if one_sentence else own
        mine, theirs = words & around(best), words & around(rival)
        return bool(mine - theirs) and theirs <= mine

    return next((t[8] for t in rivals if not told_apart(t[8])), None)


def _gapped(v: Stated) -> bool:
    """True when a value names nothing of its own before its figure ("and EUR 2,000 on ...", "and up to
    100 ..."): it shares what the sentence said before its first value."""
    digit = re.search(r"\d", v.context)
    if digit is None:
        return False
    before = re.sub(r"\b[A-Z]{3}\b|[$\u20ac\u00a3]", "", v.context[:digit.start()])  # a currency: "EUR", "$"
    return not stems(re.sub(r"\b(?:and|or|up\s+to|at\s+most|not\s+more\s+than)\b|[a-z-]+\s*\($", "", before, flags=re.I))


def _first_figure(*values: Stated) -> int:
    """Where, in their shared sentence, the first of these values' figures is written (digits)."""
    starts = []
    for v in values:
        at = v.piece.find(v.context)
        digit = re.search(r"\d", v.context)
        if at >= 0 and digit is not None:
            starts.append(at + digit.start())
    return min(starts, default=0)


def other_end(ranked: list[Ranked], sided: bool) -> Stated | None:
    """The other end of a range the chosen value ends ("at least 4 and no more than 14 migraine days"), when
    the part asks neither side of it: either end is a guess at what is asked."""
    best = ranked[0][8]
    if sided or best.bound not in ("lower", "upper"):
        return None
    return next((t[8] for t in ranked[1:] if t[8].piece == best.piece and t[8].unit == best.unit
                 and {t[8].bound, best.bound} == {"lower", "upper"}), None)



_JOINED: Final = re.compile(r"^\W*(?:and|or|as well as|plus)\b", re.I)


def window_sharer(best: Stated, found: Sequence[Stated], words: set[str], thing: str | None) -> Stated | None:
    """A value written just before the chosen one and joined to it, with no window of its own, when the
    chosen one's window is written once after both ("up to 100 pads and up to 100 wipes each month"): the
    window may be for both, so it does not mark the chosen one out. The part's own `words` for its item, or
    the `thing` it counts, tell them apart when they name the chosen value's thing and not the other's
    ("how many wipes")."""
    if best.period is None or not _JOINED.match(best.context):
        return None
    start = best.piece.find(best.context.strip())
    for v in found:
        if v is best or v.piece != best.piece or v.kind != best.kind or v.period is not None or same_quantity(v, best):
            continue
        before = v.context.strip()
        at = best.piece.find(before)
        if at < 0 or best.piece[at + len(before):start].strip(" ,"):
            continue  # not written right before the chosen value
        if words & stems(best.context) and not words & stems(v.context) or \
                thing is not None and counts_it(best, thing) and not counts_it(v, thing):
            continue
        return v
    return None
