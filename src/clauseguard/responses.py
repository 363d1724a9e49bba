"""The one typed answer model: search, determination, compare, citations, checks, reasons, conflicts.

Every answer the engine gives is one of these pydantic models; the verifier and the gate read them,
the renderers (terminal, page) draw them, the API and the MCP tools publish their JSON Schemas, and
tests build and read them. It is the only place an answer's shape is defined; it decides nothing.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field

Gate = Literal["DETERMINE", "REVIEW", "REFUSE", "HALT"]
Outcome = Literal["COVERED", "NOT_COVERED", "INSUFFICIENT_EVIDENCE"]
CriterionValue = Literal["met", "not_met", "unknown"]
SearchStatus = Literal["answered", "refused"]
Action = Literal["none", "escalate to handler"]
CHECK_NAMES: tuple[str, ...] = ("exists", "verbatim", "in_effect", "applicable", "supports")


class AnswerModel(BaseModel):
    """Strict: an unknown field is a bug in the code that built the answer, never silently kept."""

    model_config = ConfigDict(extra="forbid")

    # Fields the design shows only when they carry something (a requested date that differs, the
    # codes a search was narrowed by, a refusal's reason code, a model's report).
    OMIT_WHEN_NONE: ClassVar[frozenset[str]] = frozenset()

    def as_json(self) -> dict[str, Any]:
        """The JSON form every interface prints, stores and returns."""
        data = self.model_dump(mode="json")
        return _omit(self, data)


def _omit(model: BaseModel, data: Any) -> Any:
    if isinstance(model, AnswerModel) and isinstance(data, dict):
        for name in model.OMIT_WHEN_NONE:
            if data.get(name) is None:
                data.pop(name, None)
        for name, value in list(data.items()):
            child = getattr(model, name, None)
            if isinstance(child, BaseModel):
                data[name] = _omit(child, value)
            elif isinstance(child, list) and isinstance(value, list):
                data[name] = [_omit(c, v) if isinstance(c, BaseModel) else v for c, v in zip(child, value, strict=True)]
    return data


# --- parts shared by every answer --------------------------------------------------------------


class Reason(AnswerModel):
    """A sentence a handler can act on, with a stable `code` for machines."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    code: str
    text: str

    def __init__(self, code: str | None = None, text: str | None = None, **data: Any) -> None:
        if code is not None:
            data["code"] = code
        if text is not None:
            data["text"] = text
        super().__init__(**data)

    def as_dict(self) -> dict[str, str]:
        return {"code": self.code, "text": self.text}


class Flag(AnswerModel):
    """Something noticed in the request that changed nothing: an instruction, a discrepancy, ..."""

    kind: str
    text: str


class Timings(AnswerModel):
    """Seconds spent; the only fields that differ between two identical requests."""

    OMIT_WHEN_NONE: ClassVar[frozenset[str]] = frozenset({"model_s", "stages"})

    engine_s: float | None = None
    stages: dict[str, float] | None = None
    model_s: float | None = None


class Passage(AnswerModel):
    """A clause as a list entry: where it is (document, version, article, page as printed) and its score."""

    OMIT_WHEN_NONE: ClassVar[frozenset[str]] = frozenset({"page_label", "page_end", "page_end_label"})

    clause_id: str
    document_id: str
    version: str
    article: str | None = None
    page: int | None = None
    page_label: str | None = None
    page_end: int | None = None
    page_end_label: str | None = None
    score: float


class Source(Passage):
    """A passage above the threshold that speaks to a part, with its excerpt: the one that states the
    answer, or (`settles` false) the passage an unsettled part's reason points to, for a person to read."""

    excerpt: str
    settles: bool = True


class ExcludedPassage(Passage):
    """A well-matching clause that may not be used, with the fixed reason it is out."""

    reason: str


class RetrievedClause(AnswerModel):
    """A clause handed to the reader, ranked by retrieval for the question."""

    clause_id: str
    document_id: str
    version: str
    score: float
    in_effect: bool


# --- determination -----------------------------------------------------------------------------


class Checks(AnswerModel):
    """The cold verifier's five checks of one citation."""

    exists: bool
    verbatim: bool
    in_effect: bool
    applicable: bool
    supports: bool

    @classmethod
    def failing(cls) -> Checks:
        return cls(exists=False, verbatim=False, in_effect=False, applicable=False, supports=False)

    def failed(self) -> list[str]:
        return [name for name in CHECK_NAMES if not getattr(self, name)]


class Claim(AnswerModel):
    """What a citation's statement claims, in terms the verifier can recompute from the re-fetched text."""

    kind: Literal["criteria", "unreadable", "amendment"]
    outcome: str | None = None
    atoms: dict[str, CriterionValue] = Field(default_factory=dict)
    riders: list[str] = Field(default_factory=list)
    designations: list[str] = Field(default_factory=list)
    references: list[str] = Field(default_factory=list)  # clauses whose criteria a reference named
    revisions: dict[str, str] = Field(default_factory=dict)  # clause id -> the criteria revision it was read with


class ReadBy(AnswerModel):
    """Who read a clause's criteria: the rule compiler, the corpus's own policy-as-code, or an approved
    criteria revision (its id, its author and who approved it)."""

    OMIT_WHEN_NONE: ClassVar[frozenset[str]] = frozenset({"revision_id", "author", "approved_by"})

    source: Literal["compiler", "corpus", "revision"]
    revision_id: str | None = None
    author: str | None = None
    approved_by: str | None = None

    @property
    def words(self) -> str:
        if self.source == "revision":
            return f"read by revision {self.revision_id} of {self.author}, approved by {self.approved_by}"
        return "read from the corpus's own criteria" if self.source == "corpus" else "read by the compiler"


class Citation(AnswerModel):
    """A cited clause: its verbatim quote, the statement it supports, the verifier's checks, and who
    read its criteria (`read_by`, on a determination's citations)."""

    OMIT_WHEN_NONE: ClassVar[frozenset[str]] = frozenset({"read_by"})

    clause_id: str
    quote: str
    statement: str
    checks: Checks | None = None
    read_by: ReadBy | None = None
    claim: Claim = Field(exclude=True)  # for the verifier; never part of the published answer


class CriterionResult(AnswerModel):
    """One criterion of a deciding clause, mapped to the fact that settles it or named as missing."""

    clause_id: str
    criterion: str
    clause_span: str
    role: str
    result: CriterionValue
    fact: str | None = None
    narrative_span: str | None = None  # from the redacted narrative
    source: str | None = None
    missing: str | None = None
    waived: bool = False


class ConflictReport(AnswerModel):
    """A disagreement between sources and how precedence settles it (rider > policy > FAQ)."""

    sources: list[str]
    overridden_by: list[str]
    precedence: str
    description: str
    request_relies_on_overridden: bool


# --- the deployment's gate policy, as every determination shows it -----------------------------


class GatePolicyReport(AnswerModel):
    """The deployment's gate policy (configuration, not code) and what it did to this answer."""

    name: str
    automatic_outcomes: list[Outcome]  # outcomes a DETERMINE may release on its own
    applied: bool = False  # True when the policy sent this answer to REVIEW


class DeterminationResponse(AnswerModel):
    """The design's determination answer."""

    OMIT_WHEN_NONE: ClassVar[frozenset[str]] = frozenset({"model", "cost_usd"})

    gate: Gate
    outcome: Outcome
    reasons: list[Reason]
    answer: str
    citations: list[Citation] = Field(default_factory=list)
    criteria: list[CriterionResult] = Field(default_factory=list)
    conflicts: list[ConflictReport] = Field(default_factory=list)
    missing_facts: list[str] = Field(default_factory=list)
    excluded: list[ExcludedPassage] = Field(default_factory=list)
    retrieved: list[RetrievedClause] = Field(default_factory=list)
    flags: list[Flag] = Field(default_factory=list)
    assertion_id: str = ""
    trace_id: str = ""
    timings: Timings = Field(default_factory=Timings)
    model: dict[str, Any] | None = None  # what a configured model did (clauseguard.models)
    cost_usd: float | None = None
    policy: GatePolicyReport = Field(default_factory=lambda: GatePolicyReport(
        name="default", automatic_outcomes=["COVERED", "NOT_COVERED"]))


# --- search ------------------------------------------------------------------------------------


PartStatus = Literal["answered", "unsettled"]


class StatedValue(AnswerModel):
    """One value a clause states, with what it is for: (item, value, unit, period, condition).

    `value` is the quantity in the form handlers compare ("EUR 1,500", "80%", "6 months",
    "30 visits") or `yes` / `no` for coverage; `text` is the words of the clause that state it."""

    item: str | None = None  # what the value is for ("implant", "visit", "night"), from the clause
    value: str
    unit: str | None = None  # a currency, "percent", a time unit, or the counted noun
    period: str | None = None  # the counting window as written ("per contract year")
    condition: str | None = None  # the circumstance the value holds under, as written
    text: str  # verbatim, from the clause


class PartResult(AnswerModel):
    """How one question part was answered: the value, the clause and sentence that state it, and the
    condition stated with it; or why it is unsettled."""

    OMIT_WHEN_NONE: ClassVar[frozenset[str]] = frozenset({"clause_id", "value", "excerpt", "condition", "why"})

    part: str  # the part as the user wrote it
    status: PartStatus
    clause_id: str | None = None
    value: StatedValue | None = None
    excerpt: str | None = None  # the sentence that states the answer, verbatim
    condition: str | None = None  # a condition the passage states and the question does not
    why: str | None = None  # why the part is unsettled


class OverriddenPassage(Passage):
    """A clause of the policy that a rider in effect on the plan replaces in the answer."""

    by: str  # the rider clause that states the value instead
    part: str  # the question part it would have answered


class SearchConflict(AnswerModel):
    """A lower-precedence source (a FAQ) that disagrees with the answer: reported, never followed."""

    part: str
    clause_id: str  # the FAQ's clause
    document_id: str
    overridden_by: str  # the clause whose answer stands
    precedence: str  # "rider > policy > FAQ"
    description: str


class SearchAnswer(AnswerModel):
    """What a question over one scope finds: sources, what was left out, and the sourced answer."""

    OMIT_WHEN_NONE: ClassVar[frozenset[str]] = frozenset({"reason"})

    excluded: list[ExcludedPassage] = Field(default_factory=list)
    below_threshold: list[Passage] = Field(default_factory=list)
    status: SearchStatus
    reason: str | None = None  # "no_evidence" or "no_version" on a refusal
    sources: list[Source] = Field(default_factory=list)
    action: Action
    unsettled: list[str] = Field(default_factory=list)
    answer: str
    parts: list[PartResult] = Field(default_factory=list)
    overridden: list[OverriddenPassage] = Field(default_factory=list)
    conflicts: list[SearchConflict] = Field(default_factory=list)


class SearchResponse(SearchAnswer):
    """The design's search answer over a contract's or a plan's terms on a date."""

    OMIT_WHEN_NONE: ClassVar[frozenset[str]] = frozenset(
        {"reason", "contract_id", "payer_id", "plan_id", "requested_date", "codes", "governing_documents"}
    )

    contract_id: str | None = None
    payer_id: str | None = None
    plan_id: str | None = None
    effective_date: str | None
    requested_date: str | None = None
    applicable_version: str | None
    applicable_versions: dict[str, str] | None
    threshold: float
    k: int
    codes: list[str] | None = None
    governing_documents: list[str] | None = None
    trace_id: str = ""
    timings: Timings = Field(default_factory=Timings)


# --- compare -----------------------------------------------------------------------------------


class CompareSide(SearchAnswer):
    """One side of a comparison: the target, the date its versions were chosen on, and its answer."""

    target: str
    as_of_date: str
    applicable_versions: dict[str, str]


class DifferenceSide(AnswerModel):
    """A clause on one side of a difference, with the value compared or its text."""

    OMIT_WHEN_NONE: ClassVar[frozenset[str]] = frozenset({"text", "value"})

    clause_id: str
    text: str | None = None
    value: str | None = None


class Difference(AnswerModel):
    """One point where the two sides differ."""

    aspect: str
    a: DifferenceSide | None
    b: DifferenceSide | None
    summary: str


class CompareResponse(AnswerModel):
    """The same question against two targets, each side answered, differences point by point."""

    question: str
    a: CompareSide
    b: CompareSide
    differences: list[Difference]
    not_compared: list[str]
    trace_id: str = ""
    timings: Timings = Field(default_factory=Timings)


# --- retrieval evaluation ----------------------------------------------------------------------


class RankedClause(AnswerModel):
    clause_id: str
    rank: int
    score: float


class RetrievalEvalResponse(AnswerModel):
    """Recall of gold clauses among what retrieval hands the reader."""

    recall: float | None
    retrieved: list[RankedClause]
    missing: list[str]


Answer = DeterminationResponse | SearchResponse | CompareResponse


# --- lookups: what every interface shows next to an answer --------------------------------------


class ClauseRecord(AnswerModel):
    """One clause read from the store by id, with its document and version."""

    OMIT_WHEN_NONE: ClassVar[frozenset[str]] = frozenset({"page_label", "page_end", "page_end_label"})

    clause_id: str
    document_id: str
    document_title: str
    kind: str | None
    version: str
    effective_start: str
    effective_end: str | None
    section: str
    article: str | None
    page: int | None
    page_label: str | None = None
    page_end: int | None = None  # the last page, when the clause runs over a page break
    page_end_label: str | None = None
    text: str


class VersionEntry(AnswerModel):
    version: str
    effective_start: str
    effective_end: str | None
    clauses: int


class TimelineEntry(AnswerModel):
    kind: str
    version: str
    date: str
    detail: str


class VersionTimeline(AnswerModel):
    """A document's versions in date order (periods inclusive, a null end open-ended) and its events."""

    document_id: str
    title: str
    kind: str
    payer: str
    versions: list[VersionEntry]
    events: list[TimelineEntry]


class CodeDocument(AnswerModel):
    document_id: str
    payer: str
    kind: str
    title: str


class CodeRecord(AnswerModel):
    """A code, its system and descriptor, and the documents that govern it."""

    code: str
    system: str
    descriptor: str
    documents: list[CodeDocument]


class RiderEntry(AnswerModel):
    rider_id: str
    title: str
    overrides: list[str]
    version: str
    effective_start: str
    effective_end: str | None


class PlanRiders(AnswerModel):
    """The riders attached to a plan; with a date, only those with a version in effect that day."""

    plan_id: str
    payer_id: str
    as_of_date: str | None
    riders: list[RiderEntry]


class CatalogPayer(AnswerModel):
    id: str
    name: str


class CatalogPlan(AnswerModel):
    id: str
    payer: str
    name: str
    riders: list[str]


class CatalogContract(AnswerModel):
    id: str
    plan: str
    holder: str
    effective_date: str
    end_date: str | None
    terms_anchor: str


class CatalogCode(AnswerModel):
    code: str
    system: str
    descriptor: str


class CatalogDocument(AnswerModel):
    id: str
    payer: str
    kind: str
    title: str
    codes: list[str]
    plans: list[str]
    overrides: list[str]
    versions: list[str]


class CatalogRider(AnswerModel):
    """A rider document, the plans it is attached to and the documents whose requirements it changes."""

    rider_id: str
    payer: str
    title: str
    attached_to: list[str]
    overrides: list[str]
    versions: list[str]


class Catalog(AnswerModel):
    """What a handler or an agent picks from: payers, plans, riders, contracts, documents, codes."""

    description: str
    fingerprint: str
    payers: list[CatalogPayer]
    plans: list[CatalogPlan]
    riders: list[CatalogRider]
    contracts: list[CatalogContract]
    documents: list[CatalogDocument]
    codes: list[CatalogCode]


class AuditView(AnswerModel):
    """What the audit log holds for one assertion or search trace id (redacted request and response)."""

    assertion_id: str
    trace_id: str
    kind: str
    corpus_fingerprint: str
    recorded_at: str
    request: dict[str, Any]
    response: dict[str, Any]
    settings: dict[str, Any]


class AuditEntry(AnswerModel):
    """One row of `clauseguard audit list`: what was answered, when, and how."""

    OMIT_WHEN_NONE: ClassVar[frozenset[str]] = frozenset({"gate", "outcome", "status", "final_outcome"})

    seq: int
    recorded_at: str
    kind: str
    assertion_id: str
    trace_id: str
    corpus_fingerprint: str
    gate: str | None = None
    outcome: str | None = None
    status: str | None = None
    final_outcome: str | None = None  # the latest person's decision recorded against it


class TraceView(AnswerModel):
    """`clauseguard trace ID`: the trace lines of a request and its audit row, as recorded."""

    OMIT_WHEN_NONE: ClassVar[frozenset[str]] = frozenset({"audit"})

    id: str
    traces: list[dict[str, Any]]
    audit: AuditEntry | None = None


# --- a person's final decision and what the decisions say about the engine ----------------------


class FinalDecision(AnswerModel):
    """A person's final decision recorded against an assertion (append-only), beside the engine's."""

    seq: int
    assertion_id: str
    final_outcome: Outcome
    decided_by: str
    reason: str
    recorded_at: str
    engine_gate: Gate
    engine_outcome: Outcome
    agrees: bool  # the person's outcome is the engine's outcome


class RateRow(AnswerModel):
    """Agreement and override counts for one group of decided assertions."""

    group: str
    decided: int
    agreed: int
    overridden: int
    agreement_rate: float
    override_rate: float


class DecisionReport(AnswerModel):
    """`clauseguard report`: how often people agreed with the engine, by gate, document and reason."""

    decided: int
    agreed: int
    overridden: int
    agreement_rate: float | None
    override_rate: float | None
    by_gate: list[RateRow]
    by_document: list[RateRow]
    by_reason: list[RateRow]


# --- the service around the answers -------------------------------------------------------------


class ErrorMessage(AnswerModel):
    """An error that is not about one field: an unknown id (404), a missing key (401), a large body (413)."""

    detail: str


class Health(AnswerModel):
    """`/healthz`: the process answers (it says nothing about the corpus or the index)."""

    status: Literal["ok"]
    version: str


class Readiness(AnswerModel):
    """`/readyz`: every model, table and index this server answers with is loaded."""

    OMIT_WHEN_NONE: ClassVar[frozenset[str]] = frozenset({"corpus_fingerprint", "error"})

    status: Literal["ready", "starting", "failed"]
    version: str
    components: dict[str, bool]
    corpus_fingerprint: str | None = None
    error: str | None = None


class ModelEndpointStatus(AnswerModel):
    model: str  # provider:model, never its address
    reachable: bool
    model_listed: bool | None = None
    detail: str


class ModelStatus(AnswerModel):
    """`/v1/model/status`: the optional model backend as a remote caller may see it (no key, no URL)."""

    OMIT_WHEN_NONE: ClassVar[frozenset[str]] = frozenset(
        {"detail", "provider", "model", "api_key", "reachable", "endpoints", "roles", "limits", "price", "budget"})

    configured: bool
    detail: str | None = None
    provider: str | None = None
    model: str | None = None
    api_key: str | None = None  # "set (VARIABLE)", "not set (VARIABLE)" or "not needed"
    reachable: bool | None = None
    endpoints: list[ModelEndpointStatus] | None = None
    roles: dict[str, Any] | None = None
    limits: dict[str, Any] | None = None
    price: dict[str, Any] | None = None
    budget: dict[str, Any] | None = None
    checked_at: str  # when the model was last probed (UTC)


# --- criteria authoring (clauseguard.authoring) ------------------------------------------------


class CriteriaSheet(AnswerModel):
    """A criteria sheet (`criteria draft`): per clause its role, its tree or the holes the compiler left
    (each with the unread span and the reason), and the hash of the clause text it encodes."""

    OMIT_WHEN_NONE: ClassVar[frozenset[str]] = frozenset({"version", "corpus_fingerprint"})

    format: str
    document: str
    version: str | None = None
    corpus_fingerprint: str | None = None
    clauses: list[dict[str, Any]]


class SheetProblemEntry(AnswerModel):
    clause_id: str | None
    path: str  # the key path in the sheet, e.g. clauses[3].criteria.rules[0].when.kind
    message: str  # what is wrong and what would be valid


class CheckedClause(AnswerModel):
    id: str
    role: str
    deciding: bool
    authored: bool  # False: the entry says what the compiler (or the corpus's own criteria) reads
    plain: list[str]  # the tree in plain words


class CriteriaCheck(AnswerModel):
    """`criteria check`: every problem of a sheet (none: it may be added) and each tree in plain words."""

    ok: bool
    document: str
    problems: list[SheetProblemEntry]
    clauses: list[CheckedClause]


class CriteriaSpan(AnswerModel):
    start: int
    end: int
    kind: Literal["rule", "subject", "criterion", "reference", "note"]
    label: str


class UnreadSpan(AnswerModel):
    start: int
    end: int
    reason: str


class ClauseCriteria(AnswerModel):
    """A clause with the spans of its criteria, the stretches no one reads, the tree in plain words, and
    who reads it (the compiler, the corpus's own criteria, or revision R of NAME)."""

    clause_id: str
    document_id: str
    version: str
    text: str
    role: str
    deciding: bool
    read_by: ReadBy
    spans: list[CriteriaSpan]
    unread: list[UnreadSpan]
    plain: list[str]


class CriteriaRevisionEntry(AnswerModel):
    revision_id: str
    clause_id: str
    role: str
    author: str
    note: str
    created_at: str
    content_hash: str
    approved_by: list[str]
    approved_at: list[str]
    intact: bool  # False: the row no longer matches its id and content hash


class CriteriaLog(AnswerModel):
    """`criteria log`: a clause's revisions, oldest first, and who reads it now."""

    clause_id: str
    read_by: str
    active_revision: str | None
    revisions: list[CriteriaRevisionEntry]


class AddedRevision(AnswerModel):
    clause_id: str
    status: Literal["added", "already recorded", "unchanged", "read by the compiler"]
    revision_id: str | None


class CriteriaAdded(AnswerModel):
    """`criteria add`: per clause of the sheet, whether a revision was written (used once approved)."""

    added: list[AddedRevision]
