"""An agent in Python (`--agent python:package.module:factory`).

The factory is called with no arguments once per conversation and returns an object with
`async def respond(self, messages, tools) -> dict`: the OpenAI-format messages so far and the
domain's OpenAI tool schemas in, one assistant message (`content`, `tool_calls`) out. The module
is imported from the user's environment, the current folder first (so `python:my_agent:make`
finds ./my_agent.py).
"""

from __future__ import annotations

import copy
import importlib
import inspect
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from sage_desk.core.agents.base import AgentAction, AgentNameError, ConversationView
from sage_desk.core.agents.protocol import AgentError, AgentSettings, action_of_reply

if TYPE_CHECKING:
    from sage_desk.core.domain.loader import DomainBundle

PREFIX = "python:"


def load_factory(spec: str) -> Callable[[], Any]:
    """The factory `python:package.module:factory` names; a wrong name raises AgentNameError in one line."""
    module_name, sep, attr = spec.removeprefix(PREFIX).rpartition(":")
    if not sep or not module_name or not attr:
        raise AgentNameError(f"agent {spec!r}: write a Python agent as python:package.module:factory")
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())  # the user's own folder, as `python -m` would see it
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:  # the user's module: any failure is said in one line
        raise AgentNameError(f"agent {spec}: cannot import {module_name} ({type(exc).__name__}: {exc})") from None
    factory = getattr(module, attr, None)
    if not callable(factory):
        raise AgentNameError(f"agent {spec}: {module_name} has no callable {attr!r}")
    return factory  # type: ignore[no-any-return]


class PythonAgent:
    """Calls the user's `respond(messages, tools)` and reads its assistant message."""

    def __init__(self, spec: str, settings: AgentSettings | None = None, **_options: Any):
        self.name = spec
        self.settings = settings or AgentSettings()
        factory = load_factory(spec)
        try:
            self.impl = factory()
        except Exception as exc:  # the user's code
            raise AgentError(spec, f"its factory raised {type(exc).__name__}: {exc}") from None
        respond = getattr(self.impl, "respond", None)
        if respond is None or not inspect.iscoroutinefunction(respond):
            raise AgentNameError(f"agent {spec}: the factory's object needs `async def respond(self, messages, tools)`")

    def system_prompt(self, bundle: DomainBundle) -> str | None:
        return self.settings.system_prompt(bundle)

    async def step(self, view: ConversationView) -> AgentAction:
        # Its own copies: what it changes is neither the transcript nor the domain's schemas.
        messages, tools = copy.deepcopy(view.messages), copy.deepcopy(view.bundle.tool_schemas())
        try:
            reply = await self.impl.respond(messages, tools)
        except Exception as exc:  # the user's code: this conversation errors, the run goes on
            raise AgentError(self.name, f"respond raised {type(exc).__name__}: {exc}") from None
        text, calls = action_of_reply(self.name, reply, view.bundle)
        return AgentAction(text=text, tool_calls=calls)
