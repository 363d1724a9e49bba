"""Optional model backends: a language model reads criteria the rule compiler refused, extracts facts,
phrases the answer and doubts citations; it never decides (the gate does) and every output is checked.

Nothing here is needed for any answer: with no model configured the engine never builds a client,
and importing this package (for its configuration) loads no HTTP client until one is asked for.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from clauseguard.models.assist import ModelAssist, ModelRun
    from clauseguard.models.config import ModelConfig, from_environment
    from clauseguard.models.status import model_status

__all__ = ["ModelAssist", "ModelConfig", "ModelRun", "from_environment", "model_status"]
_HOMES = {"ModelAssist": "assist", "ModelRun": "assist", "ModelConfig": "config", "from_environment": "config",
          "model_status": "status"}


def __getattr__(name: str) -> Any:
    if name in _HOMES:
        return getattr(import_module(f"clauseguard.models.{_HOMES[name]}"), name)
    raise AttributeError(f"module 'clauseguard.models' has no attribute {name!r}")
