"""One conversation: the opening, then agent turns (bounded tool loops) and customer replies.

Everything that happens is an event appended through the recorder as it happens. The loop ends
with a named `TerminationReason`; a provider or harness failure is recorded as an `error` event
and the conversation finishes as errored. Nothing here raises past `run_conversation` except
cancellation.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field

from sage_desk.core.agents.base import AgentAction, ConversationView, Customer, CustomerReply, DoneCall, ServiceAgent
from sage_desk.core.agents.prompts import agent_system_prompt
from sage_desk.core.cases.build import case_world
from sage_desk.core.cases.model import Case
from sage_desk.core.domain.loader import DomainBundle
from sage_desk.core.domain.tools import CLOSE, CLOSE_OUTCOMES, HANDOVER, TAG, ToolResult, call_tool
from sage_desk.core.domain.world import WorldView
from sage_desk.core.errors import SageError
from sage_desk.core.events import (
    AgentMessage,
    CustomerMessage,
    Ended,
    ErrorEvent,
    Event,
    Handover,
    LlmUsage,
    Recorder,
    TerminationReason,
    TicketClosed,
    TicketTagged,
    ToolCall,
)
from sage_desk.core.jsonsafe import JsonObject
from sage_desk.core.llm.types import ToolCallRequest, Usage

MAX_CUSTOMER_TURNS = 8
MAX_TOOL_STEPS = 10  # agent steps within one turn before we call it a tool loop


@dataclass
class Outcome:
    """How a conversation ended, with its totals."""

    reason: TerminationReason
    error: str | None = None
    events: list[Event] = field(default_factory=list)


class _Conversation:
    """The mutable state of one conversation while it runs."""

    def __init__(self, cid: str, case: Case, bundle: DomainBundle, recorder: Recorder, seed: int):
        self.cid, self.case, self.bundle, self.recorder, self.seed = cid, case, bundle, recorder, seed
        self.world: WorldView = case_world(bundle, case)
        self.events: list[Event] = []
        self._unflushed = 0  # events not yet handed to the recorder
        self.messages: list[JsonObject] = [{"role": "system", "content": agent_system_prompt(bundle)}]
        self.turn = 1
        self.started = time.monotonic()
        self.ended: TerminationReason | None = None

    def emit(self, event: Event) -> None:
        event.seq = len(self.events)
        event.turn = self.turn
        event.t = round(time.monotonic() - self.started, 4)
        self.events.append(event)

    def flush(self) -> None:
        """Hand new events to the recorder: once per step, so a run's store sees every turn."""
        if self._unflushed < len(self.events):
            self.recorder.append_many(self.cid, self.events[self._unflushed :])
            self._unflushed = len(self.events)

    def view(self) -> ConversationView:
        return ConversationView(self.case, self.bundle, self.messages, self.events, self.turn, self.seed, self.cid)

    def usage(self, role: str, usage: Usage | None) -> None:
        if usage is not None:
            self.emit(
                LlmUsage(
                    role=role,
                    model=usage.model,
                    prompt_tokens=usage.prompt_tokens,
                    completion_tokens=usage.completion_tokens,
                    cost_usd=usage.cost_usd,
                    latency_ms=usage.latency_ms,
                )
            )


async def run_conversation(
    cid: str,
    case: Case,
    bundle: DomainBundle,
    agent: ServiceAgent,
    customer: Customer,
    recorder: Recorder,
    seed: int = 0,
    finish: bool = True,
) -> Outcome:
    """Play one case to its end and record it.

    With `finish=False` the conversation's end is left to the caller (the runner records it
    together with the verdicts, so that a conversation is never finished without them).
    """
    convo = _Conversation(cid, case, bundle, recorder, seed)
    own_prompt = system_prompt_of(agent, bundle)
    if own_prompt is not None:
        convo.messages[0]["content"] = own_prompt
    recorder.start_conversation(cid)
    error: str | None = None
    try:
        convo.emit(CustomerMessage(text=_opening(case), emotion=case.persona.emotion))
        convo.messages.append({"role": "user", "content": _opening(case)})
        convo.flush()
        await _loop(convo, agent, customer)
    except asyncio.CancelledError:
        raise  # the run was cancelled: the conversation stays unfinished and resumes later
    except SageError as exc:  # provider errors after retries (LlmError), configuration errors
        error = str(exc)
        convo.emit(
            ErrorEvent(where=getattr(exc, "where", "agent"), message=error, retryable=bool(getattr(exc, "retryable", False)))
        )
        convo.ended = TerminationReason.ERROR
    except Exception as exc:  # a harness bug: recorded, never a silent drop or a crashed run
        error = f"{type(exc).__name__}: {exc}"
        convo.emit(ErrorEvent(where="harness", message=error))
        convo.ended = TerminationReason.ERROR
    reason = convo.ended or TerminationReason.TURN_LIMIT
    convo.emit(Ended(reason=reason))
    convo.flush()
    if finish:
        recorder.finish(cid, reason, error, events=convo.events)
    return Outcome(reason, error, convo.events)


def system_prompt_of(agent: ServiceAgent, bundle: DomainBundle) -> str | None:
    """The agent's own system prompt (a run's --agent-prompt file), or None for SAGE Desk's."""
    own = getattr(agent, "system_prompt", None)
    return own(bundle) if callable(own) else None


def _opening(case: Case) -> str:
    return f"Subject: {case.subject}\n\n{case.opening}" if case.subject else case.opening


async def _loop(convo: _Conversation, agent: ServiceAgent, customer: Customer) -> None:
    while True:
        await _agent_turn(convo, agent)
        if convo.ended:
            return
        if convo.turn >= MAX_CUSTOMER_TURNS:
            convo.ended = TerminationReason.TURN_LIMIT
            return
        reply = await _customer_reply(convo, customer)
        convo.usage("user", reply.usage)
        if reply.text is None:
            convo.ended = TerminationReason.CUSTOMER_STOPPED
            return
        convo.turn += 1
        convo.emit(CustomerMessage(text=reply.text, emotion=reply.emotion, satisfaction=reply.satisfaction))
        convo.messages.append({"role": "user", "content": reply.text})
        convo.flush()


async def _customer_reply(convo: _Conversation, customer: Customer) -> CustomerReply:
    try:
        return await customer.reply(convo.view())
    except SageError as exc:
        exc.where = "customer"  # type: ignore[attr-defined]  # the error event names the role that failed
        raise


async def _agent_turn(convo: _Conversation, agent: ServiceAgent) -> None:
    for _ in range(MAX_TOOL_STEPS):
        try:
            action = await agent.step(convo.view())
        except SageError as exc:
            exc.where = "agent"  # type: ignore[attr-defined]
            raise
        convo.usage("agent", action.usage)
        for done in action.done_calls:  # calls it made through serve-tools, already run there: recorded in order
            _record_done(convo, done)
        _assistant_message(convo, action)
        for request in action.tool_calls:
            _run_tool(convo, request)
        if action.text:
            convo.emit(AgentMessage(text=action.text))
        convo.flush()
        if convo.ended or (action.text and not action.tool_calls):
            return
        if action.text is None and not action.tool_calls:
            convo.emit(AgentMessage(text=""))  # an empty reply still ends the agent's turn
            return
        if action.text and action.tool_calls:
            return
    convo.ended = TerminationReason.TOOL_LOOP_LIMIT


def _assistant_message(convo: _Conversation, action: AgentAction) -> None:
    message: JsonObject = {"role": "assistant", "content": action.text or None}
    if action.tool_calls:
        message["tool_calls"] = [
            {
                "id": r.id,
                "type": "function",
                "function": {"name": r.name, "arguments": r.arguments_raw or json.dumps(r.arguments or {})},
            }
            for r in action.tool_calls
        ]
    convo.messages.append(message)


def _record_done(convo: _Conversation, done: DoneCall) -> None:
    """A call the tools server ran: its assistant step, event, ending and tool message, as if run here."""
    request = done.request
    _assistant_message(convo, AgentAction(tool_calls=[request]))
    result = ToolResult(result=done.result, error=done.error, kind=done.kind, guard_failed=done.guard_failed)
    _record_result(convo, request, result, done.latency_ms)


def _run_tool(convo: _Conversation, request: ToolCallRequest) -> None:
    started = time.perf_counter()
    if request.arguments is None:
        result = ToolResult(error=f"{request.name}: arguments are not valid JSON ({request.parse_error or 'unparseable'})")
    elif request.name in (TAG, HANDOVER, CLOSE):
        result = _helpdesk(convo, request)
    else:
        result = call_tool(convo.bundle.domain, convo.world, request.name, request.arguments)
    _record_result(convo, request, result, round((time.perf_counter() - started) * 1000, 3))


def _record_result(convo: _Conversation, request: ToolCallRequest, result: ToolResult, latency_ms: float) -> None:
    """A tool call's outcome, whoever ran it: its event, the ending it may bring, and the tool message the agent reads."""
    args: JsonObject | str = request.arguments if request.arguments is not None else request.arguments_raw
    convo.emit(
        ToolCall(
            call_id=request.id,
            name=request.name,
            arguments=args,
            result=result.result,
            error=result.error,
            kind=result.kind,
            guard_failed=result.guard_failed,
            latency_ms=latency_ms,
        )
    )
    _after_helpdesk(convo, request, result)
    convo.messages.append({"role": "tool", "tool_call_id": request.id, "content": result.for_model()})


def _helpdesk(convo: _Conversation, request: ToolCallRequest) -> ToolResult:
    return helpdesk_result(request, ended=convo.ended is not None)


def helpdesk_result(request: ToolCallRequest, ended: bool) -> ToolResult:
    """What tag_ticket, handover_to_human and close_ticket answer (here and in serve-tools)."""
    args = request.arguments or {}
    if ended:
        return ToolResult(error="the ticket is already closed", kind="helpdesk")
    if request.name == TAG:
        if not isinstance(args.get("intent"), str):
            return ToolResult(error="tag_ticket: 'intent' is required", kind="helpdesk")
        if "slots" in args and not isinstance(args["slots"], dict):
            return ToolResult(error="tag_ticket: 'slots' must be an object", kind="helpdesk")
        return ToolResult(result={"tagged": True}, kind="helpdesk")
    if request.name == HANDOVER:
        return ToolResult(result={"handed_over": True}, kind="helpdesk")
    outcome = args.get("outcome")
    if outcome not in CLOSE_OUTCOMES:
        return ToolResult(error=f"close_ticket: 'outcome' must be one of {list(CLOSE_OUTCOMES)}", kind="helpdesk")
    return ToolResult(result={"closed": True, "outcome": outcome}, kind="helpdesk")


def _after_helpdesk(convo: _Conversation, request: ToolCallRequest, result: ToolResult) -> None:
    """Turn successful helpdesk calls into their readable events and endings."""
    if not result.ok or request.arguments is None:
        return
    args = request.arguments
    if request.name == TAG:
        convo.emit(TicketTagged(intent=args.get("intent"), slots=dict(args.get("slots") or {})))
    elif request.name == HANDOVER:
        convo.emit(Handover(reason=str(args.get("reason", ""))))
        convo.ended = TerminationReason.HANDED_OVER
    elif request.name == CLOSE:
        convo.emit(TicketClosed(outcome=str(args["outcome"]), summary=str(args.get("summary", ""))))
        convo.ended = TerminationReason.CLOSED
