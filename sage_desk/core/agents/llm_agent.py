"""The service agent under test: any litellm model, prompted with the domain policy and tools."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sage_desk.core.agents.base import AgentAction, ConversationView
from sage_desk.core.agents.protocol import AgentSettings

if TYPE_CHECKING:
    from sage_desk.core.domain.loader import DomainBundle


class LlmServiceAgent:
    """Calls the model with the conversation so far and the domain's tool schemas."""

    def __init__(
        self,
        model: str,
        api_base: str | None = None,
        api_key: str | None = None,
        temperature: float | None = None,
        timeout: float = 60.0,
        max_retries: int = 4,
        client: Any = None,
        settings: AgentSettings | None = None,
        **extra: Any,
    ):
        from sage_desk.core.llm import LlmClient

        self.name = model
        self.model = model
        self.client = client or LlmClient()
        self.settings = settings or AgentSettings()
        # The run's --agent-params win over the defaults (temperature, max_tokens, timeout, any litellm one).
        self.options = {
            "api_base": api_base,
            "api_key": api_key,
            "temperature": temperature,
            "timeout": timeout,
            "max_retries": max_retries,
            **extra,
            **self.settings.params,
        }

    def system_prompt(self, bundle: DomainBundle) -> str | None:
        """The run's prompt file (the policy at `{policy}`), or None for SAGE Desk's own."""
        return self.settings.system_prompt(bundle)

    async def step(self, view: ConversationView) -> AgentAction:
        reply = await self.client.complete(
            self.model, view.messages, tools=view.bundle.tool_schemas(), seed=view.seed, **self.options
        )
        return AgentAction(text=reply.content, tool_calls=list(reply.tool_calls), usage=reply.usage)
