"""Question parts: "dental implant: coverage, annual cap, waiting period" is three questions about one subject.

It owns splitting a question into parts, the aspect each part asks about (coverage, limit, waiting
period, documents, exclusion) and which clause kinds answer that aspect. It reads the question only,
never a corpus; the cue words are general insurance vocabulary, not any corpus's wording.
"""

from __future__ import annotations

import re
from typing import Final, NamedTuple

from clauseguard.retrieval.tokens import STOP_WORDS, normalise, words

COVERAGE: Final = "coverage"
LIMIT: Final = "limit"
WAITING_PERIOD: Final = "waiting_period"
DOCUMENTS: Final = "documents"
EXCLUSION: Final = "exclusion"
RATE: Final = "rate"  # what share is paid: stated in the clauses that grant cover

# Most specific first: "how much is reimbursed" asks for an amount, not whether it is covered.
_CUES: Final[tuple[tuple[str, str], ...]] = (
    (
        WAITING_PERIOD,
        r"waiting|wait|qualifying period|how long before|how soon|from when|^\s*(?:and\s+)?when\s*$|"
        r"when does (?:cover|it) start|start date|after joining",
    ),
    (
        DOCUMENTS,
        r"documents?|documentation|paperwork|evidence|proof|supporting|forms?|submit|send|invoices?|"
        r"receipts?|records?|prescription needed",
    ),
    (RATE, r"rates?|percentage|percent|share|how much|what is paid|paid how much|level of (?:cover|reimbursement)|"
           r"co-?pay\w*|co-?insurance|cost[- ]shar\w*"),
    (
        LIMIT,
        r"caps?|ceilings?|limits?|limited|maximums?|max|amounts?|how many|number of|"
        r"sums?|per year|per visit|sessions|visits|nights|frequency|quantity|up to|"
        r"per [a-z]+|supplements?|contributions?|courses?|minimum period|period of \w+|duration|length|"
        r"how often|interval|how far ahead|approvals?|renewals?|reauthori[sz]ations?",
    ),
    (EXCLUSION, r"exclu\w*|exceptions?|not covered"),
    (
        COVERAGE,
        r"cover\w*|reimburs\w*|pays?|paid|payable|eligible|eligibility|included|criteria|conditions|"
        r"require\w*|approved|benefits?",
    ),
)
_CUE_PATTERNS: Final = tuple((aspect, re.compile(rf"\b(?:{rx})\b")) for aspect, rx in _CUES)
_ANY_CUE: Final = re.compile("|".join(f"(?:{p.pattern})" for _, p in _CUE_PATTERNS))

# Which clause kinds answer a part about each aspect (the rerank prefers them). A scope clause
# says what a policy is about, not whether it pays; one that states a coverage_type does answer.
PREFERRED_KINDS: Final[dict[str, frozenset[str]]] = {
    COVERAGE: frozenset({"criteria", "exclusion"}),
    LIMIT: frozenset({"limit"}),
    WAITING_PERIOD: frozenset({"waiting_period"}),
    DOCUMENTS: frozenset({"documents"}),
    EXCLUSION: frozenset({"exclusion"}),
    RATE: frozenset({"criteria", "limit"}),
}
QUANTITY_ASPECTS: Final = frozenset({LIMIT, WAITING_PERIOD, RATE})

_SENTENCES: Final = re.compile(r"[?;!]+|\.\s+(?=[A-Z])")
_STATEMENT_END: Final = re.compile(r"\.\s+(?=[A-Z])")
_PIECES: Final = re.compile(r"\s*(?:,\s*and\b|,|\band\b|&|\balso\b|\bplus\b)\s*")
# Words that phrase an aspect rather than name a subject ("the *annual* cap", "*must* be *sent*").
_ASPECT_FILLER: Final = frozenset(
    """
    annual annually yearly monthly period periods much many long soon total must need needs needed
    required sent given apply applies applied per year years month months week weeks day days
    allowed there which any how
    """.split()
)


class QuestionPart(NamedTuple):
    """One thing a question asks: the query retrieval runs, and how the response names the part."""

    text: str  # the retrieval query: the shared subject plus this part's words
    label: str  # the part as the user wrote it ("annual cap"), for `unsettled`
    subject: str  # what the question is about ("dental implant"), shared by every part
    aspect: str | None  # coverage | limit | waiting_period | documents | exclusion | None
    asks_quantity: bool  # a cap, amount, rate, waiting period or count: settled only by a stated value


_YES_NO: Final = re.compile(r"^\s*(?:is|are|does|do|can|will|would|may|could|should|has|have)\b(?!.*\b(?:how|what|which|when)\b)")
# A yes-or-no question without its auxiliary: a case told, then only the predicate asked ("Emgality for
# chronic cluster headache - covered?", "Seen by his sister. Reimbursed?"): handlers, pharmacists and
# brokers write it so in every house style's blind questions (cms_lcd, medical_policy, drug_policy, group_terms)
_YES_NO_TAIL: Final = re.compile(
    r"(?:^|[\u2014\u2013;:,.)]|\s-)\s*(?:(?:is|are)\s+(?:it|this|that|they)\s+|and\s+|still\s+)?"
    r"(?:covered|reimbursed|reimbursable|paid|payable|approved|allowed|billable|eligible)\s*\??\s*$")
# A last sentence that only names a service and its predicate ("Attended PSG covered?") or opens with
# the cover itself ("Coverage of X in the case of ...?"), asking for no value: a yes-or-no question too.
_PREDICATE_ONLY: Final = re.compile(
    r"^(?!.*\b(?:how|what|which|when|number|amount|many|much|limit|maximum|minimum|rate|period)\b)"
    r"(?:.*\b(?:covered|reimbursed|reimbursable|payable|billable)\s*\??\s*$|(?:coverage|cover|reimbursement)\s+(?:of|for)\b.*)")
# An open question ("what is ...", "how long ...") asks for a value or a description, never a bare yes.
# A preposition may lead it ("for how long", "until when", "up to what age"), and a sentence may come before
# it ("The member has OSA. Until when is ... valid?"): the question is its last sentence.
_OPEN: Final = re.compile(r"^\s*(?:and\s+)?(?:(?:for|until|till|by|from|at|after|within|up\s+to)\s+)?(?:what|which|how|when)\b")
# An open question may also ask in place, after the case it tells: "Standard written order - good for how many
# months?", "renewal approved today - valid until when?", "kits approved after two UTIs - approved through what
# point?", "inadequate below how many hours of data?", "trips covered up to?" (cms_lcd, drug_policy, medical_policy
# and group_terms questions by three authors): a question word after a preposition, "how" with what it
# measures, or a preposition or "when" left hanging at the end, where the value would stand ("replacement due
# when?": cms_lcd, medical_policy and group_terms questions).
_OPEN_IN_PLACE: Final = re.compile(
    r"\bhow\s+(?:long|many|much|often|soon|far|frequently)\b|"
    r"\b(?:for|until|till|through|within|after|before|below|above|under|over|at|by|from|up\s+to)\s+(?:what|which|when)\b|"
    r"\b(?:until|till|through|up\s+to|when)\s*\??\s*$")
# A part that opens with an auxiliary or with the predicate asks whether, whatever clause follows ("Is X covered
# when infused at home?", "covered together with an indwelling catheter", "excluded for children?").
_WHETHER_FIRST: Final = re.compile(
    r"^\s*(?:(?:is|are|does|do|can|will|would|may|could|should|has|have)\b|"
    r"(?:covered|reimbursed|reimbursable|paid|payable|billable|excluded|allowed|eligible)\b)")
_LAST_SENTENCE: Final = re.compile(r"[.?!]\s+")
# "What is the reimbursement for X?", "What does the insurer pay towards X?": what is paid, a quantity.
_WHAT_IS_PAID: Final = re.compile(r"\b(?:reimburs\w*|pays?|paid|payable|refund\w*)\b")
# "spectacles: reimbursement": the noun names the sum paid (the verb, "is it reimbursed?", asks whether).
_SUM_PAID: Final = re.compile(r"\b(?:reimbursements?|payments?|refunds?|pay-?outs?)\b")


def asks_yes_or_no(label: str) -> bool:
    """True for a yes-or-no question: its last sentence opens with an auxiliary ("Is X covered?", "The
    member is 15. Does the plan pay?"), or it ends by asking only the predicate ("X for Y - covered?")."""
    low = normalise(label).strip()
    last = _last_sentence(label)
    return bool(_YES_NO.match(last) or _YES_NO_TAIL.search(low) or _PREDICATE_ONLY.match(last))


def _last_sentence(label: str) -> str:
    """The question's last sentence, normalised: what it asks (the sentences before tell the case)."""
    return _LAST_SENTENCE.split(normalise(label).strip())[-1]


def asks_whether(part: QuestionPart) -> bool:
    """True for a part that asks whether something is covered: a yes-or-no question, or a part whose
    own words ask about cover or an exclusion ("coverage", "excluded?"). Only such a part is answered
    by a bare yes or no; "initial approval period" asks for a value even when no value cue is known."""
    if asks_yes_or_no(part.label) or _WHETHER_FIRST.match(_last_sentence(part.label)):
        return True
    return part.aspect in (COVERAGE, EXCLUSION) and not names_more(part)


def names_more(part: QuestionPart) -> bool:
    """True when a part names something of its own beyond the aspect and the shared subject: "coverage term
    once the beneficiary qualifies", "channels required for a covered test" (after "portable monitors:") ask for
    a term or a number, which a bare yes or no does not give; "coverage" does not. A piece with no subject
    shared with the others is its own subject, and names nothing more."""
    from clauseguard.reading.stated import circumstance_words

    shared = set(subject_words(part.subject).split()) | circumstance_words()
    return any(w not in shared and not w.isdigit() for w in subject_words(part.label).split())


def asks_open(label: str) -> bool:
    """True for a part written as an open question (what / which / how / when, at its start or in place):
    a yes is no answer to it."""
    last = _last_sentence(label)
    return bool(_OPEN.match(last) or _OPEN_IN_PLACE.search(last))


def aspect_of(text: str) -> str | None:
    """The aspect a part asks about: the most specific cue it contains, or None. A yes-or-no question
    about cover ("Is X covered?", "Will the plan pay for X?") asks about coverage whatever else it names."""
    low = normalise(text)
    if asks_yes_or_no(low) and _CUE_PATTERNS[-1][1].search(low):
        return COVERAGE
    for aspect, pattern in _CUE_PATTERNS:
        if pattern.search(low):
            if aspect == COVERAGE and (_OPEN.match(low) and _WHAT_IS_PAID.search(low) or _SUM_PAID.search(low)):
                return RATE  # what is paid, or the sum paid, asks how much, not whether
            return aspect
    return None


def preferred_kinds(aspect: str | None) -> frozenset[str]:
    return PREFERRED_KINDS.get(aspect or "", frozenset())


def answers_aspect(aspect: str | None, kind: str | None, coverage_type: str | None) -> bool:
    """True when a clause of this kind (or one stating a coverage type, for coverage) answers the aspect."""
    if aspect == COVERAGE and coverage_type in ("covered", "not_covered", "conditional"):
        return True
    return kind in preferred_kinds(aspect)


def subject_words(piece: str) -> str:
    """A piece's own subject: its words once cue words, question words and stop words are removed."""
    bare = _ANY_CUE.sub(" ", normalise(piece))
    kept = [w for w in words(bare) if w not in STOP_WORDS and w not in _ASPECT_FILLER]
    return " ".join(kept)


def _raw_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence, comma and "and" piece, trimmed of spaces, stops and colons."""
    spans: list[tuple[int, int]] = []
    bounds = [0, *[x for m in _SENTENCES.finditer(text) for x in m.span()], len(text)]
    for s_start, s_end in zip(bounds[::2], bounds[1::2], strict=False):
        cuts = [s_start, *[x for m in _PIECES.finditer(text, s_start, s_end) for x in m.span()], s_end]
        for a, b in zip(cuts[::2], cuts[1::2], strict=False):
            while a < b and text[a] in " .:?":
                a += 1
            while b > a and text[b - 1] in " .:?":
                b -= 1
            if a < b:
                spans.append((a, b))
    return spans


def _context_end(text: str) -> int:
    """Where the case told before a question ends: "Physiotherapy sessions given by her brother.
    Reimbursed?" tells a case in statements, then asks. Statements before a closing yes-or-no or open
    question are its context, never parts of their own (a cue word in them, "sessions", asks nothing)."""
    if not text.rstrip().endswith("?"):
        return 0
    stops = [m.end() for m in _STATEMENT_END.finditer(text)]
    if not stops:
        return 0
    last = text[stops[-1]:]
    return stops[-1] if "?" not in text[:stops[-1]] and (asks_yes_or_no(last) or asks_open(last)) else 0


def _pieces(text: str) -> list[str]:
    """Sentence, comma and "and" pieces; a piece with no aspect cue ("crowns" in "crowns, bridges and
    implants", or a sentence of context) is not a question of its own and is glued to its neighbour.
    Each piece is a verbatim stretch of the question (the scrubber finds a member's details in it as
    they were typed; a piece re-joined with other words would hide them)."""
    merged: list[tuple[int, int]] = []
    pending: tuple[int, int] | None = None
    context = _context_end(text)
    for a, b in _raw_spans(text):
        if b <= context or aspect_of(text[a:b]) is None:
            pending = (pending[0], b) if pending else (a, b)
            continue
        if pending and merged:
            merged[-1] = (merged[-1][0], pending[1])
        elif pending:
            a = pending[0]
        pending = None
        merged.append((a, b))
    if pending:
        if merged:
            merged[-1] = (merged[-1][0], pending[1])
        else:
            merged.append(pending)
    return [text[a:b] for a, b in merged]


def _listed(tail: str) -> list[str]:
    """The parts listed after a subject and a colon: each comma or "and" piece is a part, except a
    piece with no words of its own ("... and when"), which is glued to the one before."""
    raw = [tail[a:b] for a, b in _raw_spans(tail)]
    if any(aspect_of(p) is None and not subject_words(p) for p in raw):
        return _pieces(tail)
    return raw


def _part(text: str, label: str, subject: str) -> QuestionPart:
    aspect = aspect_of(label)
    return QuestionPart(
        text=" ".join(text.split()),
        label=" ".join(label.split()),
        subject=subject,
        aspect=aspect,
        asks_quantity=aspect in QUANTITY_ASPECTS,
    )


def split_question(question: str) -> list[QuestionPart]:
    """Split a question into the parts it asks, each carrying the shared subject.

    "dental implant: coverage, annual cap, waiting period" gives three parts about "dental implant";
    "Is an implant covered and what is the waiting period?" gives two, the second inheriting
    "implant". A question with a single aspect (or none) is one part. Parts keep the question's order.
    """
    question = " ".join(question.split())
    if not question:
        return []
    head, colon, tail = question.partition(":")
    if colon and head.strip() and tail.strip() and aspect_of(head) is None:
        subject = head.strip()
        pieces = _listed(tail)  # "subject: a, b and c" lists its parts itself, cue words or not
        if len(pieces) <= 1:
            return [_part(question, tail.strip(" ?.") or question, subject)]
        return [_part(f"{subject} {p}", p, subject) for p in pieces]

    pieces = _pieces(question)
    if len(pieces) <= 1:
        return [_part(question, question.strip(" ?."), subject_words(question))]
    own = [subject_words(p) for p in pieces]
    shared = next((s for s in own if s), "")
    parts = []
    for piece, subject in zip(pieces, own, strict=True):
        if subject:
            parts.append(_part(piece, piece, subject))
        else:
            parts.append(_part(f"{shared} {piece}" if shared else piece, piece, shared))
    return parts


def bare_subject(part: QuestionPart) -> str:
    """The part's subject without the words that describe the member ("a child aged 10"): what a
    passage must be about. The member's circumstances are conditions, matched by the reader."""
    from clauseguard.reading.stated import circumstance_words

    drop = circumstance_words()
    kept = [w for w in part.subject.split() if w.casefold() not in drop and not w.isdigit()]
    return " ".join(kept) or part.subject
