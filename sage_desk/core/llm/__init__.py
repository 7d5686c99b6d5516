"""One thin client over litellm: completions, tool calls, retries, usage and cost.

Importing this package does not import litellm; the first call does.
"""

from sage_desk.core.llm.client import LlmClient, load_litellm, parse_tool_call, provider_key
from sage_desk.core.llm.pricing import register_prices, registered_price, unregister_prices
from sage_desk.core.llm.redact import redact
from sage_desk.core.llm.types import LlmError, LlmReply, ToolCallRequest, Usage

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
