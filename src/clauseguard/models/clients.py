"""Chat clients for the three providers, one Protocol, one small error tree.

    ModelError (a ClauseguardError)
     ├── ModelUnavailable      not configured right, not reachable, SDK missing, key refused
     ├── ModelQuotaExhausted   HTTP 429, a spent quota or credit, the monthly budget spent
     ├── ModelTimeout          no whole answer within the request's time
     └── ModelBadResponse      an answer that is not the provider's response shape

Every request asks for temperature 0 and a JSON answer shaped by a schema. A client never retries
(the caller's caps decide what happens next) and never reads the answer's meaning: checks.py does.
The OpenAI-compatible and Ollama clients speak HTTP with httpx; Anthropic goes through its SDK,
imported only when used (`pip install 'clauseguard[models]'`).
"""

from __future__ import annotations

import inspect
import json
import time
from dataclasses import dataclass
from typing import Any, Final, Protocol

import httpx

from clauseguard.errors import ClauseguardError
from clauseguard.models.config import TEMPERATURE, Endpoint, JsonMode
from clauseguard.models.prices import is_loopback

# words in an error body that mean a spent quota or credit rather than a broken request
QUOTA_WORDS: Final = ("insufficient_quota", "quota", "credit balance", "billing", "spend limit")


class ModelError(ClauseguardError):
    """A model call that gave no usable answer; `reason` is the sentence an answer shows."""

    reason = "model error"

    def __init__(self, detail: str) -> None:
        self.detail = detail
        super().__init__(f"{self.reason}: {detail}")


class ModelUnavailable(ModelError):
    reason = "model unavailable"


class ModelQuotaExhausted(ModelError):
    reason = "model quota exhausted"


class ModelTimeout(ModelError):
    reason = "model timed out"


class ModelBadResponse(ModelError):
    reason = "model response unreadable"


@dataclass(frozen=True)
class ChatRequest:
    """One structured-output request: a system prompt, a user prompt, the answer's JSON Schema."""

    system: str
    user: str
    schema: dict[str, Any]
    schema_name: str
    max_output_tokens: int
    timeout_s: float


@dataclass(frozen=True)
class ChatResult:
    """The answer's text (JSON expected, not yet checked) and the tokens the provider counted."""

    text: str
    input_tokens: int
    output_tokens: int


@dataclass(frozen=True)
class Reachability:
    reachable: bool
    detail: str
    model_listed: bool | None = None  # None: the provider cannot say


class ModelClient(Protocol):
    """What the assist needs from a provider."""

    endpoint: Endpoint

    def complete(self, request: ChatRequest) -> ChatResult: ...

    def ping(self, timeout_s: float) -> Reachability: ...


def _estimate_tokens(text: str) -> int:
    return max(1, len(text) // 4)


class _HttpClient:
    """Shared HTTP plumbing: a whole-answer deadline (a server that drips bytes cannot hang the
    caller) and the mapping of transport failures and status codes to the error tree."""

    def __init__(self, endpoint: Endpoint, api_key: str | None, http: httpx.Client | None = None) -> None:
        self.endpoint = endpoint
        self.api_key = api_key
        # a server on this machine is reached directly, never through a proxy from the environment
        self.http = http or httpx.Client(trust_env=not is_loopback(endpoint.base_url))

    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}

    def request(self, method: str, path: str, timeout_s: float, body: dict[str, Any] | None = None) -> Any:
        url = self.endpoint.base_url + path
        deadline = time.monotonic() + timeout_s
        try:
            with self.http.stream(method, url, json=body, headers=self.headers(),
                                  timeout=httpx.Timeout(timeout_s)) as response:
                chunks: list[bytes] = []
                for chunk in response.iter_bytes():
                    chunks.append(chunk)
                    if time.monotonic() > deadline:
                        raise ModelTimeout(f"no whole answer from {url} within {timeout_s:g}s")
                status, raw = response.status_code, b"".join(chunks)
        except httpx.TimeoutException:
            raise ModelTimeout(f"no answer from {url} within {timeout_s:g}s") from None
        except httpx.TransportError as exc:
            raise ModelUnavailable(f"cannot reach {url} ({type(exc).__name__}: {exc})") from None
        text = raw.decode("utf-8", errors="replace")
        if status == 429:
            raise ModelQuotaExhausted(f"{url} answered 429 Too Many Requests: {_error_text(text)}")
        if status in (401, 403):
            if any(w in text.lower() for w in QUOTA_WORDS):
                raise ModelQuotaExhausted(f"{url} answered {status}: {_error_text(text)}")
            raise ModelUnavailable(f"{url} refused the API key ({status}); set CLAUSEGUARD_MODEL_API_KEY")
        if status == 402 or (status >= 400 and any(w in text.lower() for w in QUOTA_WORDS)):
            raise ModelQuotaExhausted(f"{url} answered {status}: {_error_text(text)}")
        if status >= 400:
            raise ModelUnavailable(f"{url} answered {status}: {_error_text(text)}")
        try:
            return json.loads(text)
        except json.JSONDecodeError:
            raise ModelBadResponse(f"{url} answered with a body that is not JSON") from None


def _error_text(body: str) -> str:
    try:
        data = json.loads(body)
    except json.JSONDecodeError:
        return body.strip()[:200] or "no detail"
    err = data.get("error") if isinstance(data, dict) else None
    if isinstance(err, dict):
        return str(err.get("message") or err.get("type") or err)[:200]
    return str(err or data)[:200]


def _int(value: Any, fallback: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else fallback


class OpenAICompatibleClient(_HttpClient):
    """POST {base}/chat/completions (OpenAI, Groq, vLLM, a llama.cpp server, LM Studio, ...)."""

    def __init__(self, endpoint: Endpoint, api_key: str | None, json_mode: JsonMode = "json_schema",
                 http: httpx.Client | None = None) -> None:
        super().__init__(endpoint, api_key, http)
        self.json_mode = json_mode

    def complete(self, request: ChatRequest) -> ChatResult:
        response_format: dict[str, Any] = (
            {"type": "json_schema", "json_schema": {"name": request.schema_name, "schema": request.schema,
                                                     "strict": False}}
            if self.json_mode == "json_schema" else {"type": "json_object"}
        )
        body = {
            "model": self.endpoint.model,
            "messages": [{"role": "system", "content": request.system}, {"role": "user", "content": request.user}],
            "temperature": TEMPERATURE,
            "max_tokens": request.max_output_tokens,
            "response_format": response_format,
            "stream": False,
        }
        data = self.request("POST", "/chat/completions", request.timeout_s, body)
        try:
            text = data["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError):
            raise ModelBadResponse("the answer has no choices[0].message.content") from None
        if not isinstance(text, str):
            raise ModelBadResponse("choices[0].message.content is not text")
        usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
        return ChatResult(text, _int(usage.get("prompt_tokens"), _estimate_tokens(request.system + request.user)),
                          _int(usage.get("completion_tokens"), _estimate_tokens(text)))

    def ping(self, timeout_s: float) -> Reachability:
        try:
            data = self.request("GET", "/models", timeout_s)
        except ModelError as exc:
            return Reachability(False, str(exc))
        ids = [m.get("id") for m in data.get("data", []) if isinstance(m, dict)] if isinstance(data, dict) else []
        listed = self.endpoint.model in ids if ids else None
        return Reachability(True, f"{self.endpoint.base_url}/models answered", listed)


class OllamaClient(_HttpClient):
    """POST {base}/api/chat, Ollama's own API: the only way to set the context window (`num_ctx`);
    its OpenAI-compatible endpoint cannot, and Ollama truncates a longer prompt silently."""

    def __init__(self, endpoint: Endpoint, api_key: str | None, num_ctx: int, http: httpx.Client | None = None) -> None:
        super().__init__(endpoint, api_key, http)
        self.num_ctx = num_ctx

    def complete(self, request: ChatRequest) -> ChatResult:
        body = {
            "model": self.endpoint.model,
            "messages": [{"role": "system", "content": request.system}, {"role": "user", "content": request.user}],
            "stream": False,
            "format": request.schema,
            "options": {"temperature": TEMPERATURE, "num_ctx": self.num_ctx, "num_predict": request.max_output_tokens},
        }
        data = self.request("POST", "/api/chat", request.timeout_s, body)
        try:
            text = data["message"]["content"]
        except (KeyError, TypeError):
            raise ModelBadResponse("the answer has no message.content") from None
        if not isinstance(text, str):
            raise ModelBadResponse("message.content is not text")
        return ChatResult(text, _int(data.get("prompt_eval_count"), _estimate_tokens(request.system + request.user)),
                          _int(data.get("eval_count"), _estimate_tokens(text)))

    def ping(self, timeout_s: float) -> Reachability:
        try:
            data = self.request("GET", "/api/tags", timeout_s)
        except ModelError as exc:
            return Reachability(False, str(exc))
        names = {m.get("name") for m in data.get("models", []) if isinstance(m, dict)} if isinstance(data, dict) else set()
        wanted = {self.endpoint.model, f"{self.endpoint.model}:latest"}
        listed = bool(names & wanted)
        detail = f"{self.endpoint.base_url}/api/tags answered" + (
            "" if listed else f"; model {self.endpoint.model!r} is not pulled (ollama pull {self.endpoint.model})")
        return Reachability(True, detail, listed)


class AnthropicClient:
    """Anthropic's Messages API through the `anthropic` SDK, imported when first used. The answer's
    schema is a tool the model must call, so the tool's input is the structured answer."""

    def __init__(self, endpoint: Endpoint, api_key: str | None) -> None:
        self.endpoint = endpoint
        self.api_key = api_key
        self._client: Any = None

    def _sdk(self) -> Any:
        try:
            import anthropic
        except ImportError:
            raise ModelUnavailable("the anthropic SDK is not installed; pip install 'clauseguard[models]'") from None
        return anthropic

    def _sdk_client(self, timeout_s: float) -> Any:
        sdk = self._sdk()
        if not self.api_key:
            raise ModelUnavailable("no API key: set CLAUSEGUARD_MODEL_API_KEY or ANTHROPIC_API_KEY")
        if self._client is None:
            self._client = sdk.Anthropic(api_key=self.api_key, base_url=self.endpoint.base_url, max_retries=0)
        return self._client.with_options(timeout=timeout_s)

    def _call(self, fn: Any) -> Any:
        sdk = self._sdk()
        try:
            return fn()
        except sdk.APITimeoutError:
            raise ModelTimeout(f"no answer from {self.endpoint.base_url}") from None
        except sdk.APIConnectionError as exc:
            raise ModelUnavailable(f"cannot reach {self.endpoint.base_url} ({exc})") from None
        except sdk.RateLimitError as exc:
            raise ModelQuotaExhausted(f"{self.endpoint.base_url} answered 429: {exc}") from None
        except sdk.APIStatusError as exc:
            text = str(exc).lower()
            if exc.status_code == 402 or any(w in text for w in QUOTA_WORDS):
                raise ModelQuotaExhausted(f"{self.endpoint.base_url} answered {exc.status_code}: {exc}") from None
            raise ModelUnavailable(f"{self.endpoint.base_url} answered {exc.status_code}: {exc}") from None

    def complete(self, request: ChatRequest) -> ChatResult:
        client = self._sdk_client(request.timeout_s)
        create = client.messages.create
        kwargs: dict[str, Any] = {
            "model": self.endpoint.model,
            "max_tokens": request.max_output_tokens,
            "system": request.system,
            "messages": [{"role": "user", "content": request.user}],
            "tools": [{"name": request.schema_name, "description": "Give the answer in this structure.",
                       "input_schema": request.schema}],
            "tool_choice": {"type": "tool", "name": request.schema_name},
        }
        # temperature 0 wherever the SDK still takes a temperature (recent releases dropped sampling knobs)
        if "temperature" in inspect.signature(create).parameters:
            kwargs["temperature"] = TEMPERATURE
        message = self._call(lambda: create(**kwargs))
        block = next((b for b in getattr(message, "content", []) if getattr(b, "type", None) == "tool_use"), None)
        if block is None:
            raise ModelBadResponse("the answer holds no tool_use block with the structured answer")
        usage = getattr(message, "usage", None)
        text = json.dumps(block.input, ensure_ascii=False)
        return ChatResult(text, _int(getattr(usage, "input_tokens", None), _estimate_tokens(request.user)),
                          _int(getattr(usage, "output_tokens", None), _estimate_tokens(text)))

    def ping(self, timeout_s: float) -> Reachability:
        try:
            client = self._sdk_client(timeout_s)
            self._call(lambda: client.models.retrieve(self.endpoint.model))
        except ModelError as exc:
            return Reachability(False, str(exc))
        return Reachability(True, f"{self.endpoint.base_url} knows model {self.endpoint.model}", True)


def client_for(endpoint: Endpoint, *, num_ctx: int, json_mode: JsonMode, api_key: str | None = None) -> ModelClient:
    """The client of the endpoint's provider (the key read from its variable unless given)."""
    key = api_key if api_key is not None else endpoint.api_key()
    if endpoint.provider == "ollama":
        return OllamaClient(endpoint, key, num_ctx)
    if endpoint.provider == "anthropic":
        return AnthropicClient(endpoint, key)
    return OpenAICompatibleClient(endpoint, key, json_mode)
