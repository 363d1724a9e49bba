"""The three clients against scripted servers on loopback (and httpx's MockTransport for broken
envelopes): request shapes, token counts, and the error tree. Never a real network call."""

from __future__ import annotations

import json
import socket
import sys
from typing import Any

import httpx
import pytest

from clauseguard.models.clients import (
    AnthropicClient,
    ChatRequest,
    ModelBadResponse,
    ModelQuotaExhausted,
    ModelTimeout,
    ModelUnavailable,
    OllamaClient,
    OpenAICompatibleClient,
)
from clauseguard.models.config import Endpoint
from clauseguard.models.prompts import FACTS_SCHEMA
from clauseguard.testing import ModelCall, Reply, ScriptedModel, ScriptedModelServer, malformed, rate_limited


def answering(reply: Any) -> ScriptedModel:
    def behaviour(call: ModelCall) -> Any:
        return reply

    return ScriptedModel("fixed", behaviour, behaviour, behaviour, behaviour)


def request(timeout_s: float = 10.0) -> ChatRequest:
    user = 'Task: fact_extractor\nInput:\n```json\n{"criteria": []}\n```'
    return ChatRequest("system text", user, FACTS_SCHEMA, "clauseguard_facts", 123, timeout_s)


def free_port() -> int:
    """A loopback port with nothing listening (bound, then closed)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_openai_compatible_request_and_answer() -> None:
    with ScriptedModelServer(answering({"facts": []}), "openai-compatible") as server:
        endpoint = Endpoint("openai-compatible", "scripted", server.base_url, None)
        result = OpenAICompatibleClient(endpoint, "sk-test").complete(request())
        reach = OpenAICompatibleClient(endpoint, "sk-test").ping(5)
    assert json.loads(result.text) == {"facts": []} and result.input_tokens > 0 and result.output_tokens > 0
    sent = server.requests[0]
    assert sent["path"] == "/v1/chat/completions" and sent["headers"]["authorization"] == "Bearer sk-test"
    body = sent["body"]
    assert body["model"] == "scripted" and body["temperature"] == 0 and body["max_tokens"] == 123
    assert body["response_format"] == {"type": "json_schema", "json_schema": {
        "name": "clauseguard_facts", "schema": FACTS_SCHEMA, "strict": False}}
    assert [m["role"] for m in body["messages"]] == ["system", "user"]
    assert reach.reachable and reach.model_listed


def test_openai_compatible_json_object_mode_for_servers_without_schemas() -> None:
    with ScriptedModelServer(answering({"facts": []}), "openai-compatible") as server:
        endpoint = Endpoint("openai-compatible", "scripted", server.base_url, None)
        OpenAICompatibleClient(endpoint, None, "json_object").complete(request())
    assert server.requests[0]["body"]["response_format"] == {"type": "json_object"}
    assert "authorization" not in server.requests[0]["headers"]


def test_ollama_native_chat_sets_the_context_window() -> None:
    with ScriptedModelServer(answering({"facts": []}), "ollama") as server:
        endpoint = Endpoint("ollama", "scripted", server.base_url, None)
        result = OllamaClient(endpoint, None, num_ctx=32768).complete(request())
        reach = OllamaClient(endpoint, None, num_ctx=32768).ping(5)
        missing = OllamaClient(Endpoint("ollama", "not-pulled", server.base_url), None, num_ctx=1).ping(5)
    body = server.requests[0]["body"]
    assert server.requests[0]["path"] == "/api/chat"
    assert body["options"] == {"temperature": 0, "num_ctx": 32768, "num_predict": 123}
    assert body["format"] == FACTS_SCHEMA and body["stream"] is False
    assert json.loads(result.text) == {"facts": []}
    assert reach.reachable and reach.model_listed
    assert missing.reachable and missing.model_listed is False and "ollama pull not-pulled" in missing.detail


@pytest.mark.parametrize("protocol", ["openai-compatible", "ollama"])
def test_429_is_a_spent_quota(protocol: str) -> None:
    with ScriptedModelServer(ScriptedModel("q", rate_limited, rate_limited, rate_limited, rate_limited), protocol) as s:
        endpoint = Endpoint(protocol, "scripted", s.base_url, None)  # type: ignore[arg-type]
        client = OllamaClient(endpoint, None, 1) if protocol == "ollama" else OpenAICompatibleClient(endpoint, None)
        with pytest.raises(ModelQuotaExhausted, match="^model quota exhausted: .*429"):
            client.complete(request())


def test_a_slow_server_is_a_timeout_not_a_hang() -> None:
    with ScriptedModelServer(answering(Reply(content={"facts": []}, delay_s=30)), "openai-compatible") as server:
        client = OpenAICompatibleClient(Endpoint("openai-compatible", "s", server.base_url), None)
        with pytest.raises(ModelTimeout, match="within 0.05s"):
            client.complete(request(timeout_s=0.05))


def test_nothing_listening_is_unavailable() -> None:
    client = OpenAICompatibleClient(Endpoint("openai-compatible", "none", f"http://127.0.0.1:{free_port()}/v1"), None)
    with pytest.raises(ModelUnavailable, match="cannot reach"):
        client.complete(request())
    assert not client.ping(1).reachable


@pytest.mark.parametrize(
    ("status", "body", "error"),
    [
        (200, b"<html>proxy page</html>", ModelBadResponse),
        (200, b'{"choices": []}', ModelBadResponse),
        (500, b'{"error": {"message": "boom"}}', ModelUnavailable),
        (401, b'{"error": {"message": "bad key"}}', ModelUnavailable),
        (402, b'{"error": {"message": "payment required"}}', ModelQuotaExhausted),
        (400, b'{"error": {"message": "Your credit balance is too low"}}', ModelQuotaExhausted),
    ],
)
def test_every_broken_envelope_maps_to_one_error(status: int, body: bytes, error: type[Exception]) -> None:
    transport = httpx.MockTransport(lambda _request: httpx.Response(status, content=body))
    client = OpenAICompatibleClient(Endpoint("openai-compatible", "m", "https://api.example.invalid/v1"), None,
                                    http=httpx.Client(transport=transport))
    with pytest.raises(error):
        client.complete(request())


def test_anthropic_without_its_sdk_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "anthropic", None)  # an import of it now fails
    client = AnthropicClient(Endpoint("anthropic", "claude", "https://api.anthropic.com"), "key")
    with pytest.raises(ModelUnavailable, match=r"pip install 'clauseguard\[models\]'"):
        client.complete(request())
    assert "not installed" in client.ping(1).detail


def test_anthropic_through_its_sdk_answers_with_a_tool_call() -> None:
    pytest.importorskip("anthropic")
    with ScriptedModelServer(answering({"facts": []}), "anthropic") as server:
        client = AnthropicClient(Endpoint("anthropic", "scripted", server.base_url), "sk-ant-test")
        result = client.complete(request())
        reach = client.ping(5)
    assert json.loads(result.text) == {"facts": []} and result.input_tokens > 0
    sent = next(r for r in server.requests if r["method"] == "POST")
    assert sent["path"] == "/v1/messages" and "sk-ant-test" in (sent["headers"].get("x-api-key") or sent["headers"]["authorization"])
    body = sent["body"]
    assert body.get("temperature", 0) == 0 and body["max_tokens"] == 123 and body["system"] == "system text"
    assert body["tool_choice"] == {"type": "tool", "name": "clauseguard_facts"}
    assert body["tools"][0]["input_schema"] == FACTS_SCHEMA
    assert reach.reachable


def test_anthropic_errors_map_to_the_same_tree() -> None:
    pytest.importorskip("anthropic")
    with ScriptedModelServer(ScriptedModel("q", rate_limited, rate_limited, rate_limited, rate_limited),
                             "anthropic") as server:
        with pytest.raises(ModelQuotaExhausted):
            AnthropicClient(Endpoint("anthropic", "s", server.base_url), "k").complete(request())
    with ScriptedModelServer(ScriptedModel("m", malformed, malformed, malformed, malformed), "anthropic") as server:
        with pytest.raises(ModelBadResponse, match="tool_use"):
            AnthropicClient(Endpoint("anthropic", "s", server.base_url), "k").complete(request())
    with ScriptedModelServer(answering(Reply(content={}, delay_s=30)), "anthropic") as server:
        with pytest.raises(ModelTimeout):
            AnthropicClient(Endpoint("anthropic", "s", server.base_url), "k").complete(request(timeout_s=0.1))
    with pytest.raises(ModelUnavailable, match="cannot reach"):
        AnthropicClient(Endpoint("anthropic", "s", f"http://127.0.0.1:{free_port()}"), "k").complete(request())
    with pytest.raises(ModelUnavailable, match="no API key"):
        AnthropicClient(Endpoint("anthropic", "s", "http://127.0.0.1:9"), None).complete(request())
