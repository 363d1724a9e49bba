"""`clauseguard model status` and `GET /v1/model/status`: the configured model, whether it answers,
and what budget is left. Reads configuration and pings; never sends a prompt, never shows a key."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from clauseguard.models.clients import ModelClient, client_for
from clauseguard.models.config import ROLES, Endpoint, ModelConfig, from_environment
from clauseguard.models.ledger import UsageLedger, this_month
from clauseguard.models.prices import default_prices

PING_TIMEOUT_S: Final = 5.0


def model_status(
    override: str | None = None,
    *,
    env: Mapping[str, str] | None = None,
    config: ModelConfig | None = None,
    ledger: UsageLedger | None = None,
    ping_timeout_s: float = PING_TIMEOUT_S,
    client_factory: Callable[[Endpoint], ModelClient] | None = None,
) -> dict[str, Any]:
    """The status document: `configured`, then (when configured) provider, model, base URL, whether an
    API key is set, each role's model, `reachable` with a detail sentence per distinct endpoint, the
    per-determination caps and the month's budget, spend and remainder.

    `override` is a `--model` value; a badly written configuration raises RequestError (exit 2, HTTP 422)."""
    cfg = config if config is not None else from_environment(override, env)
    if cfg is None:
        return {
            "configured": False,
            "detail": "no model configured: the deterministic engine answers on its own (set "
                      "CLAUSEGUARD_MODEL_PROVIDER and CLAUSEGUARD_MODEL, or pass --model PROVIDER:MODEL[@BASE_URL])",
        }
    factory = client_factory or (lambda e: client_for(e, num_ctx=cfg.num_ctx, json_mode=cfg.json_mode,
                                                      api_key=e.api_key(env)))
    endpoints: dict[str, Endpoint] = {cfg.endpoint.spec: cfg.endpoint}
    for role in ROLES:
        if cfg.role(role).enabled:
            endpoint = cfg.endpoint_for(role)
            endpoints.setdefault(endpoint.spec, endpoint)
    checks = []
    for spec, endpoint in endpoints.items():
        found = factory(endpoint).ping(ping_timeout_s)
        checks.append({"model": spec, "reachable": found.reachable, "model_listed": found.model_listed,
                       "detail": found.detail})
    prices = default_prices()
    price = prices.price(cfg.endpoint)
    book = ledger or UsageLedger()
    spent = book.spent()
    budget = cfg.limits.budget_usd
    key_env = cfg.endpoint.api_key_env
    return {
        "configured": True,
        "provider": cfg.endpoint.provider,
        "model": cfg.endpoint.model,
        "base_url": cfg.endpoint.base_url,
        "api_key": "not needed" if key_env is None else (
            f"set ({key_env})" if cfg.endpoint.api_key(env) else f"not set ({key_env})"),
        "reachable": all(c["reachable"] for c in checks),
        "endpoints": checks,
        "roles": cfg.knobs()["roles"],
        "limits": cfg.knobs()["limits"],
        "price": {"usd_per_million_input": price.input, "usd_per_million_output": price.output,
                  "source": price.source, "table": prices.fingerprint},
        "budget": {
            "month": this_month(),
            "budget_usd": budget,
            "spent_usd": round(spent, 6),
            "remaining_usd": None if budget is None else round(max(0.0, budget - spent), 6),
        },
    }
