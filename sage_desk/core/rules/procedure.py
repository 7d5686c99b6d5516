"""Procedure rules a policy states in general (DESIGN.md section 13): confirmation before a write,
one action at a time. Deterministic, read from the transcript; a domain opts in on its graph's
action nodes (`confirm: required`) and in domain.yaml (`one_action_at_a_time: true`), so the
shipped domains, which ask neither, get no verdict from this family.

- **procedure.confirmation**: every write that took effect, of a tool some action node marks
  `confirm: required`, must come after (1) an agent message listing the action's details, then
  (2) a customer message that agrees, with no other customer message between that agreement and
  the call. The details are the call's own arguments named by the node's `confirm_details`
  (the tool's key when none), each found in the listing (or in the customer's own agreeing words,
  which may name the record: "yes, cancel ABC123"); a listing that names other values than the call
  carries is a confirmation of a different action, and fails.
- **procedure.one_at_a_time**: no agent reply and tool call in one message (a reply followed at once
  by a call, with nothing between). Several calls in one message are not told apart from calls in
  a row once imported, so they are not judged here.

A transfer to a human is judged by the escalation family: required where the path the
conversation is placed on ends with a human, wrong where it does not.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from sage_desk.core.domain.loader import DomainBundle
from sage_desk.core.domain.model import ToolKind
from sage_desk.core.events import AgentMessage, CustomerMessage, Event, ToolCall
from sage_desk.core.rules.engine import RuleContext, rule
from sage_desk.core.rules.verdict import Verdict
from sage_desk.core.sop.model import NodeKind

AGREES = re.compile(
    r"\b(yes|yeah|yep|yup|sure|ok|okay|confirm(ed|s)?|go ahead|proceed|please do|do it|do that|that'?s (right|correct|fine)"
    r"|correct|absolutely|definitely|sounds good|let'?s do|i agree|agreed|please (cancel|book|change|go|update|upgrade|add|"
    r"modify|return|exchange|send|make))\b", re.IGNORECASE)
REFUSES = re.compile(r"^\W*(no|nope|not|don'?t|wait|hold on|stop)\b|\b(do not|don'?t) (do|proceed|cancel|book|change)",
                     re.IGNORECASE)


def confirm_tools(bundle: DomainBundle) -> dict[str, list[str]]:
    """Tool -> the argument paths its listing must name, for every tool an action node marks `confirm: required`."""
    out: dict[str, list[str]] = {}
    for node in bundle.graph.nodes:
        if node.kind != NodeKind.ACTION or node.confirm != "required" or not node.tool:
            continue
        spec = bundle.domain.tools.get(node.tool)
        details = node.confirm_details or ([spec.key] if spec is not None else [])
        out.setdefault(node.tool, [])
        out[node.tool] += [d for d in details if d not in out[node.tool]]
    return out


def values_at(data: Any, path: str) -> list[Any]:
    """The leaf values at a dotted path, through lists (`flights.flight_number` -> every flight's number)."""
    found = [data]
    for part in path.split("."):
        step: list[Any] = []
        for item in found:
            for one in item if isinstance(item, list) else [item]:
                if isinstance(one, dict) and part in one:
                    step.append(one[part])
        found = step
    return [v for item in found for v in (item if isinstance(item, list) else [item]) if v is not None and v != ""]


def _fold(text: str) -> str:
    return re.sub(r"[^a-z0-9.]+", " ", text.lower()).strip()


def named(value: Any, text: str) -> bool:
    """Whether `value` is named in `text`: loosely (case, `_` and punctuation folded); a number by its value
    (`120` in "$120.00"); a payment id by its id or its number (`credit_card_7815826` by "7815826")."""
    folded = f" {_fold(text)} "
    if isinstance(value, bool):
        return True  # a yes/no flag has no words of its own
    if isinstance(value, int | float):
        numbers = {float(n) for n in re.findall(r"\d+(?:\.\d+)?", text.replace(",", ""))}
        return float(value) in numbers
    word = _fold(str(value))
    if f" {word} " in folded:
        return True
    digits = re.findall(r"\d{4,}", str(value))
    return bool(digits) and all(d in folded for d in digits)


def _before(events: Sequence[Event], seq: int) -> list[Event]:
    return [e for e in events if e.seq < seq]


def _confirmation(call: ToolCall, details: list[str], events: Sequence[Event], writes: Sequence[ToolCall]) -> tuple[bool, str]:
    """Whether the call was confirmed (see the module doc), and why."""
    earlier = _before(events, call.seq)
    said = [e for e in earlier if isinstance(e, CustomerMessage)]
    if not said:
        return False, f"{call.name} with no customer message before it: nothing was agreed"
    agreement = said[-1]
    if REFUSES.search(agreement.text) or not AGREES.search(agreement.text):
        return False, f"{call.name} without an explicit yes: the customer's last words before it were {agreement.text[:80]!r}"
    listing = [e for e in earlier if isinstance(e, AgentMessage) and e.seq < agreement.seq]
    turn = [e for e in listing if e.seq > (said[-2].seq if len(said) > 1 else -1)]
    if not turn:
        return False, f"{call.name}: the customer agreed, but no details of the action were listed before"
    # the details may have been named anywhere since the last write before this agreement (the record
    # named by the customer, the flights listed a message earlier), but the turn before the yes must list
    since = max((w.seq for w in writes if w.seq < agreement.seq), default=-1)
    text = " ".join(e.text for e in earlier if isinstance(e, AgentMessage | CustomerMessage) and since < e.seq <= agreement.seq)
    args = call.arguments if isinstance(call.arguments, dict) else {}
    missing = [(d, v) for d in details for v in values_at(args, d) if not named(v, text)]
    if missing:
        shown = ", ".join(f"{d}={v!r}" for d, v in missing[:3])
        return False, f"{call.name}: the details agreed to are not the call's ({shown} never listed before the yes)"
    return True, f"{call.name}: details listed and agreed before the call"


def _writes(bundle: DomainBundle, events: Iterable[Event]) -> list[ToolCall]:
    tools = bundle.domain.tools
    return [e for e in events if isinstance(e, ToolCall) and e.name in tools and e.error is None
            and tools[e.name].kind != ToolKind.READ]


@rule("procedure")
def procedure(ctx: RuleContext) -> list[Verdict]:
    """Confirmation before a write and one action at a time, where the domain asks for them."""
    verdicts: list[Verdict] = []
    wanted = confirm_tools(ctx.bundle)
    if wanted:
        writes = _writes(ctx.bundle, ctx.events)
        checked = [(call, *_confirmation(call, wanted[call.name], ctx.events, writes))
                   for call in writes if call.name in wanted]
        failed = [c for c in checked if not c[1]]
        if failed:
            call, _, why = failed[0]
            more = f" (and {len(failed) - 1} more)" if len(failed) > 1 else ""
            verdicts.append(ctx.verdict("procedure.confirmation", False, why + more, event_seq=call.seq,
                                        details={"tool": call.name, "count": len(failed)}))
        else:
            why = f"{len(checked)} write(s), each listed and agreed first" if checked else "no write that needs a confirmation"
            verdicts.append(ctx.verdict("procedure.confirmation", True, why))
    if ctx.bundle.domain.one_action_at_a_time:
        verdicts.append(_one_at_a_time(ctx))
    return verdicts


def _one_at_a_time(ctx: RuleContext) -> Verdict:
    ordered = sorted(ctx.events, key=lambda e: e.seq)
    for event, following in zip(ordered, ordered[1:], strict=False):
        if isinstance(event, AgentMessage) and isinstance(following, ToolCall):
            return ctx.verdict("procedure.one_at_a_time", False, f"replied to the customer and called {following.name} in "
                               "one message", event_seq=following.seq)
    return ctx.verdict("procedure.one_at_a_time", True, "no reply and tool call in one message")
