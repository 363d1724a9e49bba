"""The model's part in a determination: read what the rules could not, phrase, doubt; never decide.

`ModelAssist` lives as long as an engine (clients, prices, the usage ledger, model-read criteria
cached per clause text hash); `ModelRun` is one determination's use of it. The rules it enforces:

- a model reads criteria only for governing clauses the rule compiler refused and that bear on the
  request, and facts only for criteria the reader left unknown; every one is checked (checks.py),
  and any that is used sends the answer to REVIEW with a reason naming it, so a model can never
  make a DETERMINE on its own reading;
- the support judge can only add a REVIEW reason, never remove one;
- phrasing replaces the deterministic text only when every sentence passes its checks;
- a request timeout or a blown cap (time per determination, tokens, dollars) is a REVIEW reason; a
  model that cannot be reached or whose quota is spent stops the model for this determination and
  the deterministic answer goes out, saying why.

The gate stays the only decider: `settle` feeds it more reasons and calls it again.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from typing import TYPE_CHECKING, Any, Final

from clauseguard.corpus.criteria import Criteria, all_atoms
from clauseguard.gate import GateDecision, GateInput, decide
from clauseguard.models.checks import (
    FACT_KINDS,
    AcceptedFact,
    OfferedCriterion,
    Rejected,
    Sentence,
    accept_criteria,
    accept_facts,
    accept_phrasing,
    accept_verdicts,
)
from clauseguard.models.clients import (
    ChatRequest,
    ModelBadResponse,
    ModelClient,
    ModelError,
    ModelQuotaExhausted,
    ModelTimeout,
    client_for,
)
from clauseguard.models.config import ROLES, ModelConfig, Role
from clauseguard.models.ledger import UsageLedger
from clauseguard.models.prices import PriceTable, default_prices
from clauseguard.models.prompts import (
    PROMPT_VERSION,
    SCHEMA_NAMES,
    SYSTEM,
    NarrativeView,
    schema_for,
    user_prompt,
)
from clauseguard.responses import Citation, DeterminationResponse, Reason, Timings

if TYPE_CHECKING:
    from clauseguard.determination import Governing, Read, Resolution
    from clauseguard.preflight import Preflight
    from clauseguard.reading.compiler import Refusal

UNAVAILABLE_NOTICE: Final = "Policy evidence was found, but answer generation is currently unavailable"
MAX_OFFERED_FACTS: Final = 24
_VERDICT: Final = {"COVERED": "covered", "NOT_COVERED": "not covered"}

ClientFactory = Callable[[Any], ModelClient]


class ModelAssist:
    """What a process keeps for the model across determinations."""

    def __init__(
        self,
        config: ModelConfig,
        *,
        clock: Callable[[], float] = time.monotonic,
        prices: PriceTable | None = None,
        ledger: UsageLedger | None = None,
        client_factory: ClientFactory | None = None,
    ) -> None:
        self.config = config
        self.clock = clock
        self.prices = prices or default_prices()
        self.ledger = ledger or UsageLedger()
        self._factory = client_factory or (
            lambda endpoint: client_for(endpoint, num_ctx=config.num_ctx, json_mode=config.json_mode)
        )
        self._clients: dict[str, ModelClient] = {}
        # model-read criteria (or why they were rejected) per (clause text hash, model, prompt version)
        self.criteria_cache: dict[tuple[str, str, str], Criteria | str] = {}

    def enabled(self, role: Role) -> bool:
        return self.config.role(role).enabled

    def client(self, role: Role) -> ModelClient:
        endpoint = self.config.endpoint_for(role)
        if endpoint.spec not in self._clients:
            self._clients[endpoint.spec] = self._factory(endpoint)
        return self._clients[endpoint.spec]

    def start(self) -> ModelRun:
        """A fresh run for one determination (its clock starts now)."""
        return ModelRun(self)


@dataclass
class CallRecord:
    """One model call (or a cached reading, or a call skipped): what it was for and what it cost."""

    role: str
    subject: str
    status: str  # ok | cached | rejected | timeout | quota | unavailable | bad_response | skipped | cap
    input_tokens: int = 0
    output_tokens: int = 0
    usd: float = 0.0


class ModelRun:
    """One determination's use of the model; `reread`, `settle` and `finish` are called in that order."""

    def __init__(self, assist: ModelAssist) -> None:
        self.assist = assist
        self.config = assist.config
        self.started = assist.clock()
        self.calls: list[CallRecord] = []
        self.accepted: dict[str, int] = dict.fromkeys(ROLES, 0)
        self.rejected: list[dict[str, str]] = []
        self.review: list[Reason] = []  # model output that was used: the gate must send it to a person
        self.budget: list[Reason] = []  # a timeout or a blown cap
        self.stopped: str | None = None  # why no further call is made in this determination
        self.applied: list[str] = []
        self.latency_s = 0.0
        self.input_tokens = 0
        self.output_tokens = 0
        self.usd = 0.0
        self.sentences: list[Sentence] | None = None
        self.phrasing_wanted = False
        self.decision: GateDecision | None = None

    # -- calls ---------------------------------------------------------------------------------

    def _stop(self, reason: str, *, review_code: str | None = None) -> None:
        if self.stopped is None:
            self.stopped = reason
        if review_code is not None and not any(r.code == review_code for r in self.budget):
            self.budget.append(Reason(review_code, reason))

    def _reject(self, role: str, subject: str, why: str) -> None:
        self.rejected.append({"role": role, "subject": subject, "why": why})

    def ask(self, role: Role, subject: str, payload: dict[str, Any], narrative: NarrativeView | None = None) -> str | None:
        """The model's raw answer for one role, or None (stopped, capped, failed; all recorded)."""
        limits = self.config.limits
        if self.stopped is not None:
            self.calls.append(CallRecord(role, subject, "skipped"))
            return None
        remaining = limits.time_cap_s - (self.assist.clock() - self.started)
        if remaining <= 0:
            self.calls.append(CallRecord(role, subject, "cap"))
            self._stop(f"model time cap of {limits.time_cap_s:g}s per determination reached", review_code="model_time_cap")
            return None
        if limits.budget_usd is not None and self.assist.ledger.spent() >= limits.budget_usd:
            self.calls.append(CallRecord(role, subject, "quota"))
            self._stop(f"model quota exhausted: the monthly budget of ${limits.budget_usd:g} is spent")
            return None
        timeout = min(limits.request_timeout_s, remaining)
        settings = self.config.role(role)
        request = ChatRequest(SYSTEM[role], user_prompt(role, payload, narrative), schema_for(role),
                              SCHEMA_NAMES[role], settings.max_output_tokens, timeout)
        client = self.assist.client(role)
        began = self.assist.clock()
        try:
            result = client.complete(request)
        except ModelTimeout:
            self.calls.append(CallRecord(role, subject, "timeout"))
            if timeout < limits.request_timeout_s:
                self._stop(f"model time cap of {limits.time_cap_s:g}s per determination reached",
                           review_code="model_time_cap")
            else:
                self._stop(f"model timed out after {timeout:g}s ({role.replace('_', ' ')})", review_code="model_timeout")
            return None
        except ModelBadResponse as exc:
            self.calls.append(CallRecord(role, subject, "bad_response"))
            self._reject(role, subject, exc.detail)
            return None
        except ModelQuotaExhausted as exc:
            self.calls.append(CallRecord(role, subject, "quota"))
            self._stop(str(exc))
            return None
        except ModelError as exc:  # unavailable: not reachable, refused key, SDK missing
            self.calls.append(CallRecord(role, subject, "unavailable"))
            self._stop(str(exc))
            return None
        finally:
            self.latency_s += self.assist.clock() - began
        endpoint = self.config.endpoint_for(role)
        usd = self.assist.prices.price(endpoint).cost(result.input_tokens, result.output_tokens)
        self.input_tokens += result.input_tokens
        self.output_tokens += result.output_tokens
        self.usd += usd
        self.assist.ledger.record(provider=endpoint.provider, model=endpoint.model, role=role,
                                  input_tokens=result.input_tokens, output_tokens=result.output_tokens, usd=usd)
        record = CallRecord(role, subject, "ok", result.input_tokens, result.output_tokens, round(usd, 8))
        self.calls.append(record)
        used = self.input_tokens + self.output_tokens
        if used > limits.max_tokens:
            record.status = "cap"
            self._stop(f"model token cap of {limits.max_tokens} per determination reached ({used} used)",
                       review_code="model_token_cap")
            return None
        if self.usd > limits.max_usd:
            record.status = "cap"
            self._stop(f"model cost cap of ${limits.max_usd:g} per determination reached (${self.usd:.4f} used)",
                       review_code="model_cost_cap")
            return None
        return result.text

    # -- reading -------------------------------------------------------------------------------

    def reread(
        self,
        rd: Read,
        res: Resolution,
        pf: Preflight,
        read_again: Callable[..., Read],
        criteria_of: Callable[[Governing], Any],
    ) -> Read:
        """The reading with what a model could add: criteria for refused clauses that bear on the
        request, then facts for the criteria still unknown when no clause could decide."""
        by_id = {g.clause.id: g for g in [*res.base, *res.riders]}
        model_criteria: dict[str, Criteria] = {}
        if self.assist.enabled("criteria_reader"):
            for clause_id in rd.decision.unreadable:
                if clause_id in rd.refused and clause_id in by_id:
                    found = self._read_criteria(by_id[clause_id], rd.refused[clause_id])
                    if found is not None:
                        model_criteria[clause_id] = found
        if model_criteria:
            rd = read_again(model_criteria=model_criteria)
            who = self.config.endpoint_for("criteria_reader")
            for clause_id in model_criteria:
                self.applied.append(f"criteria of {clause_id}")
                self.review.append(Reason(
                    "criterion_read_by_model",
                    f"criterion read by a model: clause {clause_id}, which the rule compiler could not read, was "
                    f"read by {who.provider}:{who.model}; a handler must confirm that reading",
                ))
        if rd.decision.outcome == "undecided" and self.assist.enabled("fact_extractor"):
            offered = self._offered(rd, by_id, model_criteria, criteria_of)
            facts = self._read_facts(offered, pf) if offered else []
            if facts:
                rd = read_again(model_criteria=model_criteria, extra_facts=[f.fact for f in facts])
                for f in facts:
                    quoted = pf.redaction.span(f.span.start, f.span.end)
                    self.applied.append(f"fact for {f.criterion.key}")
                    self.review.append(Reason(
                        "fact_read_by_model",
                        f"fact read by a model: '{quoted}' taken as {f.criterion.atom.label} for clause "
                        f"{f.criterion.clause_id}; a handler must confirm it",
                    ))
        return rd

    def _read_criteria(self, g: Governing, refusal: Refusal) -> Criteria | None:
        endpoint = self.config.endpoint_for("criteria_reader")
        key = (hashlib.sha256(g.clause.text.encode("utf-8")).hexdigest(), endpoint.spec, PROMPT_VERSION)
        cached = self.assist.criteria_cache.get(key)
        if cached is not None:
            self.calls.append(CallRecord("criteria_reader", g.clause.id, "cached"))
            if isinstance(cached, Criteria):
                self.accepted["criteria_reader"] += 1
                return cached
            self._reject("criteria_reader", g.clause.id, cached + " (cached reading)")
            return None
        payload = {
            "clause_id": g.clause.id, "document_id": g.document.id, "document_title": g.document.title,
            "document_kind": g.document.kind, "section": g.clause.section, "clause_kind": g.clause.kind,
            "clause_text": g.clause.text, "rule_compiler_could_not_read": refusal.message,
        }
        text = self.ask("criteria_reader", g.clause.id, payload)
        if text is None:
            return None
        try:
            criteria = accept_criteria(text, g.clause.text)
        except Rejected as exc:
            self.assist.criteria_cache[key] = str(exc)
            self.calls[-1].status = "rejected"
            self._reject("criteria_reader", g.clause.id, str(exc))
            return None
        self.assist.criteria_cache[key] = criteria
        self.accepted["criteria_reader"] += 1
        return criteria

    def _offered(self, rd: Read, by_id: Mapping[str, Governing], model_criteria: Mapping[str, Criteria],
                 criteria_of: Callable[[Governing], Any]) -> list[OfferedCriterion]:
        offered: dict[str, OfferedCriterion] = {}
        for clause_id in rd.decision.deciding:
            evaluation, g = rd.evaluations.get(clause_id), by_id.get(clause_id)
            if evaluation is None or g is None:
                continue
            criteria = model_criteria.get(clause_id) or criteria_of(g)
            if not isinstance(criteria, Criteria):
                continue
            atoms = {a.id: a for a in all_atoms(criteria)}
            for result in evaluation.atoms:
                atom = atoms.get(result.atom_id)
                if result.status == "unknown" and not result.waived and isinstance(atom, FACT_KINDS):
                    item = OfferedCriterion(clause_id, atom)
                    offered.setdefault(item.key, item)
        return list(offered.values())[:MAX_OFFERED_FACTS]

    def _read_facts(self, offered: Sequence[OfferedCriterion], pf: Preflight) -> list[AcceptedFact]:
        view = NarrativeView.of(pf.narrative.fact_text, pf.redaction.regions)
        if not view.text.strip():
            return []
        text = self.ask("fact_extractor", "facts", {"criteria": [o.payload() for o in offered]}, narrative=view)
        if text is None:
            return []
        try:
            accepted, rejected = accept_facts(text, offered, view, pf.narrative.fact_text)
        except Rejected as exc:
            self.calls[-1].status = "rejected"
            self._reject("fact_extractor", "facts", str(exc))
            return []
        for subject, why in rejected:
            self._reject("fact_extractor", subject, why)
        self.accepted["fact_extractor"] += len(accepted)
        return accepted

    # -- after the reading: the gate, the judge, the phrasing ----------------------------------

    def _gate(self, base: GateInput, extra_review: Sequence[Reason] = ()) -> GateDecision:
        return decide(replace(base, uncompiled=base.uncompiled + tuple(self.review) + tuple(extra_review),
                              budget=base.budget + tuple(self.budget)))

    def settle(self, gate_input: GateInput, citations: Sequence[Citation]) -> GateDecision:
        """The gate's decision with the model's reasons added; the support judge may add more (so a
        DETERMINE can become a REVIEW, never the reverse); then the phrasing, if one is wanted."""
        doubts: list[Reason] = []
        decision = self._gate(gate_input)
        if decision.gate == "DETERMINE" and citations and self.assist.enabled("support_judge"):
            doubts = self._judge(citations)
            decision = self._gate(gate_input, doubts)
        if decision.gate in ("DETERMINE", "REVIEW") and decision.outcome in _VERDICT and citations \
                and self.assist.enabled("phraser"):
            self.phrasing_wanted = True
            blown = len(self.budget)
            self.sentences = self._phrase(decision, citations)
            if len(self.budget) != blown:
                self.sentences = None
                decision = self._gate(gate_input, doubts)
        self.decision = decision
        return decision

    def _judge(self, citations: Sequence[Citation]) -> list[Reason]:
        given = [c.clause_id for c in citations]
        payload = {"citations": [{"clause_id": c.clause_id, "quote": c.quote, "statement": c.statement}
                                 for c in citations]}
        text = self.ask("support_judge", "citations", payload)
        if text is None:
            return []
        try:
            verdicts, rejected = accept_verdicts(text, given)
        except Rejected as exc:
            self.calls[-1].status = "rejected"
            self._reject("support_judge", "citations", str(exc))
            return []
        for subject, why in rejected:
            self._reject("support_judge", subject, why)
        self.accepted["support_judge"] += len(verdicts)
        doubts = []
        for v in verdicts:
            if not v.supports:
                self.applied.append(f"support doubt on {v.clause_id}")
                doubts.append(Reason("support_judge_doubt", f"a model judged that the quote of {v.clause_id} may "
                                     "not support its statement" + (f" ({v.reason})" if v.reason else "")))
        return doubts

    def _phrase(self, decision: GateDecision, citations: Sequence[Citation]) -> list[Sentence] | None:
        payload = {
            "gate": decision.gate, "outcome": decision.outcome, "reasons": [r.text for r in decision.reasons],
            "citations": [{"clause_id": c.clause_id, "quote": c.quote, "statement": c.statement,
                           "verified": c.checks is not None and not c.checks.failed()} for c in citations],
        }
        text = self.ask("phraser", "answer", payload)
        if text is None:
            return None
        try:
            sentences = accept_phrasing(text, citations, decision.outcome)
        except Rejected as exc:
            self.calls[-1].status = "rejected"
            self._reject("phraser", "answer", str(exc))
            return None
        self.accepted["phraser"] += 1
        return sentences

    def finish(self, response: DeterminationResponse, citations: Sequence[Citation]) -> None:
        """Put the phrasing (or the notice saying why there is none), the model report, the cost
        and the model's time into the response."""
        deterministic = response.answer
        decision = self.decision
        if self.sentences and decision is not None:
            cited = " ".join(f"[{c.clause_id}]" for c in citations)
            lead = f"The requested service is {_VERDICT[decision.outcome]} under {cited}."
            if decision.gate == "REVIEW":
                lead = "Provisionally: " + lead + " A handler must review: " + "; ".join(
                    r.text for r in decision.reasons) + "."
            response.answer = lead + " " + " ".join(s.rendered() for s in self.sentences)
            self.applied.append("phrasing")
        elif self.stopped is not None and citations:
            # the model was wanted and could not help: the evidence goes out with the rules' answer, saying why
            response.answer = f"{UNAVAILABLE_NOTICE} ({self.stopped}). {deterministic}"
        response.model = self.report(deterministic if response.answer != deterministic else None)
        response.cost_usd = round(self.usd, 6)
        response.timings = Timings(model_s=round(self.latency_s, 6))

    def report(self, deterministic_answer: str | None = None) -> dict[str, Any]:
        """What the model did in this determination (no prompt, no answer text, no timing)."""
        endpoint = self.config.endpoint
        out: dict[str, Any] = {
            "provider": endpoint.provider, "model": endpoint.model, "label": self.config.label,
            "used": bool(self.applied), "applied": list(self.applied), "notice": self.stopped,
            "accepted": dict(self.accepted), "rejected": list(self.rejected),
            "calls": [asdict(c) for c in self.calls],
            "tokens": {"input": self.input_tokens, "output": self.output_tokens}, "usd": round(self.usd, 6),
        }
        if deterministic_answer is not None:
            out["deterministic_answer"] = deterministic_answer
        return out
