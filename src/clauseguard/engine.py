"""The one entry point every interface calls: search(), determine(), compare(), evaluate_retrieval().

It holds what a process builds once per corpus (the version index, the retrieval index, the
lexicon) and stamps each answer with ids derived from the request, the corpus fingerprint and the
settings. It never parses transport formats and never renders: interfaces do that.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from datetime import date
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Final

from clauseguard import faults, lookups
from clauseguard.audit import AuditTrail, digest, open_audit_log
from clauseguard.caches import healing_index, index_cache_dir
from clauseguard.corpus.model import Corpus
from clauseguard.corpus.seals import cited_version_seals
from clauseguard.corpus.sources import Opened, refreshed
from clauseguard.deadline import DeadlineExceeded, StageClock, deadline_from_environment, past_deadline
from clauseguard.deployment import policy_report
from clauseguard.errors import ClauseguardError
from clauseguard.gate import DEFAULT_POLICY, GateDecision, GatePolicy, apply_policy
from clauseguard.privacy.scrub import RequestPrivacy
from clauseguard.requests import (
    CompareRequest,
    DeterminationRequest,
    RetrievalEvalRequest,
    SearchRequest,
    parse_iso_date,
    parse_request,
    redacted_structured,
)
from clauseguard.responses import (
    Answer,
    CompareResponse,
    DeterminationResponse,
    RetrievalEvalResponse,
    SearchResponse,
    Timings,
)
from clauseguard.retrieval import DEFAULT_BACKEND, RetrievalIndex
from clauseguard.search import evaluate_retrieval as run_retrieval_eval
from clauseguard.search import search as run_search

if TYPE_CHECKING:  # the determination and compare pipelines load on first use: a search never pays for them
    from collections.abc import Mapping

    from clauseguard.authoring.revisions import Revision
    from clauseguard.determination import CompiledCache
    from clauseguard.models import ModelAssist, ModelConfig
    from clauseguard.reading.lexicon import Lexicon
    from clauseguard.verify import ColdVerifier

ENGINE_VERSION: Final = "1"


@dataclass(frozen=True)
class Settings:
    """Knobs that change answers; they are part of every trace and assertion id."""

    dense_backend: str | None = DEFAULT_BACKEND
    engine_version: str = ENGINE_VERSION

    def knobs(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Engine:
    """A corpus opened for answering, and what is built once for it."""

    opened: Opened
    settings: Settings = field(default_factory=Settings)
    log: bool = True  # replay recomputes without appending to the audit log
    model: ModelConfig | None = None  # optional model backend (clauseguard.models); None: rules alone
    # Seconds a determination may take before it is answered REVIEW (clauseguard.deadline); None: no
    # deadline. Not a knob: it never changes an answer that finished in time, so it is not in the ids.
    deadline_s: float | None = field(default_factory=deadline_from_environment)
    replay_cut: tuple[str, float] | None = None  # replay only: run out of budget where the recorded answer did
    policy: GatePolicy = DEFAULT_POLICY  # the deployment's gate policy (clauseguard.deployment)
    authored: Mapping[str, Revision] | None = None  # criteria revisions to read with; None: the store's approved ones

    @property
    def corpus(self) -> Corpus:
        return self.opened.corpus

    @cached_property
    def revisions(self) -> Mapping[str, Revision]:
        """The approved criteria revisions the reader uses (clauseguard.authoring), clause id -> revision."""
        if self.authored is not None:
            return self.authored
        from clauseguard.authoring.revisions import active_revisions

        return active_revisions(self.opened.store)

    @cached_property
    def model_fingerprint(self) -> str:
        """The corpus model's own fingerprint (what the store records after each append)."""
        return self.corpus.fingerprint()

    @cached_property
    def corpus_fingerprint(self) -> str:
        """The corpus model's fingerprint; with criteria revisions in use, over their ids too."""
        from clauseguard.authoring.revisions import stamped_fingerprint

        return stamped_fingerprint(self.model_fingerprint, self.revisions)

    @property
    def knobs(self) -> dict[str, Any]:
        from clauseguard.authoring.revisions import revision_knobs

        knobs = {**self.settings.knobs(), **revision_knobs(self.revisions)}
        if self.model is not None:
            knobs["model"] = self.model.knobs()
        if not self.policy.is_default:  # only then: the default policy leaves every id as it was
            knobs["gate_policy"] = {"name": self.policy.name, "automatic_outcomes": list(self.policy.automatic_outcomes)}
        return knobs

    @cached_property
    def models(self) -> ModelAssist | None:
        """The model's long-lived part (clients, cached readings, spend), when one is configured."""
        if self.model is None:
            return None
        from clauseguard.models import ModelAssist

        return ModelAssist(self.model)

    WARM_UP_LIMIT: ClassVar[int] = 5000  # clauses; beyond this, criteria compile on first use only

    def warm_up(self) -> Engine:
        """Start-up work for long-lived engines (eval, serve, mcp): build the index, and compile every
        clause's criteria once for the reader and once, separately, for the cold verifier, so no
        request pays for a first compilation (nor for loading the PHI detectors: name tables, presidio's
        recognizers, phone metadata). Criteria are skipped for corpora above WARM_UP_LIMIT clauses."""
        from clauseguard.privacy.redaction import detect

        detect("Warm up: Pat Doe, 555 010 0199, pat.doe@example.com, 1 Main St, DOB 01/02/1980.")
        _ = self.index, self.fact_libraries
        if self.log:
            _ = self.seal_key  # a missing or open key is found at start-up, not on the first answer
        clauses = [c for d in self.corpus.documents for v in d.versions for c in v.clauses]
        if len(clauses) <= self.WARM_UP_LIMIT:
            for clause in clauses:
                self.compiled.get(clause, self.lexicon)
            self.verifier.warm_up(self.opened.store.reopen(), [c.id for c in clauses])
        return self

    @cached_property
    def fact_libraries(self) -> bool:
        """medspaCy, the ICD-10-CM table and the drug dictionary, loaded on the first determination (a search
        and --help never load them) before its deadline starts: a cold CLI `ask` spent 11 s of its 10 s budget
        loading them and was answered REVIEW."""
        from clauseguard.reading.facts import read_facts

        read_facts("Type 1 diabetes on insulin glargine; metformin was not tolerated.", ["E10.9"])
        return True

    @cached_property
    def index(self) -> RetrievalIndex:
        return healing_index(self.corpus, backend=self.settings.dense_backend, cache_dir=index_cache_dir(self.opened.store))

    @cached_property
    def lexicon(self) -> Lexicon:
        from clauseguard.reading.lexicon import default_lexicon

        return default_lexicon()

    @cached_property
    def lexicon_fingerprint(self) -> str:
        """The lexicon's fingerprint for traces; a search never loads the lexicon just to stamp it."""
        if "lexicon" in self.__dict__:
            return self.lexicon.fingerprint
        return lexicon_files_fingerprint()

    @cached_property
    def compiled(self) -> CompiledCache:
        from clauseguard.determination import CompiledCache

        return CompiledCache(authored=self.revisions)

    @cached_property
    def verifier(self) -> ColdVerifier:
        from clauseguard.verify import ColdVerifier

        return ColdVerifier()

    def load_all(self) -> Engine:
        """Everything a long-lived server answers with, loaded now: index, audit log, lexicon, reader,
        verifier and the model's clients (the criteria themselves compile in `warm_up`)."""
        _ = self.corpus_fingerprint, self.index, self.audit, self.lexicon, self.compiled, self.verifier, self.models
        return self

    def readiness(self) -> dict[str, bool]:
        """What a long-lived server has loaded (read from another thread: only flags, no work)."""
        loaded = self.__dict__
        return {
            "corpus": True, "corpus_fingerprint": "corpus_fingerprint" in loaded, "index": "index" in loaded,
            "audit_log": "audit" in loaded, "lexicon": "lexicon" in loaded, "reader": "compiled" in loaded,
            "verifier": "verifier" in loaded, "model": self.model is None or "models" in loaded,
        }

    @cached_property
    def audit(self) -> AuditTrail:
        return open_audit_log(self.opened)

    @property
    def audit_file(self) -> Path:
        """The SQLite audit file (people's final decisions and the audit listing live beside it)."""
        path = getattr(self.audit, "path", None)
        if not isinstance(path, Path):
            raise ClauseguardError(f"final decisions and the audit listing need the SQLite audit log; the audit log "
                                   f"here is {self.audit.location} (PostgreSQL), where they are not kept yet")
        return path

    def _fresh(self) -> None:
        """Another instance appended to the shared store: answer from the new corpus (index rebuilt once)."""
        newer = refreshed(self.opened, self.model_fingerprint)
        if newer is not None:
            self.opened = newer
            for name in ("model_fingerprint", "revisions", "corpus_fingerprint", "index", "compiled"):
                self.__dict__.pop(name, None)

    def _ids(self, kind: str, request: dict[str, Any]) -> str:
        return digest({"kind": kind, "request": request, "corpus": self.corpus_fingerprint, "knobs": self.knobs})

    @cached_property
    def seal_key(self) -> bytes:
        """The key originals are sealed with (clauseguard.privacy.seal), read once per engine."""
        from clauseguard.privacy.seal import load_key

        return load_key()

    def _log(self, kind: str, request: dict[str, Any], answer: Answer, stages: dict[str, float],
             original: dict[str, Any]) -> None:
        """Audit row (redacted request, the original sealed), then trace line (redacted text only);
        EnvironmentFailure if the row cannot be written or the original cannot be sealed."""
        if not self.log:
            return
        from clauseguard.privacy.seal import seal

        audit = self.audit  # opened first: a log that cannot be written is what the failure names
        sealed = seal(original, self.seal_key)
        response = answer.as_json()
        recorded = {k: v for k, v in response.items() if k != "timings"}
        audit.record(
            kind=kind, assertion_id=response.get("assertion_id", response["trace_id"]),
            trace_id=response["trace_id"], request_redacted=request, response_redacted=recorded,
            corpus=self.corpus, store_path=self.opened.store.location, settings=self.knobs,
            version_seals=cited_version_seals(self.corpus, recorded), request_sealed=sealed,
        )
        # the facts rules are loaded by the answer already; importing them at the top would load them for --help
        from clauseguard.reading.facts.rules import default_rules

        self.audit.record_trace({
            "kind": kind, "trace_id": response["trace_id"], "assertion_id": response.get("assertion_id"),
            "stages": stages, "knobs": self.knobs, "corpus_fingerprint": self.corpus_fingerprint,
            "lexicon_fingerprint": self.lexicon_fingerprint, "facts_rules_fingerprint": default_rules().fingerprint,
            "gate": response.get("gate"),
            "status": response.get("status"), "flags": response.get("flags", []),
        })

    def determine(self, request: dict[str, Any] | DeterminationRequest) -> DeterminationResponse:
        """A structured case -> gate, outcome, verified citations, criteria mapped to facts (design)."""
        from clauseguard.determination import determine as run_determination

        parsed = request if isinstance(request, DeterminationRequest) else parse_request(DeterminationRequest, request)
        self._fresh()
        original = parsed.model_dump(mode="json")
        privacy = RequestPrivacy.of(original)  # PHI found once for the whole request
        _ = self.index, self.lexicon, self.fact_libraries  # loaded once per engine, outside any request's budget
        started = time.perf_counter()
        assist = self.models.start() if self.models is not None else None
        stages = StageClock(self.deadline_s) if self.replay_cut is None else StageClock.replaying(self.replay_cut)
        try:
            response = run_determination(
                parsed, corpus=self.corpus, store=self.opened.store, index=self.index, lexicon=self.lexicon,
                cache=self.compiled, verifier=self.verifier, fault=faults.from_environment(), assist=assist,
                stages=stages,
            )
        except DeadlineExceeded as exc:
            response = past_deadline(exc)
        if assist is not None and response.model is None:  # a HALT, or no governing document: nothing to read
            assist.finish(response, [])
        self._apply_policy(response)
        engine_s = time.perf_counter() - started
        response = privacy.scrub(response)
        # a date of birth (PHI) is kept as the age it gives on the request's date, all the engine reads of it
        redacted = redacted_structured(privacy.request(original), _as_of(parsed.as_of_date))
        response.assertion_id = "as-" + self._ids("determination", redacted)
        response.trace_id = "tr-" + self._ids("determination-trace", redacted)
        response.timings = Timings(engine_s=round(engine_s, 6), stages=dict(stages), model_s=response.timings.model_s)
        self._log("determination", redacted, response, {"engine_s": round(engine_s, 6), **stages}, original)
        return response

    def _apply_policy(self, response: DeterminationResponse) -> None:
        """The deployment's gate policy, after the rules: it can hold a DETERMINE back, never release one."""
        decided = GateDecision(response.gate, response.outcome, tuple(response.reasons))
        held = apply_policy(decided, self.policy)
        response.policy = policy_report(self.policy, applied=held is not decided)
        if held is decided:
            return
        response.gate, response.reasons = held.gate, list(held.reasons)
        response.answer = f"Provisionally: {response.answer} A handler must review: {held.reasons[-1].text}."

    def search(self, request: dict[str, Any] | SearchRequest) -> SearchResponse:
        """A question over the terms that govern a contract or a plan on a date (design: "search")."""
        parsed = request if isinstance(request, SearchRequest) else parse_request(SearchRequest, request)
        self._fresh()
        started = time.perf_counter()
        original = parsed.model_dump(mode="json")
        privacy = RequestPrivacy.of(original)
        response = privacy.scrub(run_search(parsed, corpus=self.corpus, store=self.opened.store, index=self.index))
        engine_s = time.perf_counter() - started
        redacted = privacy.request(original)
        response.trace_id = "tr-" + self._ids("search", redacted)
        response.timings = Timings(engine_s=round(engine_s, 6))
        self._log("search", redacted, response, {"engine_s": round(engine_s, 6)}, original)
        return response

    def compare(self, request: dict[str, Any] | CompareRequest) -> CompareResponse:
        """The same question against two targets, each side answered, differences point by point."""
        from clauseguard.compare import compare as run_compare

        parsed = request if isinstance(request, CompareRequest) else parse_request(CompareRequest, request)
        self._fresh()
        started = time.perf_counter()
        privacy = RequestPrivacy.of(parsed.model_dump(mode="json"))
        response = privacy.scrub(run_compare(parsed, corpus=self.corpus, store=self.opened.store, index=self.index))
        response.trace_id = self._ids("compare", privacy.request(parsed.model_dump(mode="json")))
        response.timings = Timings(engine_s=round(time.perf_counter() - started, 6))
        return response

    def evaluate_retrieval(self, request: dict[str, Any] | RetrievalEvalRequest) -> RetrievalEvalResponse:
        """Recall of gold clauses among what retrieval hands the reader (design: evaluate-retrieval)."""
        parsed = request if isinstance(request, RetrievalEvalRequest) else parse_request(RetrievalEvalRequest, request)
        return run_retrieval_eval(parsed, corpus=self.corpus, index=self.index)

    # -- lookups: what every interface shows next to an answer, read by lookups.py -------------

    def clause(self, clause_id: str) -> dict[str, Any]:
        """One clause read from the store by id, with its document and version."""
        return lookups.clause_record(self.opened, clause_id)

    def versions(self, document_id: str) -> dict[str, Any]:
        """A document's versions in date order, with clause counts and the store's timeline events."""
        return lookups.version_timeline(self.opened, document_id)

    def code(self, code: str) -> dict[str, Any]:
        """A code, its system and descriptor, and the documents that govern it."""
        return lookups.code_record(self.opened, code)

    def plan_riders(self, plan_id: str, as_of: date | None = None) -> dict[str, Any]:
        """The riders attached to a plan; with a date, only those with a version in effect that day."""
        return lookups.plan_riders(self.opened, plan_id, as_of)

    def catalog(self) -> dict[str, Any]:
        """What a handler or an agent picks from: payers, plans, riders, contracts, documents and codes."""
        from clauseguard.catalog import catalog

        return catalog(self.opened, self.corpus_fingerprint)

    def audit_record(self, assertion_id: str) -> dict[str, Any]:
        """What the audit log holds for an assertion (redacted request and response)."""
        return lookups.audit_view(self.audit, assertion_id)


def lexicon_files_fingerprint() -> str:
    """`Lexicon(files).fingerprint` of the shipped files, from their bytes alone (a test keeps the two equal)."""
    import hashlib

    from clauseguard.reading.lexicon import _package_files

    digest = hashlib.sha256()
    for name, raw in sorted(_package_files().items()):
        digest.update(name.encode() + b"\0" + hashlib.sha256(raw).digest())
    return "sha256:" + digest.hexdigest()


def _as_of(raw: str) -> Any:
    try:
        return parse_iso_date(raw.strip())
    except ValueError:
        return None
