"""Extractive reading of one passage for one question part: the value that answers it, the sentence
that states it, and the condition it holds under.

A quantity part (a cap, an amount, a rate, a waiting period, a number of sessions) is settled only by
a passage that states a value of that kind, and it is answered with the value whose item matches the
part's words; a passage that defers the value elsewhere settles nothing; a passage that excludes the
benefit answers its amounts. A coverage part is answered yes or no by coverage.py (a
lettered list takes its head's verb). A statement that holds only in a case the question does not
state (an age, an accident, an operation) does not answer the general case: "covered only when ...
accident" answers no, and a value stated only for that case leaves the part unsettled with the
condition named. It never paraphrases: every excerpt is verbatim.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Final

from clauseguard import text as toolkit
from clauseguard.reading.cases import except_case, only_case, states_case, states_exception
from clauseguard.reading.counted import another_kind, counted_thing, counts_it, counts_time
from clauseguard.reading.coverage import coverage, list_head, opposite_as_fitting, refuses_a_case
from clauseguard.reading.cues import leaves_unchanged, phase_named
from clauseguard.reading.measured import measures_asked
from clauseguard.reading.passage import (
    Asking,
    Reading,
    Settles,
    condition_met,
    member_fits,
    overlap,
    sentences,
    stems,
)
from clauseguard.reading.rivals import other_end, same_quantity, unmarked_rival, window_sharer
from clauseguard.reading.stated import (
    Condition,
    Stated,
    circumstance_words,
    condition_of,
    denies,
    number_of,
    phases,
    restricts,
    stated_values,
)

__all__ = ["Asking", "Reading", "Settles", "condition_met", "excludes", "quantity_asked", "read_passage", "sentences"]

_DEFERRAL: Final = re.compile(
    r"\b(?:fixed|set|stated|shown|specified|defined|laid down|given|determined|listed)\s+(?:out\s+)?"
    r"(?:in|by)\s+(?:the\s+)?(?:particular|special|specific|individual)\s+conditions"
    r"|\bas\s+(?:shown|stated|set out|specified|listed)\s+in\s+(?:the|your)\s+(?:schedule|certificate|table)"
    r"|\b(?:see|refer to)\s+(?:the|your)\s+(?:schedule|particular conditions|certificate)"
    r"|\b(?:in|on)\s+(?:the|your)\s+(?:schedule|certificate)\s+of\s+(?:benefits|insurance|cover)"
    r"|\bagreed\s+(?:separately|individually)\b",
    re.IGNORECASE,
)
_EXCLUSION: Final = re.compile(
    r"\b(?:is|are)\s+(?:not\s+covered|excluded|not\s+(?:reimbursed|payable|insured))\b"
    r"|\bno\s+benefit\s+is\s+(?:paid|payable)\b|\bexcluded\s+from\s+(?:cover|coverage)\b",
    re.IGNORECASE,
)
_NEGATED_EXCLUSION: Final = re.compile(r"\bnot\s+excluded\b|\bunless\b|\bexcept\b", re.IGNORECASE)

# What kind of value a part asks for, from its own words: a cap is an amount (or a count), a rate
# is a percentage, a waiting period is a duration. Checked in this order; the first that fits wins.
_ASKS: Final[tuple[tuple[str, re.Pattern[str]], ...]] = (
    # a copay is a fixed sum ("total copayments will not exceed $420", drug_policy; "no deductible or
    # copayment", medical_policy) and a cost share either kind: neither is a rate (coinsurance is)
    ("rate", re.compile(r"\b(?:rate|percent\w*|per ?cent|(?<!cost )(?<!cost-)share|proportion|level of reimbursement|"
                        r"coinsurance|reduction|relief)\b", re.I)),
    # "evaluation window" (cms_lcd, medical_policy, the demo's bariatric and oxygen policies), "authorization
    # validity" (medical_policy, two authors): a span asked, which a bare yes never answers
    ("duration", re.compile(r"\b(?:wait\w*|how long|how often|how frequently|how far ahead|duration|length|age|how old|interval|"
                            r"qualifying period|deferral|minimum period|look-?back|period|approval|renewal|windows?|validity|valid|"
                            r"months?|weeks?|days|years|hours)\b", re.I)),
    # the things a count counts: sessions and visits (group_terms, medical_policy), units, strips and
    # lancets (cms_lcd, the real LCD L33822), doses, tablets, injections, vials, pens, (auto)injectors (drug_policy:
    # both authors, cms_lcd)
    ("count", re.compile(r"\b(?:how many|number of|sessions?|visits?|treatments? per|units?|frequency|times|"
                         r"nights|courses?|doses?|tablets?|capsules?|injections?|infusions?|vials?|syringes?|pens?|"
                         r"(?:auto-?)?injectors?|"
                         r"strips?|lancets?)\b", re.I)),
    ("money", re.compile(r"\b(?:amount|sum|allowance|contribution|supplement|deductible|excess|lump|co-?pay\w*)\b", re.I)),
    ("amount", re.compile(r"\b(?:caps?|ceiling|maximum|max|limit\w*|up to)\b", re.I)),
    ("payment", re.compile(r"\b(?:how much|paid|pays?|payable|reimburs\w*|cost(?:[- ]shar\w*)?)\b", re.I)),
)
# The kinds of value that answer each kind asked, most fitting first.
_KINDS_FOR: Final[dict[str, tuple[str, ...]]] = {
    "duration": ("duration",),
    "unclear": (),
    "count": ("count",),
    "rate": ("rate",),
    "money": ("amount",),
    "amount": ("amount", "count", "rate"),
    "payment": ("amount", "rate"),
}


_PER_PERIOD: Final = re.compile(
    r"\bper\s+(?:\d+[\s-]*)?(?:calendar\s+|contract\s+|policy\s+|benefit\s+)?[a-z-]+"
    r"|\b(?:in\s+(?:a|any|each)|every|each|a)\s+(?:\d+[\s-]*)?(?:calendar\s+|contract\s+)?(?:day|week|month|year)s?"
    r"(?:\s+(?:period|window))?\b",
    re.IGNORECASE)
_ASKS_UPPER: Final = re.compile(r"\b(?:maximum|max|most|limit\w*|caps?|ceiling|up to|longest|how long can)\b", re.I)
_ASKS_LOWER: Final = re.compile(r"\b(?:minimum|min|least|shortest|how long must|required|(?<!as )needed|before|must)\b", re.I)
_ASKS_ANNUAL: Final = re.compile(r"\b(?:annual\w*|yearly|per\s+(?:\w+\s+)?year|a\s+year|each\s+year)\b", re.I)
_ASKS_LIFETIME: Final = re.compile(r"\b(?:lifetime|whole|total|overall\s+lifetime)\b", re.I)
# the length of an approval asked as such ("approval period?", "how long is a CPAP approval good for?"), not a
# criterion's span that an approval needs ("how long must X have been taken before it is approved")
_ASKS_APPROVAL: Final = re.compile(
    r"\b(?:approv\w*|authori[sz]\w*)\s+(?:period|length|duration|lasts?|good\s+for|valid\w*)"
    r"|\b(?:period|length|duration|validity)\s+of\s+(?:the\s+|an?\s+)?(?:\w+\s+){0,2}(?:approv|authori[sz])\w*"
    r"|\bhow\s+long\s+(?:is|are|does|will|do)\s+(?:the\s+|an?\s+)?(?:\w+\s+){0,3}(?:approv|authori[sz])\w*"
    r"|\bhow\s+long\b(?:(?!\bbefore\b|\bprior\s+to\b|\bmust\b|\bneeded\b|\brequired\b).)*\b(?:approv|authori[sz])\w*"
    r"|\bapproved\s+for\s+how\s+long\b", re.I)
_YEAR_PERIOD: Final = re.compile(r"\byear", re.I)


def quantity_asked(label: str, aspect: str | None) -> str | None:
    """The kind of value a part asks for (duration, count, rate, amount, payment), or None for any.
    A counting window in the part ("sessions per contract year") is not what it asks for."""
    # the question's form is parsed in retrieval.parts, which imports this module: imported here, not above
    from clauseguard.retrieval.parts import asks_yes_or_no

    if asks_yes_or_no(label):
        return None  # "Is X covered?", "Will Medicare pay for X?", "X for Y - covered?" ask yes or no
    label = _PER_PERIOD.sub(" ", label)
    found = [kind for kind, pattern in _ASKS if pattern.search(label)]
    if "count" in found and "duration" in found and re.search(r"\bhow many\b|\bnumber of\b", label, re.I):
        # "how many months" asks a duration; "how many sessions per year" a count
        return "duration" if re.search(r"\b(?:how many|number of) (?:months|days|weeks|years|hours)\b", label, re.I) \
            else "count"
    if "count" in found and "duration" in found and not re.search(r"\bhow long\b|\bduration\b|\bwait\w*|\blength\b",
                                                                     label, re.I):
        # "doses in the first 8 weeks", "visits after 6 months": a count, a duration, nothing says which is
        # asked; no value answers it, and a person reads the passage
        return "unclear"
    if "count" in found and ("money" in found or "payment" in found) and not re.search(r"\bhow many\b|\bnumber of\b", label, re.I):
        return "money" if "money" in found else "payment"  # "the most paid for one session" asks what is paid
    if found:
        return found[0]
    return {"waiting_period": "duration", "limit": "amount", "rate": "rate"}.get(aspect or "")


def defers_quantity(text: str) -> bool:
    """True when the text sends the value elsewhere ("fixed in the particular conditions")."""
    return bool(_DEFERRAL.search(text))


def excludes(text: str) -> bool:
    """True when the text says plainly that the benefit is excluded or not covered."""
    return bool(_EXCLUSION.search(text)) and not _NEGATED_EXCLUSION.search(text)


def states_quantity(text: str, asked: str | None) -> bool:
    """True when the text states a value of the kind asked for (any kind when unspecified)."""
    kinds = _KINDS_FOR.get(asked or "", ("amount", "rate", "duration", "count"))
    return any(v.kind in kinds for v in stated_values(text))


def _words_fit(v: Stated, asking: Asking) -> bool:
    wanted = stems(asking.words) - stems(" ".join(sorted(circumstance_words())))
    return bool(wanted & stems(v.context))


def _sentence_score(v: Stated, asking: Asking) -> int:
    """The question's words and figures in the value's whole sentence or list line ("when the AHI is
    15 or higher" picks the line that says "15 or more events")."""
    asked = set(toolkit.words(asking.question)) | stems(asking.question)
    figures = {w for w in asked if w.isdigit()}
    return len(figures & set(toolkit.words(v.piece))) + len((stems(asking.question) - stems(" ".join(sorted(circumstance_words())))) & stems(v.piece))


def _bound_fits(v: Stated, asking: Asking) -> int:
    """1 when the value is a bound of the side the part asks ("maximum" -> "up to", "minimum" -> "at
    least"); for a duration asked with no side ("how long is the approval"), 1 when the value is no
    lower bound (an "at least N months of therapy" is a requirement, not the length asked)."""
    upper, lower = bool(_ASKS_UPPER.search(asking.words)), bool(_ASKS_LOWER.search(asking.words))
    if v.kind == "duration" and not upper and not lower:
        return int(v.bound != "lower")
    return int(v.bound == "upper" and upper or v.bound == "lower" and lower)


def _value_score(v: Stated, asking: Asking) -> int:
    """How well a value fits the part: the part's words around it, and a counting window of the
    span asked (annual vs lifetime)."""
    drop = stems(" ".join(sorted(circumstance_words())))
    around = stems(f"{v.context} {v.period or ''} {v.unit}")
    # the subject's words count twice: the part is about them; its other words only phrase it. Counting
    # the subject anywhere in the value's sentence was tried (2026-12-01): it released fewer wrong values
    # on the dev halves and more on the holdouts, so values are scored on their own stretch only
    score = 2 * len((stems(asking.subject) - drop) & around) + len((stems(asking.words) - drop) & around)
    yearly = bool(v.period and _YEAR_PERIOD.search(v.period)) or bool(_YEAR_PERIOD.search(v.context))
    if _ASKS_ANNUAL.search(asking.words) and yearly or _ASKS_LIFETIME.search(asking.words) and not yearly:
        score += 2
    return score


_ASKS_UNIT: Final = re.compile(r"\b(?:how many|number of)\s+(hour|day|week|month|year)s?\b|\bin\s+(hour|day|week|month|year)s\b", re.I)


_PER_THING: Final = re.compile(r"\bper\s+(?!(?:\d|calendar|contract|policy|benefit|year|month|week|day|hour|night|"
                               r"lifetime)\w*\b)([a-z]+)", re.I)


def _unit_fits(v: Stated, asking: Asking) -> int:
    """1 for a duration in the unit the part names ("how many weeks must each agent have been tried"
    is answered by "six (6) weeks", not by another requirement's "three (3) months"), or for a value
    stated per the thing the part counts by ("how much per ear" is answered by "EUR 1,100 per ear",
    not by a hearing test's "EUR 45")."""
    m = _ASKS_UNIT.search(asking.words)
    if m is not None and v.kind == "duration" and v.unit == (m.group(1) or m.group(2)).lower():
        return 1
    def things(text: str) -> set[str]:  # "per ear", "per pair"; never a number ("per six months")
        return stems(" ".join(w for w in _PER_THING.findall(text) if number_of(w) is None))

    per = things(asking.question)
    return int(bool(per) and bool(per & things(v.context)))


_ASKS_FREQUENCY: Final = re.compile(r"\b(?:how often|how frequently|frequency|how many times|times per)\b", re.I)


def _counts_fit(v: Stated, asking: Asking) -> bool:
    """A frequency ("how often", "frequency limit") is a count per period: a count with no counting
    window does not state one. "once" / "twice" count occasions: they answer only a frequency."""
    frequency = bool(_ASKS_FREQUENCY.search(asking.words))
    if frequency and v.period is None:
        return False
    return frequency or v.unit not in ("time", "times")


def _choose_value(text: str, asking: Asking, restriction: Condition | None) -> Reading | None:
    kinds = _KINDS_FOR.get(asking.asked or "", ("amount", "rate", "duration", "count"))
    asks_age = bool(re.search(r"\bage\b|\bhow old\b", asking.words, re.I))
    found = [v for v in stated_values(text)
             if v.kind in kinds and not defers_quantity(v.piece) and v.is_age == asks_age]
    if not found:
        return None
    usable: list[tuple[int, int, int, int, int, int, int, int, Stated]] = []
    pending: Stated | None = None
    phased: Stated | None = None  # a span stated for one approval phase the part does not name
    own = stems(asking.item) - stems(" ".join(sorted(circumstance_words())))
    wanted_phase = phases(asking.words)
    thing = counted_thing(asking.words)
    if own and not own & stems(text):
        return None  # the part asks about something this clause never names ("months of conservative therapy")
    pieces = sentences(text)
    if _left_as_it_was(pieces, asking):
        return None

    def elsewhere(piece: str) -> list[str]:
        return [s for s in pieces if s not in piece and piece not in s]

    for order, v in enumerate(found):
        condition = v.condition if v.condition is not None and v.condition.kind != "procedural" else restriction
        if asks_age and condition is not None and condition.kind == "age" and v.condition is condition:
            condition = None  # "18 years of age or older" asked as the minimum age: its own bound is the answer
        if condition is None:
            condition = only_case(v)
            met = True if condition is None else states_case(condition, asking.question)
            if condition is not None:
                v = replace(v, condition=condition)  # the answer states the case it holds in
        else:
            met = condition_met(condition, asking.question)
        if met is False or not member_fits(v.context, asking.question):
            continue  # its case is not the question's, or it is "per child" asked for a member aged 34
        if (unless := except_case(v)) is not None and states_exception(unless, v.context, asking.question):
            pending = pending or replace(v, condition=unless)
            continue  # "no sooner than five years ... unless the specialist certifies a change", and the question says he did
        if met is None:
            pending = pending or v
            continue
        specific = 1 if (condition is not None and condition.kind != "procedural") else 0
        if asking.asked == "amount" and kinds.index(v.kind) > 0 and not (
            _words_fit(v, asking) and (_bound_fits(v, asking) or not _ASKS_UPPER.search(asking.words))
        ):
            continue  # a value of a less fitting kind answers only with the part's words (and bound) around it
        if v.kind == "count" and not _counts_fit(v, asking):
            continue
        if v.kind == "count" and another_kind(v, asking.question):
            continue  # "intermittent catheters" asked of male external catheters
        if v.kind == "count" and (thing is not None and not counts_it(v, thing) or counts_time(v, thing)):
            continue  # "how many injections": "100 billing units" counts something else, "15 headache days a month" days
        if not measures_asked(v, asking):
            continue  # "12 months" for "how many days", "15 days per month" for a trial's length (measured.py)
        if wanted_phase and (said := phases(v.piece)) and not said & wanted_phase:
            continue  # "continuation approval" is never answered by the initial approval's period
        if not wanted_phase and v.kind == "duration" and (phase := phase_named(v.piece)) is not None:
            # "Initial approval is for a trial period of three (3) months", asked "how long is the approval":
            # the figure holds for a phase the part does not name, and another phase may hold another
            pending = phased = phased or replace(v, condition=Condition("occasion", phase, restrictive=True))
            continue
        named = int(bool(own & stems(v.piece)))
        if v.kind == "count" and own and not named and not own & stems(v.unit) and \
                any(own & stems(s) for s in elsewhere(v.piece)):
            continue  # a count of other things, while the part's item is spoken of in another sentence ("the
            # rider raises the catheters to 250; it does not change the lubricant quantity")
        usable.append((specific, named, _unit_fits(v, asking), _bound_fits(v, asking), _value_score(v, asking),
                       _sentence_score(v, asking), -kinds.index(v.kind), -order, v))
    if not usable and pending is None:
        return None
    if phased is not None and _ASKS_APPROVAL.search(asking.label or asking.words):
        usable = []  # an approval asked of a passage that grants each phase its own span: the others are criteria
    if not usable:
        assert pending is not None
        return Reading("conditional", pending.piece, pending.value, pending, pending.condition or restriction)
    ranked = sorted(usable, key=lambda t: t[:8], reverse=True)
    best = ranked[0][8]
    of_it = (own | stems(asking.subject)) - stems(" ".join(sorted(circumstance_words())))  # the part's thing
    its_case = stems(pending.condition.text) if pending is not None and pending.condition is not None else set()
    if pending is not None and pending is not phased and pending.kind == best.kind \
            and not of_it & stems(best.context) and (of_it - its_case) & stems(pending.context):
        # "From the age of fifty, one hearing test every two years" is the hearing test's, under an age the
        # question does not give: "five years" for a replacement aid, which names nothing of it, answers nothing
        return Reading("conditional", pending.piece, pending.value, pending, pending.condition or restriction)
    rival = next((t[8] for t in ranked[1:] if t[:6] == ranked[0][:6] and t[8].kind == best.kind
                  and not same_quantity(t[8], best)), None)
    if rival is None:
        rival = other_end(ranked, bool(_ASKS_UPPER.search(asking.words) or _ASKS_LOWER.search(asking.words)))
    if rival is None:
        rival = unmarked_rival(ranked, asking)
    if rival is None:
        rival = window_sharer(best, found, own, thing)
    if rival is not None:
        # two values of the kind asked fit the part equally well: say both, decide neither
        return Reading("ambiguous", best.piece, best.value, best, best.condition or restriction, rival=rival.value)
    return Reading("stated", best.piece, best.value, best, best.condition or restriction)


def _left_as_it_was(pieces: list[str], asking: Asking) -> bool:
    """True when a sentence that states no figure of its own (only the question's) says the passage leaves the part's thing as it was ("This
    rider does not change the lubricant quantity" asked of lubricant): the part's words it names that no
    other sentence names. Its figures are of other things, and the amended text still answers."""
    drop = stems(" ".join(sorted(circumstance_words())))
    own = stems(asking.words) - drop
    asked = {v.number for v in stated_values(asking.question)}
    for i, piece in enumerate(pieces):
        if leaves_unchanged(piece) and all(v.number in asked for v in stated_values(piece)):
            rest = set().union(*(stems(p) for j, p in enumerate(pieces) if j != i))
            if (own & stems(piece)) - rest:
                return True
    return False


def read_passage(text: str, asking: Asking) -> Reading:
    """Whether a passage (already above the threshold) settles a part, with its value and excerpt.

    The excerpt is the sentence (or list item with its head) that does the settling, verbatim; a
    short clause answering a coverage part is quoted whole."""
    pieces = sentences(text) or [text.strip()]
    restriction = next(
        (c for p in pieces if restricts(p) and (c := condition_of(p)) is not None and c.restrictive), None
    )
    if not asking.asks_quantity:
        return coverage(text, asking, restriction)
    chosen = _choose_value(text, asking, restriction)
    if chosen is not None:
        return chosen
    if states_quantity(text, asking.asked):
        # it states values of the kind asked, none of them for this part: that settles nothing (an
        # exclusion elsewhere in it is about something else)
        return Reading("no_quantity", pieces[0])

    def best(candidates: list[str]) -> str:
        return max(candidates, key=lambda s: (overlap(s, asking.terms), -pieces.index(s)))

    excluding = [s for s in pieces if excludes(s)]
    if excluding and opposite_as_fitting(pieces, pieces.index(best(excluding)), "no", asking) is None \
            and not refuses_a_case(best(excluding), asking):
        # an exclusion answers the amounts only when no sentence grants the part's subject as plainly:
        # "X is reimbursed ...; Y is not" excludes Y, and says nothing of X's amount
        return Reading("excluded", best(excluding), "no")
    # an exclusion written as a list: the best-matching item under a head that refuses it
    top = pieces.index(best(pieces))
    head = list_head(pieces, top)
    if (denies(pieces[top]) or (head is not None and denies(pieces[head]))) and \
            opposite_as_fitting(pieces, top, "no", asking) is None and not refuses_a_case(pieces[top], asking):
        return Reading("excluded", pieces[top], "no")
    deferring = [s for s in pieces if defers_quantity(s)]
    if deferring:
        return Reading("deferred", best(deferring))
    return Reading("no_quantity", best(pieces))
