"""One thin client over litellm: completions, tool calls, retries, usage and cost.

Importing this package imports none of its modules: the names below load their module on first
use (PEP 562), so a process that only needs `redact` or `secrets` (the store, the report) does
not pay for the client, its HTTP code and its pydantic types. litellm itself loads on the first call.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# Imported now (it is small): the function must shadow its own submodule's name, which importing
# `sage_desk.core.llm.redact` later would otherwise bind here.
from sage_desk.core.llm.redact import redact

if TYPE_CHECKING:
    from sage_desk.core.llm.client import LlmClient, load_litellm, parse_tool_call, provider_key
    from sage_desk.core.llm.pricing import register_prices, registered_price, unregister_prices
    from sage_desk.core.llm.types import LlmError, LlmReply, ToolCallRequest, Usage

_WHERE = {
    "LlmClient": "client",
    "load_litellm": "client",
    "parse_tool_call": "client",
    "provider_key": "client",
    "register_prices": "pricing",
    "registered_price": "pricing",
    "unregister_prices": "pricing",
    "LlmError": "types",
    "LlmReply": "types",
    "ToolCallRequest": "types",
    "Usage": "types",
}

__all__ = [
    "LlmClient",
    "LlmError",
    "LlmReply",
    "ToolCallRequest",
    "Usage",
    "load_litellm",
    "parse_tool_call",
    "provider_key",
    "redact",
    "register_prices",
    "registered_price",
    "unregister_prices",
]


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value  # once: later lookups find it directly
    return value
