"""Whether a passage says yes or no to a coverage part, and when its yes is no answer: a sentence
that fits the question as well and says no, a negative sentence naming the case asked, a grant only for
another case or bounded by a duration the case exceeds. When in doubt the reading is ambiguous or
conditional, never a yes: a person then reads the passage."""

from __future__ import annotations

import re

from clauseguard.reading.cases import exception_in, states_exception
from clauseguard.reading.passage import DAYS, Asking, Reading, condition_met, overlap, sentences, stems
from clauseguard.reading.stated import (
    Condition,
    circumstance_words,
    condition_of,
    cues,
    denial_at,
    denies,
    grant_at,
    negative,
    paying_terms,
    stated_values,
)


def list_head(pieces: list[str], at: int) -> int | None:
    """The list head a piece belongs to: the nearest earlier piece ending with a colon."""
    for i in range(at - 1, -1, -1):
        if pieces[i].rstrip().endswith(":"):
            return i
    return None


def _yes_no(text: str) -> tuple[str | None, str]:
    if denies(text):
        return "no", text
    at = grant_at(text)
    if at is not None and not negative(text, before=at):
        return "yes", text  # a negative word before the grant ("there is no cover for ...") says neither
    return None, text


def opposite_as_fitting(pieces: list[str], at: int, value: str | None, asking: Asking) -> str | None:
    """The other answer, when another sentence of the passage gives it and fits the question as well.

    A passage that grants a benefit in one case and denies it in another ("covered after a trial of
    X"; "as the first device, without a trial, denied") answers only the case the question is in.
    The words for paying are left out of the comparison: every sentence answering coverage has
    them, so they cannot tell which case the question is about. A tie says neither."""
    if value is None:
        return None
    terms = tuple(t for t in asking.terms if t not in paying_terms())
    own = overlap(pieces[at], terms)
    for i, piece in enumerate(pieces):
        other, _ = _yes_no(piece)
        if other is None and value == "yes" and negative(piece):
            other = "no"  # a negative sentence no denial cue reads may refuse the case: it is a rival no
        if i != at and other is not None and other != value and overlap(piece, terms) >= own > 0:
            return other
    return None


def coverage(text: str, asking: Asking, restriction: Condition | None) -> Reading:
    pieces = sentences(text) or [text.strip()]
    scores = [(overlap(p, asking.terms), -i) for i, p in enumerate(pieces)]
    if restriction is not None and restriction.kind != "procedural":
        restricting = next(p for p in pieces if restriction.text in p)
        if overlap(restricting, asking.terms) < max(scores)[0]:
            # the restriction is another sentence's ("a catheter replaced more often than monthly is covered
            # only when ..."), and a sentence that fits the question better speaks for it
            restriction = None
    if restriction is not None and restriction.kind != "procedural":
        met = condition_met(restriction, asking.question)
        if met is None and restriction.restrictive:
            # "covered only when ... accident" says no for every other case
            return Reading("answers", restricting, "no", condition=restriction)
        if met is None:
            return Reading("conditional", restricting, None, condition=restriction)
        if met is False:
            return Reading("answers", restricting, "no", condition=restriction)
    at = -max(scores)[1]
    best = pieces[at]
    value, _ = _yes_no(best)
    rival = opposite_as_fitting(pieces, at, value, asking)
    if rival is not None:
        return Reading("ambiguous", best, value, condition=restriction or condition_of(best), rival=rival)
    excerpt = text.strip() if len(text) <= 320 else best
    said = at  # the piece the value is read from
    if value is None:
        head = list_head(pieces, at)
        if head is not None:
            value, _ = _yes_no(pieces[head])
            said = head
            start, end = text.find(pieces[head]), text.find(best) + len(best)
            if value is not None and 0 <= start < end and end - start <= 400:
                excerpt = text[start:end]
    if value is None and len(pieces) > 1:
        value, _ = _yes_no(pieces[0])
        said = 0
    if said != at:
        # the best-fitting sentence says neither; the head or opening sentence read instead must not be
        # contradicted by a sentence that fits the question at least as well ("covered when ..."; "for a
        # member confined to bed, denied")
        rival = opposite_as_fitting(pieces, said, value, asking)
        if rival is not None:
            return Reading("ambiguous", pieces[said], value, condition=restriction or condition_of(pieces[said]), rival=rival)
    condition = restriction or condition_of(best)
    if value == "yes" and not _within_bounds(pieces[said], asking):
        return Reading("conditional", pieces[said], None, condition=Condition("occasion", pieces[said], restrictive=True))
    if value == "yes" and _negative_elsewhere(pieces, said, asking) is not None:
        return Reading("ambiguous", pieces[said], value, condition=condition, rival="no")
    if value == "yes" and condition is None and (unmet := _unmet_restriction(pieces[said], asking)) is not None:
        return Reading("conditional", pieces[said], None, condition=unmet)
    unless = exception_in(pieces[said]) if value is not None else None
    if unless is not None and states_exception(unless, pieces[said].split(unless.text)[0], asking.question):
        # "not medically necessary unless the titration portion lasted less than three hours", asked of a
        # titration that lasted two and a half: the question is the case the statement takes out
        return Reading("conditional", pieces[said], None, condition=unless)
    if condition is not None and condition.kind == "age" and value == "yes":
        met = condition_met(condition, asking.question)
        if met is False:
            value = "no"
        elif met is None:
            return Reading("conditional", best, None, condition=condition)
    return Reading("answers", excerpt, value, condition=condition)


def _within_bounds(piece: str, asking: Asking) -> bool:
    """A grant bounded by a duration ("a stay of up to 60 days") says yes only for a case inside it: a
    question stating its own duration must fall inside every bound of the sentence, or the yes is held."""
    asked = [v for v in stated_values(asking.question) if v.kind == "duration" and v.unit in DAYS]
    bounds = [v for v in stated_values(piece) if v.kind == "duration" and v.bound is not None and v.unit in DAYS]
    for q in asked:
        days = q.number * DAYS[str(q.unit)]
        for b in bounds:
            limit = b.number * DAYS[str(b.unit)]
            if (b.bound == "upper" and days > limit) or (b.bound == "lower" and days < limit):
                return False
    return True


def _negative_elsewhere(pieces: list[str], said: int, asking: Asking) -> str | None:
    """Another sentence that is negative and names words of the question the granting one lacks ("for
    a member confined to bed"; "neither test ... for the diagnosis of X"): it may refuse the very case
    asked, so the grant is no answer on its own."""
    def names(piece: str, term: str) -> bool:  # a stem, or one a suffix apart ("diagnos", "diagnosi")
        return any(w == term or (min(len(w), len(term)) >= 5 and (w.startswith(term) or term.startswith(w)))
                   for w in stems(piece))

    lacking = [t for t in asking.terms if t not in paying_terms() and not names(pieces[said], t)]
    return next((p for i, p in enumerate(pieces)
                 if i != said and negative(p) and any(names(p, t) for t in lacking)), None)


def _unmet_restriction(piece: str, asking: Asking) -> Condition | None:
    """A grant "only for" a case no condition pattern reads ("covered only for a male member with ..."),
    when the question does not state every word of that case: the yes holds only there. Strict on
    purpose: a question about another case ("for a female member") must not read the grant as its own."""
    pattern = cues()["restricts"]
    assert isinstance(pattern, re.Pattern)
    m = pattern.search(piece)
    if m is None:
        return None
    phrase = re.split(r"[,;]|\bwho\b|\bwhich\b|\bthat\b", piece[m.end():], maxsplit=1)[0].strip(" .")
    case = stems(phrase) - stems(" ".join(sorted(circumstance_words()))) - set(paying_terms())
    if not case or case <= stems(asking.question):
        return None
    return Condition("occasion", piece[m.start():piece.index(phrase, m.end()) + len(phrase)], restrictive=True)




def refuses_a_case(piece: str, asking: Asking) -> bool:
    """True when a refusing sentence (or list item) refuses a case of the subject, not the subject: more of
    the words before its refusal are words the question does not use than words it does ("Cancellation for
    professional reasons is not covered", asked the limit for a cancellation through illness; "a second
    product while another approval is active", asked the first approval's period). Such a refusal is no
    answer to the amounts of the case asked; one that names the subject alone ("X is not covered") is."""
    cut = denial_at(piece)
    said = stems(piece[:cut]) - stems(" ".join(sorted(circumstance_words()))) - set(paying_terms())
    asked = stems(f"{asking.question} {asking.words}")
    return len(said - asked) > len(said & asked)
