"""Model configuration: the `--model` syntax, the environment, per-role settings, and what is recorded."""

from __future__ import annotations

import json

import pytest

from clauseguard.errors import RequestError
from clauseguard.models.config import DEFAULT_BASE_URLS, ROLES, from_environment, parse_spec


@pytest.mark.parametrize(
    ("text", "provider", "model", "base_url"),
    [
        ("ollama:llama3.1:8b@http://localhost:11434", "ollama", "llama3.1:8b", "http://localhost:11434"),
        ("ollama:qwen2.5:7b-instruct", "ollama", "qwen2.5:7b-instruct", "http://localhost:11434"),
        ("openai-compatible:qwen2.5-7b-instruct@http://127.0.0.1:8080/v1/", "openai-compatible",
         "qwen2.5-7b-instruct", "http://127.0.0.1:8080/v1"),
        ("openai:gpt-4o-mini", "openai-compatible", "gpt-4o-mini", "https://api.openai.com/v1"),
        ("anthropic:claude-3-5-haiku-latest", "anthropic", "claude-3-5-haiku-latest", "https://api.anthropic.com"),
        ("openai-compatible:me@example/model@https://api.groq.com/openai/v1", "openai-compatible",
         "me@example/model", "https://api.groq.com/openai/v1"),
    ],
)
def test_the_model_option_names_provider_model_and_base_url(text: str, provider: str, model: str, base_url: str) -> None:
    endpoint = parse_spec(text, {})
    assert (endpoint.provider, endpoint.model, endpoint.base_url) == (provider, model, base_url)


@pytest.mark.parametrize("text", ["llama3", "vllm:model", "ollama:", "ollama:@http://x"])
def test_a_badly_written_model_option_is_bad_input_naming_it(text: str) -> None:
    with pytest.raises(RequestError, match="--model"):
        parse_spec(text, {})


def test_no_provider_no_model() -> None:
    assert from_environment(None, {}) is None
    assert from_environment("none", {"CLAUSEGUARD_MODEL_PROVIDER": "ollama", "CLAUSEGUARD_MODEL": "x"}) is None


def test_the_environment_configures_and_the_option_overrides() -> None:
    env = {"CLAUSEGUARD_MODEL_PROVIDER": "ollama", "CLAUSEGUARD_MODEL": "llama3.1:8b",
           "CLAUSEGUARD_MODEL_BASE_URL": "http://gpu-box:11434", "CLAUSEGUARD_MODEL_NUM_CTX": "16384"}
    config = from_environment(None, env)
    assert config is not None
    assert config.endpoint.spec == "ollama:llama3.1:8b@http://gpu-box:11434" and config.num_ctx == 16384
    # the same provider keeps the environment's base URL; another provider gets its own default
    same = from_environment("ollama:qwen2.5:7b", env)
    other = from_environment("openai:gpt-4o-mini", env)
    assert same is not None and same.endpoint.base_url == "http://gpu-box:11434"
    assert other is not None and other.endpoint.base_url == DEFAULT_BASE_URLS["openai-compatible"]


def test_a_provider_without_a_model_name_says_what_is_missing() -> None:
    with pytest.raises(RequestError, match="CLAUSEGUARD_MODEL .*not set"):
        from_environment(None, {"CLAUSEGUARD_MODEL_PROVIDER": "openai-compatible"})
    with pytest.raises(RequestError, match="unknown model provider 'vllm'"):
        from_environment(None, {"CLAUSEGUARD_MODEL_PROVIDER": "vllm", "CLAUSEGUARD_MODEL": "x"})
    with pytest.raises(RequestError, match="CLAUSEGUARD_MODEL_TIMEOUT_S"):
        from_environment(None, {"CLAUSEGUARD_MODEL_PROVIDER": "ollama", "CLAUSEGUARD_MODEL": "x",
                                "CLAUSEGUARD_MODEL_TIMEOUT_S": "soon"})


def test_roles_can_be_switched_off_or_given_their_own_model() -> None:
    env = {"CLAUSEGUARD_MODEL_PROVIDER": "ollama", "CLAUSEGUARD_MODEL": "llama3.1:8b",
           "CLAUSEGUARD_MODEL_ROLES": "phraser,support_judge,criteria_reader",
           "CLAUSEGUARD_MODEL_CRITERIA_READER": "anthropic:claude-sonnet-4-5",
           "CLAUSEGUARD_MODEL_SUPPORT_JUDGE": "off", "CLAUSEGUARD_MODEL_PHRASER_MAX_TOKENS": "300"}
    config = from_environment(None, env)
    assert config is not None
    assert [config.role(r).enabled for r in ROLES] == [True, False, True, False]
    assert config.endpoint_for("criteria_reader").spec == "anthropic:claude-sonnet-4-5@https://api.anthropic.com"
    assert config.endpoint_for("phraser") == config.endpoint
    assert config.role("phraser").max_output_tokens == 300
    with pytest.raises(RequestError, match="unknown role 'judge'"):
        from_environment(None, {**env, "CLAUSEGUARD_MODEL_ROLES": "judge"})


def test_knobs_record_the_settings_and_never_a_key() -> None:
    env = {"CLAUSEGUARD_MODEL_PROVIDER": "openai-compatible", "CLAUSEGUARD_MODEL": "gpt-4o-mini",
           "CLAUSEGUARD_MODEL_API_KEY": "sk-very-secret", "CLAUSEGUARD_MODEL_MAX_USD": "0.02"}
    config = from_environment(None, env)
    assert config is not None
    knobs = config.knobs()
    assert "sk-very-secret" not in json.dumps(knobs)
    assert config.endpoint.api_key(env) == "sk-very-secret"
    assert knobs["temperature"] == 0 and knobs["limits"]["max_usd"] == 0.02
    assert knobs["label"] == config.label == "openai-compatible-gpt-4o-mini"
    assert knobs["price_table"].startswith("sha256:") and knobs["prompt_version"]


def test_the_provider_key_variable_is_the_fallback() -> None:
    config = from_environment(None, {"CLAUSEGUARD_MODEL_PROVIDER": "anthropic", "CLAUSEGUARD_MODEL": "claude"})
    assert config is not None and config.endpoint.api_key_env == "ANTHROPIC_API_KEY"
    ollama = from_environment("ollama:llama3.1", {})
    assert ollama is not None and ollama.endpoint.api_key_env is None
