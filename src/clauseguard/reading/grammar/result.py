"""What the rule compiler returns when it cannot read a clause whole: the unread stretches and why.

Shared by every stage of the grammar (atoms, conditions, lowering) and by evaluation, which reads a
refusal as "this clause cannot decide" (REVIEW naming the span), never as a reason to guess.
"""

from __future__ import annotations

from dataclasses import dataclass

from clauseguard.corpus.criteria import Criteria, Node, Service, Span


@dataclass(frozen=True)
class Unread:
    """A part of the clause the compiler could not read, why, and (when it was read) the service the
    sentence is about: an unreadable sentence about another service does not bear on a request."""

    span: Span
    reason: str
    subject: Service | None = None
    population: Node | None = None  # read before the sentence failed: it bears only on that population


@dataclass(frozen=True)
class Refusal:
    """The compiler's honest answer for a clause it cannot read whole: what it could not read, and
    (`partial`) what it did read, for a provisional answer under REVIEW, never for a determination."""

    unread: tuple[Unread, ...]
    partial: Criteria | None = None

    @property
    def message(self) -> str:
        parts = [f"could not read {u.span.text!r} ({u.reason})" for u in self.unread]
        return "; ".join(parts)
