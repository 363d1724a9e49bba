"""Model configuration: which provider and model each role uses, and the caps that bound them.

Read from `CLAUSEGUARD_MODEL_*` environment variables, with `--model PROVIDER:MODEL[@BASE_URL]`
replacing provider, model and base URL for one command. It holds the *name* of the variable that
carries an API key, never the key itself, so a config can be printed, logged and put in knobs.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Literal, get_args

from clauseguard.errors import RequestError

Provider = Literal["openai-compatible", "ollama", "anthropic"]
Role = Literal["criteria_reader", "fact_extractor", "phraser", "support_judge"]
JsonMode = Literal["json_schema", "json_object"]

PROVIDERS: Final[tuple[str, ...]] = get_args(Provider)
ROLES: Final[tuple[Role, ...]] = get_args(Role)
PROVIDER_ALIASES: Final = {"openai": "openai-compatible", "openai_compatible": "openai-compatible"}
DISABLED: Final = frozenset({"none", "off", "no", "false", "0"})

DEFAULT_BASE_URLS: Final[dict[str, str]] = {
    "openai-compatible": "https://api.openai.com/v1",
    "ollama": "http://localhost:11434",
    "anthropic": "https://api.anthropic.com",
}
# The variable a provider's own tools read the key from (CLAUSEGUARD_MODEL_API_KEY comes first).
PROVIDER_KEY_ENV: Final[dict[str, str | None]] = {
    "openai-compatible": "OPENAI_API_KEY",
    "ollama": None,
    "anthropic": "ANTHROPIC_API_KEY",
}
TEMPERATURE: Final = 0.0  # every role, always: the same prompt should give the same reading
DEFAULT_REQUEST_TIMEOUT_S: Final = 30.0
DEFAULT_TIME_CAP_S: Final = 120.0
DEFAULT_MAX_TOKENS: Final = 64_000  # per determination, input and output together
DEFAULT_MAX_USD: Final = 0.10  # per determination
DEFAULT_NUM_CTX: Final = 8192  # Ollama truncates the prompt silently beyond its context window
DEFAULT_OUTPUT_TOKENS: Final[dict[str, int]] = {
    "criteria_reader": 2000, "fact_extractor": 800, "phraser": 800, "support_judge": 400,
}
PREFIX: Final = "CLAUSEGUARD_MODEL"

_SPEC = re.compile(r"^(?P<provider>[A-Za-z_-]+):(?P<rest>.+)$")


@dataclass(frozen=True)
class Endpoint:
    """One model at one provider: what a client needs, the key by variable name only."""

    provider: Provider
    model: str
    base_url: str
    api_key_env: str | None = None  # the variable holding the key; None when the provider needs none

    @property
    def spec(self) -> str:
        """The `--model` form of this endpoint."""
        return f"{self.provider}:{self.model}@{self.base_url}"

    def api_key(self, env: Mapping[str, str] | None = None) -> str | None:
        source = os.environ if env is None else env
        return source.get(self.api_key_env) if self.api_key_env else None


@dataclass(frozen=True)
class RoleSettings:
    """A role's own endpoint (None: the default one), whether it runs, and its output cap."""

    enabled: bool = True
    endpoint: Endpoint | None = None
    max_output_tokens: int = 800


@dataclass(frozen=True)
class Limits:
    """Caps per request, per determination and per calendar month (UTC)."""

    request_timeout_s: float = DEFAULT_REQUEST_TIMEOUT_S
    time_cap_s: float = DEFAULT_TIME_CAP_S
    max_tokens: int = DEFAULT_MAX_TOKENS
    max_usd: float = DEFAULT_MAX_USD
    budget_usd: float | None = None  # None: no monthly budget


@dataclass(frozen=True)
class ModelConfig:
    """The whole model configuration; absent (None) means the deterministic engine alone."""

    endpoint: Endpoint
    roles: Mapping[Role, RoleSettings] = field(default_factory=dict)
    limits: Limits = field(default_factory=Limits)
    num_ctx: int = DEFAULT_NUM_CTX
    json_mode: JsonMode = "json_schema"

    def role(self, name: Role) -> RoleSettings:
        return self.roles.get(name) or RoleSettings(max_output_tokens=DEFAULT_OUTPUT_TOKENS[name])

    def endpoint_for(self, name: Role) -> Endpoint:
        return self.role(name).endpoint or self.endpoint

    @property
    def label(self) -> str:
        """A file-name-safe name of provider and model (the baseline of a model run carries it)."""
        return re.sub(r"[^A-Za-z0-9._-]+", "-", f"{self.endpoint.provider}-{self.endpoint.model}").strip("-")

    def knobs(self) -> dict[str, Any]:
        """What a trace, an assertion id and a scorecard record about the model (never a key)."""
        from clauseguard.models.prices import default_prices
        from clauseguard.models.prompts import PROMPT_VERSION

        return {
            "label": self.label,
            "prompt_version": PROMPT_VERSION,
            "price_table": default_prices().fingerprint,
            "provider": self.endpoint.provider,
            "model": self.endpoint.model,
            "base_url": self.endpoint.base_url,
            "temperature": TEMPERATURE,
            "json_mode": self.json_mode,
            "num_ctx": self.num_ctx if self.endpoint.provider == "ollama" else None,
            "roles": {
                name: {
                    "enabled": self.role(name).enabled,
                    "model": self.endpoint_for(name).spec,
                    "max_output_tokens": self.role(name).max_output_tokens,
                }
                for name in ROLES
            },
            "limits": {
                "request_timeout_s": self.limits.request_timeout_s,
                "time_cap_s": self.limits.time_cap_s,
                "max_tokens": self.limits.max_tokens,
                "max_usd": self.limits.max_usd,
                "budget_usd": self.limits.budget_usd,
            },
        }


def _provider(text: str, where: str) -> Provider:
    name = PROVIDER_ALIASES.get(text.strip().lower(), text.strip().lower())
    if name not in PROVIDERS:
        raise RequestError(where, f"unknown model provider {text!r}; use one of {', '.join(PROVIDERS)}")
    return name  # type: ignore[return-value]


def _key_env(provider: str, env: Mapping[str, str]) -> str | None:
    if env.get(f"{PREFIX}_API_KEY"):
        return f"{PREFIX}_API_KEY"
    return PROVIDER_KEY_ENV[provider]


def parse_spec(text: str, env: Mapping[str, str], where: str = "--model",
               default_base_url: str | None = None) -> Endpoint:
    """`PROVIDER:MODEL[@BASE_URL]`, e.g. `ollama:llama3.1:8b@http://localhost:11434`,
    `openai-compatible:qwen2.5-7b-instruct@http://127.0.0.1:8080/v1`, `anthropic:claude-3-5-haiku-latest`.

    The model name may itself hold colons (Ollama tags); the base URL is what follows the last `@`
    that starts an http(s) URL. Without one, `default_base_url` or the provider's public default."""
    m = _SPEC.match(text.strip())
    if m is None:
        raise RequestError(where, f"{text!r} is not PROVIDER:MODEL[@BASE_URL] (e.g. ollama:llama3.1:8b@"
                                  "http://localhost:11434), or 'none' for no model")
    provider = _provider(m.group("provider"), where)
    model, base_url = m.group("rest"), default_base_url
    at = model.rfind("@")
    if at >= 0 and re.match(r"https?://", model[at + 1:]):
        model, base_url = model[:at], model[at + 1:]
    if not model.strip():
        raise RequestError(where, f"{text!r} names no model after '{m.group('provider')}:'")
    return Endpoint(provider, model.strip(), (base_url or DEFAULT_BASE_URLS[provider]).rstrip("/"),
                    _key_env(provider, env))


def _number(env: Mapping[str, str], name: str, default: float | None, *, positive: bool = True) -> float | None:
    raw = env.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise RequestError(name, f"{raw!r} is not a number") from None
    if positive and value <= 0:
        raise RequestError(name, f"{raw!r} must be greater than 0")
    return value


def from_environment(override: str | None = None, env: Mapping[str, str] | None = None) -> ModelConfig | None:
    """The configuration the environment gives, with `--model` (`override`) replacing provider, model
    and base URL; None when no model is configured or `override` is 'none'/'off'.

    A badly written value is a RequestError naming the variable (exit 2), never a silent fallback."""
    source: Mapping[str, str] = os.environ if env is None else env
    if override is not None and override.strip().lower() in DISABLED:
        return None
    provider_text = source.get(f"{PREFIX}_PROVIDER", "").strip()
    env_base = source.get(f"{PREFIX}_BASE_URL", "").strip() or None
    if override is not None and override.strip():
        endpoint = parse_spec(override, source, "--model")
        if env_base and provider_text and _provider(provider_text, f"{PREFIX}_PROVIDER") == endpoint.provider:
            # the same provider as the environment's: its base URL stands unless --model names one
            endpoint = parse_spec(override, source, "--model", default_base_url=env_base)
    elif provider_text:
        provider = _provider(provider_text, f"{PREFIX}_PROVIDER")
        model = source.get(PREFIX, "").strip()
        if not model:
            raise RequestError(PREFIX, f"{PREFIX}_PROVIDER is {provider_text!r} but {PREFIX} (the model name as "
                                       "the provider spells it) is not set")
        endpoint = Endpoint(provider, model, (env_base or DEFAULT_BASE_URLS[provider]).rstrip("/"),
                            _key_env(provider, source))
    else:
        return None

    enabled_text = source.get(f"{PREFIX}_ROLES", "").strip()
    enabled: set[str] = set(ROLES)
    if enabled_text:
        enabled = {r.strip() for r in enabled_text.split(",") if r.strip()}
        unknown = sorted(enabled - set(ROLES))
        if unknown:
            raise RequestError(f"{PREFIX}_ROLES", f"unknown role {unknown[0]!r}; roles: {', '.join(ROLES)}")
    roles: dict[Role, RoleSettings] = {}
    for name in ROLES:
        variable = f"{PREFIX}_{name.upper()}"
        spec = source.get(variable, "").strip()
        on = name in enabled and spec.lower() not in DISABLED
        role_endpoint = parse_spec(spec, source, variable) if spec and spec.lower() not in DISABLED else None
        tokens = _number(source, f"{variable}_MAX_TOKENS", DEFAULT_OUTPUT_TOKENS[name])
        roles[name] = RoleSettings(on, role_endpoint, int(tokens or DEFAULT_OUTPUT_TOKENS[name]))

    limits = Limits(
        request_timeout_s=_number(source, f"{PREFIX}_TIMEOUT_S", DEFAULT_REQUEST_TIMEOUT_S) or DEFAULT_REQUEST_TIMEOUT_S,
        time_cap_s=_number(source, f"{PREFIX}_TIME_CAP_S", DEFAULT_TIME_CAP_S) or DEFAULT_TIME_CAP_S,
        max_tokens=int(_number(source, f"{PREFIX}_MAX_TOKENS", DEFAULT_MAX_TOKENS) or DEFAULT_MAX_TOKENS),
        max_usd=_number(source, f"{PREFIX}_MAX_USD", DEFAULT_MAX_USD) or DEFAULT_MAX_USD,
        budget_usd=_number(source, f"{PREFIX}_BUDGET_USD", None, positive=False),
    )
    json_mode = source.get(f"{PREFIX}_JSON_MODE", "json_schema").strip() or "json_schema"
    if json_mode not in get_args(JsonMode):
        raise RequestError(f"{PREFIX}_JSON_MODE", f"{json_mode!r} is not one of {', '.join(get_args(JsonMode))}")
    num_ctx = int(_number(source, f"{PREFIX}_NUM_CTX", DEFAULT_NUM_CTX) or DEFAULT_NUM_CTX)
    return ModelConfig(endpoint, roles, limits, num_ctx, json_mode)  # type: ignore[arg-type]
