"""Whether a settled part may go out without a handler: the checks that hold an answer back when
another passage in scope may be the one that governs the case asked. Each returns the passage that
holds it back (cited in the part's reason), or None; none of them ever picks an answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import numpy as np

from clauseguard.reading.coverage import list_head
from clauseguard.reading.cues import broader
from clauseguard.reading.passage import sentences, stems
from clauseguard.reading.stated import circumstance_words, denies, paying_terms
from clauseguard.retrieval import Hit, QuestionPart, RetrievalIndex
from clauseguard.retrieval.parts import bare_subject
from clauseguard.retrieval.tokens import article_references, content_terms
from clauseguard.search.answers import PartAnswer, Precedence, row_of

NAMING_ROWS: Final = 25  # a question word named by more passages in scope than this is too common to name a case


def refusing_elsewhere(
    index: RetrievalIndex, words: str, answer: PartAnswer, mask: np.ndarray, precedence: Precedence,
) -> Any | None:
    """For a yes: another passage in scope (no FAQ) whose refusing sentence, or the refusing head of its
    list, names a word of the part (`words`: its own and the shared subject's) the granting passage
    never uses ("treatment by a brother or sister" refuses what "consultations with an osteopath"
    grants, asked of a sister's consultations). The first such row, or None. A no, a value and an
    article lookup are not held by it."""
    lead = answer.settled_by[0]
    if lead.reading.value != "yes" or article_references(words):
        return None
    row = row_of(index, lead.hit)
    drop = stems(" ".join(sorted(circumstance_words()))) | set(paying_terms())
    granting = stems(f"{row.article or ''} {row.section} {row.text}")
    asked = (stems(words) - granting) - drop
    # a relative the question names is refused under the broader word an exclusion uses ("his father":
    # "treatment by the insured person's parent")
    asked |= {wider for term in asked for wider in broader(term)} - granting
    seen: set[int] = set()
    for term in sorted(asked):
        naming = index.lexical.rows_naming(term)
        naming = naming[mask[naming]]
        if len(naming) > NAMING_ROWS:
            continue  # a word of many passages in scope ("treatment", "given") names no case of its own
        for at in naming.tolist():
            if at in seen or at == lead.hit.clause_index:
                continue
            seen.add(at)
            other = index.clauses.rows[at]
            if precedence.is_faq(other.document_id):
                continue
            pieces = sentences(other.text)
            for i, piece in enumerate(pieces):
                head = list_head(pieces, i)
                if term in stems(piece) and (denies(piece) or head is not None and denies(pieces[head])):
                    return other
    return None


def better_titled(
    index: RetrievalIndex, part: QuestionPart, hits: Sequence[Hit], answer: PartAnswer, precedence: Precedence,
) -> Any | None:
    """A passage of another document whose title names every subject word the answering document's
    title names, and more (look-alike titles, trap T3: "Acute treatment of migraine" against
    "Preventive treatment of migraine" for a question about prevention): the first such row, or None.
    Documents that amend one another (a rider and the policy it overrides) and FAQs never compete."""
    if article_references(part.text):
        return None
    subject = set(content_terms(bare_subject(part)))
    lead = row_of(index, answer.settled_by[0].hit)
    related = set(precedence.riders_over.get(lead.document_id, ())) | {
        d for d, riders in precedence.riders_over.items() if lead.document_id in riders}

    def named(row: Any) -> set[str]:
        return subject & set(content_terms(row.document_title))

    mine = named(lead)
    for hit in hits:
        row = row_of(index, hit)
        if row.document_id == lead.document_id or row.document_id in related or precedence.is_faq(row.document_id):
            continue
        theirs = named(row)
        if theirs > mine:
            return row
    return None
