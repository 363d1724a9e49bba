"""One question part answered: its passages above the threshold, read for the value they state,
with precedence applied (rider > policy > FAQ) and the condition the answer holds under.

A rider in effect on the plan that states a value of the same kind for the part replaces the policy
clause it overrides (that clause is reported as overridden, the rider cited); a FAQ never replaces
anything: a FAQ that disagrees with the answer is reported as a conflict and is not a source.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any, Final, NamedTuple

import numpy as np

from clauseguard import text as toolkit
from clauseguard.reading.counted import TIME_UNITS
from clauseguard.reading.dates import dates_in
from clauseguard.reading.extract import Asking, Reading, quantity_asked, read_passage
from clauseguard.reading.passage import stems
from clauseguard.reading.stated import frames, negative, number_of, paying_terms, stated_values
from clauseguard.retrieval import Hit, QuestionPart, RetrievalIndex, retrieve
from clauseguard.retrieval.parts import (
    DOCUMENTS,
    asks_open,
    asks_whether,
    asks_yes_or_no,
    bare_subject,
    subject_words,
)
from clauseguard.retrieval.tokens import article_references, content_terms
from clauseguard.search.answers import PartAnswer, Precedence, Settled, cite, row_of
from clauseguard.search.release import better_titled, refusing_elsewhere

SUBJECT_SHARE: Final = 1 / 3  # a source must contain at least a third of the weight of the part's subject words


def asking_of(part: QuestionPart, question: str) -> Asking:
    return Asking(
        asked=quantity_asked(part.label, part.aspect),
        asks_quantity=part.asks_quantity or quantity_asked(part.label, None) in ("duration", "count", "rate", "money", "unclear"),
        terms=tuple(content_terms(part.text)),
        words=f"{part.label} {part.subject}",
        question=question,
        item=_item(part),
        subject=bare_subject(part),
        label=part.label,
    )


def _item(part: QuestionPart) -> str:
    """The part's own words beyond its aspect and the shared subject ("conservative therapy" in "how
    many months of conservative therapy"); empty for a part that is all aspect ("annual cap")."""
    own = subject_words(part.label)
    if own == subject_words(part.subject):
        return ""
    return " ".join(w for w in own.split() if not any(c.isdigit() for c in w) and number_of(w) is None)


class _ScopeSpans(NamedTuple):
    """The documents in scope and the row spans that speak for each (flattened for numpy)."""

    documents: dict[str, int]  # document id -> its column
    starts: np.ndarray
    stops: np.ndarray
    owner: np.ndarray  # the column of each span's document


def _scope_spans(index: RetrievalIndex, mask: np.ndarray, precedence: Precedence) -> _ScopeSpans:
    """Each document in scope and the row spans that speak for it: its version under the mask, and for
    a rider also the documents it overrides (a rider amends their subject without naming it again)."""
    key = ("scope spans", id(mask))
    found = index.shared_by_decision.get(key)
    if found is not None and found[0] is mask:
        return found[1]  # type: ignore[no-any-return]
    own = {doc: span for (doc, _v), span in sorted(index.clauses.version_rows.items()) if mask[span[0]:span[1]].any()}
    columns = {doc: i for i, doc in enumerate(own)}
    spans = [(columns[doc], span) for doc, span in own.items()]
    for target, riders in sorted(precedence.riders_over.items()):
        spans += [(columns[r], own[target]) for r in riders if r in columns and target in own]
    out = _ScopeSpans(columns, np.array([s[0] for _, s in spans], np.int64), np.array([s[1] for _, s in spans], np.int64),
                      np.array([c for c, _ in spans], np.int64))
    if not mask.flags.writeable:  # a shared decision's mask: every request of it reuses the spans
        index.shared_by_decision[key] = (mask, out)
    return out


def _names_it_not(
    index: RetrievalIndex, part: QuestionPart, mask: np.ndarray, precedence: Precedence
) -> Callable[[Hit], bool]:
    """True for a passage whose document is not about the part's subject: another document in scope
    names every word of the subject this one names, and more ("Is Tremfya covered for ulcerative
    colitis?" is not answered by another drug's policy excluding ulcerative colitis, when the
    Tremfya policy is in scope). Read from the posting lists of the subject's words."""
    if article_references(part.text):
        return lambda hit: False  # an article lookup names where to read, not a subject
    scope = _scope_spans(index, mask, precedence)
    named = np.zeros((0, len(scope.documents)), dtype=bool)  # (terms, documents)
    for term in content_terms(bare_subject(part)):
        rows = index.lexical.rows_naming(term)
        if len(rows):
            hit = np.searchsorted(rows, scope.starts) != np.searchsorted(rows, scope.stops)
            column = np.zeros(len(scope.documents), dtype=bool)
            np.logical_or.at(column, scope.owner, hit)
            named = np.vstack([named, column])

    def unnamed(hit: Hit) -> bool:
        at = scope.documents.get(row_of(index, hit).document_id)
        if at is None or not len(named):
            return False
        mine = named[:, at]
        covers = ~(mine[:, None] & ~named).any(axis=0)  # documents naming every word this one names
        return bool((covers & (named.sum(axis=0) > mine.sum())).any())

    return unnamed


def _held_back(
    index: RetrievalIndex, part: QuestionPart, hits: Sequence[Hit], answer: PartAnswer, mask: np.ndarray,
    precedence: Precedence,
) -> tuple[str, bool] | None:
    """Why a settled part must go to a person after all, or None: a yes to a question that says what
    the member lacks, a yes that another passage refuses for a case the question names, or an answer
    from a policy whose look-alike in scope has the title the question fits better. The flag says
    whether the held passage is still shown as a source (not when another policy may govern)."""
    lead = row_of(index, answer.settled_by[0].hit)
    if answer.settled_by[0].reading.value == "yes" and negative(part.text):
        # "AHI 9 and none of sleepiness, insomnia or hypertension - covered?": the grant's conditions are
        # read as words of the question, and what the question denies may be what the grant requires
        return (f"the question says what the member does not have or has not had, and {cite(lead)} grants it "
                f"under conditions: whether they hold is for a person"), True
    timing = _timing(part.text) if answer.settled_by[0].reading.value == "yes" else []
    if timing:
        # "insured since 1 December 2024 ... reimbursed now?": the question gives when things happened, and
        # a grant read as a yes weighs none of it against a waiting period, a deadline or an interval
        return (f"the question states when ({', '.join(timing)}), and {cite(lead)} grants it without weighing that: "
                f"whether a waiting period, interval or deadline applies is for a person"), True
    refusing = refusing_elsewhere(index, part.text, answer, mask, precedence)
    if refusing is not None:
        return (f"{cite(lead)} grants it, but {cite(refusing)} refuses a case named by words of the question that "
                f"the granting passage never uses: whether the question is that case is for a person"), True
    rival = better_titled(index, part, hits, answer, precedence)
    if rival is not None:
        return (f"the question's words fit the title of {rival.document_id} (\u201c{rival.document_title}\u201d) better "
                f"than that of {lead.document_id}, which states it {cite(lead)}: which policy governs is for a person "
                f"{cite(rival)}"), False
    return None


def _about(index: RetrievalIndex, part: QuestionPart, hits: Sequence[Hit]) -> dict[str, float]:
    return {h.clause_id: h.subject for h in hits}


def answer_part(
    index: RetrievalIndex, part: QuestionPart, question: str, mask: np.ndarray, threshold: float, k: int,
    precedence: Precedence,
) -> tuple[PartAnswer, list[Hit]]:
    """The part from its own passages above the threshold (k per part); the rest are under it."""
    hits = retrieve(index, part, mask, k)
    about = _about(index, part, hits)
    asking = asking_of(part, question)
    below = [h for h in hits if h.score < threshold]
    readings: list[Settled] = []
    conditional: Settled | None = None
    deferred_yes: Settled | None = None
    checking: Settled | None = None
    unnamed = _names_it_not(index, part, mask, precedence)
    considered: list[Settled] = []  # policy passages read for the part, best first: what an unsettled part points to
    for hit in hits:
        if hit.score < threshold or about[hit.clause_id] < SUBJECT_SHARE:
            continue  # under the threshold, or above it on generic words but about something else
        if unnamed(hit):
            continue  # another document in scope names all of the subject this one names, and more
        row = row_of(index, hit)
        if frames(row.section) and not article_references(part.text):
            continue  # a revision history or the evidence reviewed describes the policy; it does not govern
        reading = read_passage(row.text, asking)
        if not precedence.is_faq(str(row.document_id)):
            considered.append(Settled(hit, reading))
        if reading.settles == "answers" and _asks_more_than_whether(part, reading):
            deferred_yes = deferred_yes or Settled(hit, reading)
            continue
        if reading.settled and reading.value is None and _asks_cover(part) and not article_references(part.text):
            deferred_yes = deferred_yes or Settled(hit, reading)
            continue  # "Covered?" is answered by yes or no, never by a passage quoted with neither
        if reading.settled and not _of_kind_asked(asking, reading):
            continue  # a figure read for the part that is not of the kind it asks: no answer, whatever path read it
        if reading.settled and _checks_a_figure(part, reading, row.text):
            checking = checking or Settled(hit, reading)
            continue
        if reading.settled:
            readings.append(Settled(hit, reading))
        elif reading.settles in ("conditional", "ambiguous") and conditional is None:
            conditional = Settled(hit, reading)
    answer = _ranked(index, part, readings, precedence)
    if answer.settled_by and conditional is not None and conditional.hit.score > answer.settled_by[0].hit.score \
            and about[conditional.hit.clause_id] >= about[answer.settled_by[0].hit.clause_id]:
        answer = PartAnswer(part, [], None)  # a passage that fits better leaves it open: a weaker one does not settle it
    unread = [h for h in hits if h.score >= threshold and about[h.clause_id] >= SUBJECT_SHARE
              and not precedence.is_faq(str(row_of(index, h).document_id))]
    if answer.settled_by and (unread or asking.asks_quantity) \
            and precedence.is_faq(str(row_of(index, answer.settled_by[0].hit).document_id)):
        # only a FAQ states it while a policy passage above the threshold speaks of it unread, or it is a
        # value (a cap, a period, a count) that no policy passage states above the threshold: a FAQ never
        # overrides the terms it explains and may repeat a superseded value, so a person confirms it
        lead = answer.settled_by[0]
        faq = row_of(index, lead.hit)
        said = f" ({lead.reading.value})" if lead.reading.value else ""
        answer.settled_by = []
        answer.unsettled_because = f"only a FAQ states it{said}, and a FAQ never overrides the policy terms {cite(faq)}"
        return answer, below
    if answer.settled_by:
        _apply_riders(index, part, asking, mask, k, threshold, precedence, answer)
        held = _held_back(index, part, hits, answer, mask, precedence) if answer.settled_by else None
        if held is not None:
            answer.unsettled_because, shown = held
            answer.consulted = answer.settled_by[:1] if shown else []
            answer.settled_by = []
        return answer, below
    if conditional is not None and conditional.reading.settles == "ambiguous":
        answer.consulted = [conditional]
        row = row_of(index, conditional.hit)
        reading = conditional.reading
        if {reading.value, reading.rival} == {"yes", "no"}:
            answer.unsettled_because = ("the passage grants it in one case and denies it in another, and the "
                                        f"question does not say which case applies {cite(row)}")
        else:
            answer.unsettled_because = (f"the passage states two values that fit it equally ({reading.value} and "
                                        f"{reading.rival}) {cite(row)}")
        return answer, below
    if conditional is not None:
        answer.consulted = [conditional]
        row = row_of(index, conditional.hit)
        condition = conditional.reading.condition
        said = f" (\u201c{condition.text}\u201d)" if condition is not None else ""
        answer.unsettled_because = (
            f"the passage states it except in a case the question states{said} {cite(row)}"
            if condition is not None and condition.kind == "exception" else
            f"the passage states it only under a condition the question does not state{said} {cite(row)}")
        answer.condition = conditional.reading
        return answer, below
    if checking is not None:
        answer.consulted = [checking]
        row = row_of(index, checking.hit)
        value = checking.reading.value
        asked = {v.kind for v in _figures(part.label)}
        stated = value if value not in ("yes", "no") else ", ".join(v.value for v in _figures(row.text) if v.kind in asked)
        answer.unsettled_because = (
            f"the question asks yes or no about a figure and the passage states {stated}: whether that meets the "
            f"question is for a person {cite(row)}" if stated else
            f"the question asks yes or no about a figure ({', '.join(v.value for v in _figures(part.label))}) and the "
            f"passage grants it without weighing one: whether a limit stated elsewhere applies is for a person {cite(row)}")
        return answer, below
    if deferred_yes is not None:
        answer.consulted = [deferred_yes]
        said = {"yes": "says it is covered", "no": "says it is not covered"}.get(str(deferred_yes.reading.value),
                                                                                 "speaks of it")
        answer.unsettled_because = (f"the passage {said} but states no value for what the question asks "
                                    f"{cite(row_of(index, deferred_yes.hit))}")
        return answer, below
    deferred = [s.hit for s in considered[:1]] or [h for h in hits if h.score >= threshold and about[h.clause_id] >= SUBJECT_SHARE]
    answer.consulted = considered[:1]
    if deferred:
        answer.unsettled_because = f"the passage above the threshold does not state it {cite(row_of(index, deferred[0]))}"
    else:
        answer.unsettled_because = "no passage above the threshold answers it"
    return answer, below


def _timing(text: str) -> list[str]:
    """The dates (to the day) and spans of time a question states of its case ("since 1 December 2024",
    "for 3 months"); a month alone ("in April 2025") dates the request, and an age is a circumstance."""
    days = [d for d in dates_in(text) if any(c.isdigit() for c in d.split()[0]) or len(d.split()) > 2]
    return days + [v.value for v in _figures(text) if v.kind == "duration"]


def _asks_cover(part: QuestionPart) -> bool:
    """A yes-or-no question about paying for it ("Covered?", "Is X reimbursed?", "approved?")."""
    return asks_yes_or_no(part.label) and bool(stems(part.label) & paying_terms() or re.search(r"\bapprov", part.label, re.I))


def _of_kind_asked(asking: Asking, reading: Reading) -> bool:
    """The last check before a figure goes out: a count asked is answered by a count of things, never of
    days or months ("how many pens" by "28 days"); a span asked by a span of time, never by a count of
    things or a sum."""
    stated = reading.stated
    if stated is None:
        return True
    unit = toolkit.stem(stated.unit.casefold()) if stated.unit else ""
    if asking.asked == "count":  # a night is counted (hospital nights, recording nights), a day is a span
        return stated.kind == "count" and unit not in TIME_UNITS
    if asking.asked == "duration":
        return stated.kind == "duration" or unit in TIME_UNITS | {"night"}
    return True


def _figures(text: str) -> list[Any]:
    """The quantities a text states, ages left out (an age is a circumstance the conditions weigh)."""
    return [v for v in stated_values(text) if not v.is_age]


def _checks_a_figure(part: QuestionPart, reading: Reading, passage: str) -> bool:
    """A yes-or-no question is answered only by yes or no, and by a yes about a figure only where the
    passage states none to weigh it against: "Is the initial approval good for 12 months?" is not
    answered by "3 months", nor "Is one headgear every three months covered?" by a bare yes beside
    the passage's own frequency. Comparing the two is left to a person."""
    if not asks_yes_or_no(part.label) or asks_open(part.label) or reading.value is None:
        return False
    if reading.value not in ("yes", "no"):
        return True
    # a "no" the passage says outright stands; a "yes" beside the passage's own figures of that kind may be
    # a yes for another figure, and a "yes" that weighs no figure of that kind may be bounded by a limit the
    # passage does not state ("a second study within 12 months - covered?" against a grant of the study)
    return reading.value == "yes" and bool(_figures(part.label))


def _asks_more_than_whether(part: QuestionPart, reading: Reading) -> bool:
    """True when a yes or no is no answer to the part: "what is paid for X?" is not answered by "X is
    paid", nor "minimum recorded sleep" by "covered". A part about documents, or an article lookup, is
    answered by the passage itself."""
    if part.aspect == DOCUMENTS or article_references(part.text):
        return False
    return reading.value == "yes" and asks_open(part.label) or not asks_whether(part)


def _ranked(index: RetrievalIndex, part: QuestionPart, readings: list[Settled], precedence: Precedence) -> PartAnswer:
    """Policy passages before FAQs (by score within each); a FAQ that disagrees with the answer is a conflict."""
    def document(s: Settled) -> str:
        return str(row_of(index, s.hit).document_id)

    ordered = sorted(readings, key=lambda s: (precedence.is_faq(document(s)), -s.hit.score, s.hit.clause_id))
    answer = PartAnswer(part, [], None)
    if not ordered:
        return answer
    lead = ordered[0]
    for s in ordered:
        if precedence.is_faq(document(s)) and not precedence.is_faq(document(lead)) \
                and s.reading.value is not None and lead.reading.value is not None and s.reading.value != lead.reading.value:
            answer.conflicts.append((s.hit, lead.hit.clause_id))
            continue
        answer.settled_by.append(s)
    return answer


def _apply_riders(
    index: RetrievalIndex, part: QuestionPart, asking: Asking, mask: np.ndarray, k: int, threshold: float,
    precedence: Precedence, answer: PartAnswer,
) -> None:
    """A rider in scope that overrides the answering document and states a value of the same kind
    for this part replaces the document's passage; the passage is reported as overridden."""
    lead = answer.settled_by[0]
    document = str(row_of(index, lead.hit).document_id)
    if lead.reading.stated is not None and precedence.kinds.get(document) == "rider":
        # the rider answers already: the passages of the documents it overrides that state the same kind step aside
        amended = {d for d, riders in precedence.riders_over.items() if document in riders}
        replaced = [s for s in answer.settled_by[1:] if str(row_of(index, s.hit).document_id) in amended
                    and s.reading.stated is not None and s.reading.stated.kind == lead.reading.stated.kind]
        answer.overridden.extend((s.hit, lead.hit.clause_id) for s in replaced)
        answer.settled_by = [s for s in answer.settled_by if s not in replaced]
        return
    riders = precedence.riders_over.get(document, ())
    if not riders or lead.reading.stated is None or article_references(part.text):
        return  # a rider replaces a stated value; an article lookup asks for that article
    rows = [r for rid in riders for r in _rows_of_document(index, rid)]
    rider_mask = np.zeros(index.size, dtype=bool)
    rider_mask[rows] = True
    rider_mask &= mask
    if not rider_mask.any():
        return
    hits = retrieve(index, part, rider_mask, k)
    about = _about(index, part, hits)
    for hit in hits:
        reading = read_passage(row_of(index, hit).text, asking)
        if about[hit.clause_id] < SUBJECT_SHARE:
            kind = lead.reading.stated.kind
            if about[hit.clause_id] > 0 and hit.score >= threshold \
                    and any(v.kind == kind for v in stated_values(row_of(index, hit).text)):
                # the rider amends this document with a value of the same kind, on words the reader
                # cannot tie to the part: which value stands is for a person to say
                answer.consulted, answer.settled_by = answer.settled_by[:1], []
                answer.unsettled_because = (f"a rider on the plan amends {document} with a value of the same kind "
                                            f"{cite(row_of(index, hit))}; whether it changes this value is not settled")
                return
            continue
        if reading.settles == "stated" and reading.stated is not None and reading.stated.kind == lead.reading.stated.kind:
            replaced = [s for s in answer.settled_by if str(row_of(index, s.hit).document_id) == document]
            answer.overridden.extend((s.hit, hit.clause_id) for s in replaced)
            rest = [s for s in answer.settled_by if s not in replaced and s.hit.clause_id != hit.clause_id]
            answer.settled_by = [Settled(hit, reading), *rest]
            return


def _rows_of_document(index: RetrievalIndex, document_id: str) -> list[int]:
    found: list[int] = []
    for (doc, _version), (start, stop) in index.clauses.version_rows.items():
        if doc == document_id:
            found.extend(range(start, stop))
    return found
