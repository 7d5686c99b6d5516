"""The service agent under test: any litellm model, prompted with the domain policy and tools."""

from __future__ import annotations

from typing import Any

from sage_desk.core.agents.base import AgentAction, ConversationView, ToolRequest, Usage


def reply_usage(reply: Any) -> Usage:
    """Our Usage from an LlmReply's usage."""
    u = reply.usage
    return Usage(model=u.model, prompt_tokens=u.prompt_tokens, completion_tokens=u.completion_tokens,
                 cost_usd=u.cost_usd, latency_ms=u.latency_ms)


class LlmServiceAgent:
    """Calls the model with the conversation so far and the domain's tool schemas."""

    def __init__(self, model: str, api_base: str | None = None, api_key: str | None = None,
                 temperature: float | None = None, timeout: float = 60.0, max_retries: int = 4,
                 client: Any = None, **extra: Any):
        from sage_desk.core.llm import LlmClient

        self.name = model
        self.model = model
        self.client = client or LlmClient()
        self.options = {"api_base": api_base, "api_key": api_key, "temperature": temperature,
                        "timeout": timeout, "max_retries": max_retries, **extra}

    async def step(self, view: ConversationView) -> AgentAction:
        reply = await self.client.complete(self.model, view.messages, tools=view.bundle.tool_schemas(),
                                           seed=view.seed, **self.options)
        calls = [ToolRequest(id=c.id, name=c.name, arguments=c.arguments, arguments_raw=c.arguments_raw,
                             parse_error=c.parse_error) for c in reply.tool_calls]
        return AgentAction(text=reply.content, tool_calls=calls, usage=reply_usage(reply))
