"""What a model call returns, and how it fails: plain pydantic values, no litellm types."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from sage_desk.core.errors import SageError
from sage_desk.core.jsonsafe import JsonObject


class _Value(BaseModel):
    model_config = ConfigDict(frozen=True)


class ToolCallRequest(_Value):
    """A tool call the model asked for; `arguments` is None when `arguments_raw` did not parse."""

    id: str
    name: str
    arguments: JsonObject | None = None
    arguments_raw: str = ""
    parse_error: str | None = Field(default=None, description="Why the arguments are unusable; the call is kept, never raised")


class Usage(_Value):
    """Tokens, cost and wall time of one successful call."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    latency_ms: float = 0.0
    model: str = ""


class LlmReply(_Value):
    """The model's answer: text, tool calls, or both."""

    content: str | None = None
    tool_calls: list[ToolCallRequest] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    finish_reason: str | None = None
    attempts: int = Field(default=1, description="1 + how many retries it took")

    def assistant_message(self) -> JsonObject:
        """The reply as an OpenAI-format assistant message, to append to the history."""
        message: JsonObject = {"role": "assistant", "content": self.content}
        if self.tool_calls:
            message["tool_calls"] = [
                {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments_raw}}
                for c in self.tool_calls
            ]
        return message


class LlmError(SageError):
    """A model call failed for good; its text never contains an API key.

    `retryable` says whether the failure was transient (429, 5xx, timeout, connection) and the
    retries ran out, or permanent (400, 401, 404 ...) and retrying would not help.
    """

    def __init__(self, message: str, retryable: bool = False, status: int | None = None, model: str = "", attempts: int = 1):
        super().__init__(message)
        self.retryable = retryable
        self.status = status
        self.model = model
        self.attempts = attempts
