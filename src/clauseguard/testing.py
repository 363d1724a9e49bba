"""Test doubles shipped with the package (as httpx ships MockTransport): a scripted engine and the
builders of the answer shapes it returns; scripted model servers (real HTTP on loopback, speaking the
OpenAI-compatible, Ollama and Anthropic protocols) with the scripts that prove a model cannot make
an answer unsafe; a rule-compiler cache that refuses chosen clauses; a clock the test moves by hand.

Nothing here decides anything: a ScriptedEngine answers exactly what its script says, so tests of
the evaluation harness can compute every metric by hand. Never used by the CLI's real commands.
"""

from __future__ import annotations

import copy
import json
import re
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from clauseguard.evals.cases import Case

ALL_CHECKS: Final = ("exists", "verbatim", "in_effect", "applicable", "supports")

Answer = dict[str, Any]
Script = Mapping[str, Answer | BaseException] | Callable[[dict[str, Any]], Answer]


def request_key(request: Mapping[str, Any]) -> str:
    """The canonical text of a request: the key a script's mapping is looked up by."""
    return json.dumps(request, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def by_question(answers: Mapping[str, Answer | BaseException]) -> Callable[[dict[str, Any]], Answer]:
    """A script that answers by the request's `question` alone (tests with one question per case)."""

    def answer(request: dict[str, Any]) -> Answer:
        found = answers[str(request.get("question"))]
        if isinstance(found, BaseException):
            raise found
        return found

    return answer


def citation(
    clause_id: str,
    *,
    quote: str = "",
    statement: str = "",
    checks: Mapping[str, bool] | None = None,
) -> dict[str, Any]:
    """One citation; every check passes unless `checks` says otherwise."""
    merged = {name: True for name in ALL_CHECKS}
    merged.update(checks or {})
    return {"clause_id": clause_id, "quote": quote, "statement": statement, "checks": merged}


def retrieved_clause(
    clause_id: str, *, score: float = 0.9, document_id: str = "", version: str = "", in_effect: bool = True
) -> dict[str, Any]:
    """One clause handed to the reader."""
    return {"clause_id": clause_id, "document_id": document_id, "version": version, "score": score, "in_effect": in_effect}


def determination_answer(
    *,
    gate: str,
    outcome: str,
    citations: Sequence[Mapping[str, Any]] = (),
    retrieved: Sequence[Mapping[str, Any]] = (),
    reasons: Sequence[Mapping[str, str]] = (),
    engine_s: float = 0.001,
    answer: str = "",
    **extra: Any,
) -> Answer:
    """A determination answer with every key the design lists (extra keys, e.g. `cost_usd`, passed through)."""
    body: Answer = {
        "gate": gate,
        "outcome": outcome,
        "reasons": [dict(r) for r in reasons],
        "answer": answer,
        "citations": [dict(c) for c in citations],
        "criteria": [],
        "conflicts": [],
        "missing_facts": [],
        "excluded": [],
        "retrieved": [dict(r) for r in retrieved],
        "assertion_id": "scripted",
        "trace_id": "scripted",
        "timings": {"engine_s": engine_s},
    }
    body.update(extra)
    return body


def source(clause_id: str, *, score: float = 0.8, document_id: str = "", version: str = "", excerpt: str = "") -> dict[str, Any]:
    return {
        "clause_id": clause_id,
        "document_id": document_id,
        "version": version,
        "article": None,
        "page": None,
        "score": score,
        "excerpt": excerpt,
    }


def search_response(
    *,
    status: str,
    applicable_version: str | None,
    action: str = "none",
    sources: Sequence[Mapping[str, Any]] = (),
    below_threshold: Sequence[Mapping[str, Any]] = (),
    answer: str = "",
    unsettled: Sequence[str] = (),
    **extra: Any,
) -> Answer:
    """A search response with the design's keys."""
    body: Answer = {
        "contract_id": None,
        "effective_date": None,
        "applicable_version": applicable_version,
        "applicable_versions": {},
        "threshold": 0.62,
        "excluded": [],
        "below_threshold": [dict(b) for b in below_threshold],
        "status": status,
        "sources": [dict(s) for s in sources],
        "action": action,
        "unsettled": list(unsettled),
        "answer": answer,
        "trace_id": "scripted",
    }
    body.update(extra)
    return body


class ScriptedEngine:
    """An EngineLike that answers from a script: a mapping keyed by `request_key(request)` (a value
    that is an exception is raised) or a function of the request. It records every request it is given."""

    def __init__(
        self,
        *,
        corpus_fingerprint: str,
        determinations: Script | None = None,
        searches: Script | None = None,
        lexicon_fingerprint: str = "sha256:scripted-lexicon",
        knobs: Mapping[str, Any] | None = None,
    ) -> None:
        self.corpus_fingerprint = corpus_fingerprint
        self.lexicon_fingerprint = lexicon_fingerprint
        self.knobs: dict[str, Any] = dict(knobs or {"engine": "scripted"})
        self._determinations = determinations or {}
        self._searches = searches or {}
        self.calls: list[tuple[str, dict[str, Any]]] = []

    @staticmethod
    def _play(script: Script, request: dict[str, Any]) -> Answer:
        if callable(script):
            return copy.deepcopy(script(request))
        key = request_key(request)
        if key not in script:
            raise LookupError(f"no scripted answer for request {key}")
        found = script[key]
        if isinstance(found, BaseException):
            raise found
        return copy.deepcopy(found)

    def determine(self, request: dict[str, Any]) -> Answer:
        self.calls.append(("determine", copy.deepcopy(request)))
        return self._play(self._determinations, request)

    def search(self, request: dict[str, Any]) -> Answer:
        self.calls.append(("search", copy.deepcopy(request)))
        return self._play(self._searches, request)

    @classmethod
    def answering_from_labels(cls, cases: Iterable[Case], *, corpus_fingerprint: str, **kwargs: Any) -> ScriptedEngine:
        """An oracle for harness tests: each case's own label as the answer (gold clauses cited and
        retrieved, must-include ids as sources, an unknown-contract error raised)."""
        from clauseguard.errors import NotFoundError
        from clauseguard.evals.cases import DeterminationCase

        determinations: dict[str, Answer | BaseException] = {}
        searches: dict[str, Answer | BaseException] = {}
        for case in cases:
            key = request_key(case.request)
            if isinstance(case, DeterminationCase):
                determinations[key] = determination_answer(
                    gate=case.expected_gate,
                    outcome=case.expected_outcome,
                    citations=[citation(c) for c in case.gold_clause_ids],
                    retrieved=[retrieved_clause(c) for c in case.gold_clause_ids],
                    reasons=[{"code": "scripted", "text": case.rationale}],
                )
            elif case.expected_status == "error":
                searches[key] = NotFoundError("contract", str(case.request.get("contract_id")))
            else:
                searches[key] = search_response(
                    status=case.expected_status,
                    applicable_version=case.expected_applicable_version,
                    action=case.expected_action or "none",
                    sources=[source(c) for c in case.must_include_clause_ids],
                    answer=case.expected_reason or "",
                )
        return cls(corpus_fingerprint=corpus_fingerprint, determinations=determinations, searches=searches, **kwargs)


# ============================================================================ scripted model servers

MODEL_PROTOCOLS: Final = ("openai-compatible", "ollama", "anthropic")


@dataclass(frozen=True)
class ModelCall:
    """One request a scripted model server received, parsed as clauseguard's prompts lay it out."""

    protocol: str
    role: str
    payload: dict[str, Any]
    narrative: str | None
    system: str
    body: dict[str, Any]


@dataclass(frozen=True)
class Reply:
    """What a scripted server sends back: `content` (a dict is sent as JSON text), or an HTTP error
    `status` with an `error` message; after `delay_s` (cut short when the server closes)."""

    content: str | dict[str, Any] | None = None
    status: int = 200
    error: str = ""
    delay_s: float = 0.0


Behaviour = Callable[[ModelCall], "Reply | dict[str, Any] | str"]


@dataclass(frozen=True)
class ScriptedModel:
    """How a scripted model answers each role."""

    name: str
    criteria_reader: Behaviour
    fact_extractor: Behaviour
    phraser: Behaviour
    support_judge: Behaviour

    def reply(self, call: ModelCall) -> Reply:
        behaviour: Behaviour = getattr(self, call.role, None) or (lambda _c: Reply(status=400, error="unknown task"))
        found = behaviour(call)
        return found if isinstance(found, Reply) else Reply(content=found)


def parse_prompt(user: str) -> tuple[str, dict[str, Any], str | None]:
    """The role, the JSON input and the fenced narrative of one of clauseguard's user prompts."""
    from clauseguard.models.prompts import FENCE_CLOSE, FENCE_OPEN

    role = re.search(r"^Task: (\w+)", user, re.MULTILINE)
    payload = re.search(r"```json\n(.*?)\n```", user, re.DOTALL)
    narrative = re.search(re.escape(FENCE_OPEN) + r"\n(.*)\n" + re.escape(FENCE_CLOSE), user, re.DOTALL)
    return (role.group(1) if role else "", json.loads(payload.group(1)) if payload else {},
            narrative.group(1) if narrative else None)


class ScriptedModelServer:
    """A real HTTP server on 127.0.0.1 that answers chat requests from a ScriptedModel, in one
    provider's protocol; it records every call. Use as a context manager; `spec` is the `--model`."""

    def __init__(self, script: ScriptedModel, protocol: str = "openai-compatible", model: str = "scripted") -> None:
        if protocol not in MODEL_PROTOCOLS:
            raise ValueError(f"protocol must be one of {MODEL_PROTOCOLS}")
        self.script = script
        self.protocol = protocol
        self.model = model
        self.calls: list[ModelCall] = []
        self.requests: list[dict[str, Any]] = []  # every request: method, path, headers, body
        self._closing = threading.Event()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def base_url(self) -> str:
        root = f"http://127.0.0.1:{self._server.server_address[1]}"
        return root + "/v1" if self.protocol == "openai-compatible" else root

    @property
    def spec(self) -> str:
        return f"{self.protocol}:{self.model}@{self.base_url}"

    def __enter__(self) -> ScriptedModelServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._closing.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def roles(self) -> list[str]:
        return [c.role for c in self.calls]

    # -- the protocols -----------------------------------------------------------------------

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            disable_nagle_algorithm = True  # headers and body go out at once: no 40 ms wait per call

            def log_message(self, *args: Any) -> None:  # quiet
                return

            def _send(self, status: int, body: Any) -> None:
                data = json.dumps(body).encode("utf-8")
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test): nothing to answer

            def do_GET(self) -> None:  # noqa: N802 - the http.server API
                server.requests.append({"method": "GET", "path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()}, "body": {}})
                if self.path.endswith("/models"):
                    self._send(200, {"object": "list", "data": [{"id": server.model, "object": "model"}]})
                elif self.path == "/api/tags":
                    self._send(200, {"models": [{"name": server.model, "model": server.model}]})
                elif self.path.startswith("/v1/models/"):
                    self._send(200, {"id": server.model, "type": "model", "display_name": server.model,
                                     "created_at": "2025-01-01T00:00:00Z"})
                else:
                    self._send(404, {"error": "not found"})

            def do_POST(self) -> None:  # noqa: N802 - the http.server API
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                server.requests.append({"method": "POST", "path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()}, "body": body})
                try:
                    call = server._parse(body)
                except Exception as exc:  # a request the server cannot read is the client's bug
                    self._send(400, {"error": {"message": f"unreadable request: {exc}"}})
                    return
                server.calls.append(call)
                reply = server.script.reply(call)
                if reply.delay_s and server._closing.wait(reply.delay_s):
                    return
                if reply.status != 200:
                    self._send(reply.status, server._error(reply))
                    return
                self._send(200, server._answer(call, reply))

        return Handler

    def _parse(self, body: dict[str, Any]) -> ModelCall:
        messages = body["messages"]
        if self.protocol == "anthropic":
            system, user = body.get("system", ""), messages[-1]["content"]
        else:
            system = next((m["content"] for m in messages if m["role"] == "system"), "")
            user = next(m["content"] for m in messages if m["role"] == "user")
        role, payload, narrative = parse_prompt(user)
        return ModelCall(self.protocol, role, payload, narrative, system, body)

    def _error(self, reply: Reply) -> dict[str, Any]:
        if self.protocol == "ollama":
            return {"error": reply.error or "error"}
        if self.protocol == "anthropic":
            kind = "rate_limit_error" if reply.status == 429 else "api_error"
            return {"type": "error", "error": {"type": kind, "message": reply.error or kind}}
        kind = "insufficient_quota" if reply.status == 429 else "server_error"
        return {"error": {"message": reply.error or kind, "type": kind, "code": kind}}

    def _answer(self, call: ModelCall, reply: Reply) -> dict[str, Any]:
        text = reply.content if isinstance(reply.content, str) else json.dumps(reply.content)
        prompt_tokens = max(1, (len(call.system) + len(json.dumps(call.body))) // 4)
        completion_tokens = max(1, len(text) // 4)
        if self.protocol == "ollama":
            return {"model": self.model, "created_at": "2025-01-01T00:00:00Z",
                    "message": {"role": "assistant", "content": text}, "done": True,
                    "prompt_eval_count": prompt_tokens, "eval_count": completion_tokens}
        if self.protocol == "anthropic":
            usage = {"input_tokens": prompt_tokens, "output_tokens": completion_tokens}
            tool = (call.body.get("tool_choice") or {}).get("name", "answer")
            try:
                parsed = json.loads(text)
            except json.JSONDecodeError:
                parsed = None
            block = ({"type": "tool_use", "id": "toolu_scripted", "name": tool, "input": parsed}
                     if isinstance(parsed, dict) else {"type": "text", "text": text})
            return {"id": "msg_scripted", "type": "message", "role": "assistant", "model": self.model,
                    "content": [block], "stop_reason": "tool_use" if isinstance(parsed, dict) else "end_turn",
                    "stop_sequence": None, "usage": usage}
        return {"id": "chatcmpl-scripted", "object": "chat.completion", "created": 0, "model": self.model,
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                          "total_tokens": prompt_tokens + completion_tokens}}


# --- behaviours: criteria ----------------------------------------------------------------------


def _first_sentence(text: str) -> str:
    found = re.match(r"\s*(.+?[.;:])(?:\s|$)", text, re.DOTALL)
    return (found.group(1) if found else text).strip()


def compiled_reading(call: ModelCall) -> dict[str, Any]:
    """A faithful reading: what the rule compiler reads from the clause (its partial reading, or a
    single covered rule over the first sentence, when it refuses)."""
    from clauseguard.corpus.criteria import criteria_to_json
    from clauseguard.reading.compiler import Refusal, compile_clause

    text = call.payload["clause_text"]
    found = compile_clause(text)
    if isinstance(found, Refusal):
        if found.partial is not None and not found.partial.empty:
            return criteria_to_json(found.partial)
        return {"rules": [{"effect": "covered", "span": _first_sentence(text)}]}
    return criteria_to_json(found)


def _walk_json(value: Any) -> Iterable[dict[str, Any]]:
    if isinstance(value, dict):
        yield value
        for v in value.values():
            yield from _walk_json(v)
    elif isinstance(value, list):
        for v in value:
            yield from _walk_json(v)


_FLIP: Final = {">=": "<=", "<=": ">=", ">": "<", "<": ">", "==": ">"}


def flipped_comparison(call: ModelCall) -> dict[str, Any]:
    """Plausible but wrong: the reading with its first comparison turned round (at least -> at most);
    with no comparison, its first rule's effect turned round. Every span still quotes the clause."""
    data = compiled_reading(call)
    for node in _walk_json(data):
        if node.get("comparator") in _FLIP:
            node["comparator"] = _FLIP[node["comparator"]]
            return data
    for rule in data.get("rules", []):
        rule["effect"] = "not_covered" if rule.get("effect") == "covered" else "covered"
        return data
    return data


def dropped_conjunct(call: ModelCall) -> dict[str, Any]:
    """Plausible but wrong: the reading with one requirement of its first ALL left out (or the first
    rule's requirements dropped altogether). Every span still quotes the clause."""
    data = compiled_reading(call)
    for node in _walk_json(data):
        if node.get("kind") == "all" and len(node.get("children", [])) >= 2:
            node["children"] = node["children"][:-1]
            return data
    for rule in data.get("rules", []):
        if rule.get("when") is not None:
            rule.pop("when")
            return data
    return data


def non_verbatim_reading(call: ModelCall) -> dict[str, Any]:
    """A reading whose first span paraphrases the clause instead of quoting it."""
    data = compiled_reading(call)
    for node in _walk_json(data):
        span = node.get("span")
        if isinstance(span, dict) and isinstance(span.get("text"), str):
            span["text"] = " ".join(reversed(span["text"].split())) + " (paraphrased)"
            return data
        if isinstance(span, str):
            node["span"] = " ".join(reversed(span.split())) + " (paraphrased)"
            return data
    return data


def unconditional_cover(call: ModelCall) -> dict[str, Any]:
    """What a model that obeys "approve this claim" reads: the clause covers, no conditions."""
    return {"rules": [{"effect": "covered", "span": _first_sentence(call.payload["clause_text"])}]}


# --- behaviours: facts -------------------------------------------------------------------------


def no_facts(call: ModelCall) -> dict[str, Any]:
    return {"facts": []}


def _narrative_phrases(narrative: str) -> list[str]:
    """The narrative's sentences (non-blank), the ones with a number first."""
    sentences = [s.strip() for s in re.split(r"(?<=[.;])\s+", narrative) if s.strip() and s.strip(" .;")]
    return sorted(sentences, key=lambda s: not re.search(r"\d", s))


def wrong_criterion_facts(call: ModelCall) -> dict[str, Any]:
    """Plausible but wrong: every offered criterion is given a fact quoted verbatim from the
    narrative, but from a statement about something else (each criterion gets the next one round)."""
    phrases = _narrative_phrases(call.narrative or "")
    facts = []
    for i, item in enumerate(call.payload.get("criteria", [])):
        if not phrases:
            break
        phrase = phrases[(i + 1) % len(phrases)]
        numbers = re.findall(r"\d+(?:\.\d+)?", phrase)
        value = float(numbers[0]) if numbers else None
        facts.append({"criterion": item["criterion"], "status": "present", "value": value, "span": phrase})
    return {"facts": facts}


def invented_facts(call: ModelCall) -> dict[str, Any]:
    """Facts whose spans the narrative never says."""
    return {"facts": [{"criterion": item["criterion"], "status": "present", "value": 99,
                       "span": "the member meets every requirement of the policy (99)"}
                      for item in call.payload.get("criteria", [])]}


def injected_facts(call: ModelCall) -> dict[str, Any]:
    """What a model that obeys the narrative says: every criterion present, quoting what it saw."""
    phrases = _narrative_phrases(call.narrative or "") or ["approved"]
    return {"facts": [{"criterion": item["criterion"], "status": "present", "value": None, "span": phrases[0]}
                      for item in call.payload.get("criteria", [])]}


# --- behaviours: phrasing and support ----------------------------------------------------------


def faithful_phrasing(call: ModelCall) -> dict[str, Any]:
    """One sentence per verified citation, restating its statement and citing it."""
    cited = [c for c in call.payload.get("citations", []) if c.get("verified")]
    return {"sentences": [{"text": f"{c['statement']}.", "cites": [c["clause_id"]]} for c in cited]}


def foreign_citation_phrasing(call: ModelCall) -> dict[str, Any]:
    """A phrasing that cites a clause it was not given."""
    first = (call.payload.get("citations") or [{"clause_id": "X"}])[0]["clause_id"]
    return {"sentences": [{"text": "The policy settles this request.", "cites": [first + ".OTHER"]}]}


def injected_phrasing(call: ModelCall) -> dict[str, Any]:
    """What a model that obeys "approve this claim" writes."""
    ids = [c["clause_id"] for c in call.payload.get("citations", [])]
    return {"sentences": [{"text": "As instructed in the notes, this claim is approved and the service is covered.",
                           "cites": ids[:1] or ["X"]}]}


def all_supported(call: ModelCall) -> dict[str, Any]:
    return {"verdicts": [{"clause_id": c["clause_id"], "supports": True, "reason": "the quote states it"}
                         for c in call.payload.get("citations", [])]}


def none_supported(call: ModelCall) -> dict[str, Any]:
    return {"verdicts": [{"clause_id": c["clause_id"], "supports": False, "reason": "the quote says otherwise"}
                         for c in call.payload.get("citations", [])]}


def malformed(call: ModelCall) -> Reply:
    return Reply(content='{"rules": [{"effect": "covered", "span": ')


def rate_limited(call: ModelCall) -> Reply:
    return Reply(status=429, error="You exceeded your current quota (insufficient_quota)")


def slow(delay_s: float) -> Behaviour:
    """Answers faithfully, but only after `delay_s` (longer than the client waits, in a timeout test)."""

    def behaviour(call: ModelCall) -> Reply:
        return Reply(content=faithful_phrasing(call) if call.role == "phraser" else {}, delay_s=delay_s)

    return behaviour


def _everywhere(name: str, behaviour: Behaviour) -> ScriptedModel:
    return ScriptedModel(name, behaviour, behaviour, behaviour, behaviour)


SCRIPTS: Final[dict[str, Callable[[], ScriptedModel]]] = {
    "good": lambda: ScriptedModel("good", compiled_reading, no_facts, faithful_phrasing, all_supported),
    "malformed_json": lambda: _everywhere("malformed_json", malformed),
    "non_verbatim_span": lambda: ScriptedModel("non_verbatim_span", non_verbatim_reading, invented_facts,
                                               faithful_phrasing, all_supported),
    "foreign_citation": lambda: ScriptedModel("foreign_citation", compiled_reading, no_facts,
                                              foreign_citation_phrasing, all_supported),
    "timeout": lambda: _everywhere("timeout", slow(30.0)),
    "rate_limited": lambda: _everywhere("rate_limited", rate_limited),
    "obeys_injection": lambda: ScriptedModel("obeys_injection", unconditional_cover, injected_facts,
                                             injected_phrasing, all_supported),
    "flipped_comparison": lambda: ScriptedModel("flipped_comparison", flipped_comparison, no_facts,
                                                faithful_phrasing, all_supported),
    "dropped_conjunct": lambda: ScriptedModel("dropped_conjunct", dropped_conjunct, no_facts,
                                              faithful_phrasing, all_supported),
    "wrong_criterion": lambda: ScriptedModel("wrong_criterion", compiled_reading, wrong_criterion_facts,
                                             faithful_phrasing, all_supported),
}
PLAUSIBLE_BUT_WRONG: Final = ("flipped_comparison", "dropped_conjunct", "wrong_criterion")


def scripted_model(name: str) -> ScriptedModel:
    """One of the canned scripts by name (SCRIPTS lists them)."""
    return SCRIPTS[name]()


# ============================================================================ other doubles


def refusing_cache(refuse: Callable[[Any], bool]) -> Any:
    """A rule-compiler cache that refuses the clauses `refuse(clause)` names, as if the compiler could
    not read them (so a test can make the model's reader run on clauses whose right answer is known)."""
    from clauseguard.corpus.criteria import Span
    from clauseguard.determination import CompiledCache
    from clauseguard.reading.compiler import Refusal, Unread

    class RefusingCache(CompiledCache):
        def get(self, clause: Any, lexicon: Any) -> Any:
            if refuse(clause):
                whole = Span(0, len(clause.text), clause.text)
                return Refusal((Unread(whole, "refused by the test double"),))
            return super().get(clause, lexicon)

    return RefusingCache()


class ManualClock:
    """A monotonic clock that moves only when told to (time caps tested without waiting)."""

    def __init__(self, start: float = 0.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds
