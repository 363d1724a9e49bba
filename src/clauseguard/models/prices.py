"""The price table (`data/model_prices.yaml`) and what a call cost.

Prices are data, never code: a hosted model the table lacks is priced at the table's deliberately
high `fallback`, a model on this machine (Ollama, a loopback server) with no entry is free.
"""

from __future__ import annotations

import hashlib
import ipaddress
from dataclasses import dataclass
from fnmatch import fnmatchcase
from functools import lru_cache
from importlib import resources
from typing import Any, Final
from urllib.parse import urlsplit

from clauseguard.datafiles import load_yaml
from clauseguard.models.config import Endpoint

FORMAT: Final = "clauseguard.model-prices/v1"


@dataclass(frozen=True)
class Price:
    """US dollars per million input and output tokens, and where the figure came from."""

    input: float
    output: float
    source: str  # "table: <glob>", "local", "fallback"

    def cost(self, input_tokens: int, output_tokens: int) -> float:
        return (input_tokens * self.input + output_tokens * self.output) / 1_000_000


@dataclass(frozen=True)
class PriceTable:
    entries: tuple[tuple[str, str, float, float], ...]  # provider, model glob, input, output
    fallback: tuple[float, float]
    fingerprint: str

    def price(self, endpoint: Endpoint) -> Price:
        """The first matching entry; else free on this machine; else the fallback."""
        for provider, glob, inp, out in self.entries:
            if provider == endpoint.provider and fnmatchcase(endpoint.model, glob):
                return Price(inp, out, f"table: {provider} {glob}")
        if endpoint.provider == "ollama" or is_loopback(endpoint.base_url):
            return Price(0.0, 0.0, "local")
        return Price(*self.fallback, "fallback")


def is_loopback(url: str) -> bool:
    host = urlsplit(url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def parse_table(text: str) -> PriceTable:
    data: Any = load_yaml(text)
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"the price table is not a {FORMAT} document")
    entries = tuple(
        (str(e["provider"]), str(e["model"]), float(e["input"]), float(e["output"])) for e in data.get("models") or []
    )
    fallback = data.get("fallback") or {}
    return PriceTable(entries, (float(fallback["input"]), float(fallback["output"])),
                      "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest())


@lru_cache(maxsize=1)
def default_prices() -> PriceTable:
    """The table shipped in the package."""
    path = resources.files("clauseguard") / "data" / "model_prices.yaml"
    return parse_table(path.read_text(encoding="utf-8"))
