"""Whether an agent under test answers (`sage-desk doctor --agent SPEC`): one probe call, no run.

The agent is sent what a conversation's first call carries (the system prompt, a customer's opening
message, the domain's tool schemas) under the conversation id `doctor-probe`, and its reply must be
an assistant message with tools the domain has. Its tool calls are not run. An agent with its own
tool layer also needs its tools server to answer.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, replace

from sage_desk.core.agents.base import ConversationView, make_agent
from sage_desk.core.agents.protocol import AgentSettings, agent_kind, check_settings
from sage_desk.core.domain.loader import DomainBundle
from sage_desk.core.errors import SageError

PROBE_ID = "doctor-probe"


@dataclass(frozen=True)
class ProbeResult:
    """What the probe found: ok, and a line saying what answered or what went wrong."""

    ok: bool
    detail: str


def probe_agent(spec: str, bundle: DomainBundle, settings: AgentSettings | None = None) -> ProbeResult:
    """Send the agent one opening and read its reply; never raises for the agent's faults."""
    from sage_desk.core.cases.suite import load_suite
    from sage_desk.core.engine.conversation import _opening, system_prompt_of

    settings = settings or AgentSettings()
    settings = replace(settings, params={"max_retries": 0, **settings.params})  # one try: a probe says, it does not wait
    try:
        check_settings(settings, [spec])
        agent = make_agent(spec, settings)
        if settings.tools_server and agent_kind(spec) == "http":
            _check_tools_server(settings.tools_server, bundle)
        case = load_suite(bundle.cases_path)[0]
        system = system_prompt_of(agent, bundle)
        if system is None:
            from sage_desk.core.agents.prompts import agent_system_prompt

            system = agent_system_prompt(bundle)
        messages = [{"role": "system", "content": system}, {"role": "user", "content": _opening(case)}]
        view = ConversationView(case, bundle, messages, [], turn=1, seed=0, conversation_id=PROBE_ID)
        started = time.perf_counter()
        action = asyncio.run(agent.step(view))
    except SageError as exc:
        return ProbeResult(False, str(exc))
    ms = (time.perf_counter() - started) * 1000
    calls = [c.request.name for c in action.done_calls] + [c.name for c in action.tool_calls]
    said = "text" if action.text else "no text"
    return ProbeResult(True, f"{spec} answered in {ms:.0f} ms: {said}, tool calls: {', '.join(calls) or 'none'}")


def _check_tools_server(url: str, bundle: DomainBundle) -> None:
    import json
    import urllib.request

    from sage_desk.core.agents.mcp_agent import tools_base
    from sage_desk.core.agents.protocol import AgentError

    base = tools_base(url)
    try:
        with urllib.request.urlopen(f"{base}/", timeout=10) as response:  # the user's own server
            about = json.loads(response.read(65536))
    except (OSError, ValueError) as exc:
        raise AgentError(
            base, f"the tools server does not answer ({exc}); start it with sage-desk serve-tools --domain {bundle.name}"
        ) from None
    if about.get("domain") != bundle.name:
        raise AgentError(base, f"the tools server serves {about.get('domain')!r}'s tools, not {bundle.name}'s")
