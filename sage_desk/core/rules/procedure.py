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

from sage_desk.core.domain.loader import DomainBundle
from sage_desk.core.domain.model import ToolKind
from sage_desk.core.events import AgentMessage, CustomerMessage, Event, ToolCall
from sage_desk.core.jsonsafe import Json, JsonObject
from sage_desk.core.rules.engine import RuleContext, rule
from sage_desk.core.rules.verdict import Verdict
from sage_desk.core.sop.model import NodeKind

AGREES = re.compile(
    r"\b(yes|yeah|yep|yup|sure|ok|okay|confirm(ed|s)?|go ahead|proceed|please do|do it|do that|that'?s (right|correct|fine)"
    r"|correct|absolutely|definitely|sounds good|let'?s do|i agree|agreed|please (cancel|book|change|go|update|upgrade|add|"
    r"modify|return|exchange|send|make|use)|let'?s (use|go with|book|take)|i'?ll (use|take|go with)|i will (use|take|go with)"
    r"|go with|use (the|my) )\b",
    re.IGNORECASE,
)
REFUSES = re.compile(
    r"^\W*(no|nope|not|don'?t|wait|hold on|stop)\b|\b(do not|don'?t) (do|proceed|cancel|book|change)", re.IGNORECASE
)


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


def values_at(data: Json, path: str) -> list[Json]:
    """The leaf values at a dotted path, through lists (`flights.flight_number` -> every flight's number)."""
    found = [data]
    for part in path.split("."):
        step: list[Json] = []
        for item in found:
            for one in item if isinstance(item, list) else [item]:
                if isinstance(one, dict) and part in one:
                    step.append(one[part])
        found = step
    return [v for item in found for v in (item if isinstance(item, list) else [item]) if v is not None and v != ""]


def _fold(text: str) -> str:
    """Lower case, punctuation to spaces; a dot only kept inside a number (12.50)."""
    return re.sub(r"[^a-z0-9.]+|(?<!\d)\.|\.(?!\d)", " ", text.lower()).strip()


def named(value: Json, text: str) -> bool:
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


ORIGINAL = re.compile(r"\b(original|same) (payment|form of payment|method|card)|\boriginal booking", re.IGNORECASE)


def _original(value: Json, earlier: Sequence[Event]) -> bool:
    """Whether `value` paid for a record the conversation read (its payment history's first payment), or no
    record with a payment history was read (nothing to hold the words against)."""
    firsts = [
        h[0].get("payment_id")
        for e in earlier
        if isinstance(e, ToolCall)
        and isinstance(e.result, dict)
        and isinstance(h := e.result.get("payment_history"), list)
        and h
        and isinstance(h[0], dict)
    ]
    return not firsts or value in firsts


def named_payment(value: Json, text: str, earlier: Sequence[Event] = ()) -> bool:
    """A payment method is named by its id's number, as "the original (or same) payment method" when it is the one that
    paid a record the conversation read, or,
    where a profile the conversation read holds it, by its card's last four digits or by its kind ("gift card")
    when the profile has no other of that kind."""
    if named(value, text):
        return True
    if ORIGINAL.search(text) and _original(value, earlier):
        return True
    methods: JsonObject = {}
    for e in earlier:
        found = e.result.get("payment_methods") if isinstance(e, ToolCall) and isinstance(e.result, dict) else None
        if isinstance(found, dict) and value in found:
            methods = found
    method = methods.get(value)
    if not isinstance(method, dict):
        return False
    if method.get("last_four") and named(str(method["last_four"]), text):
        return True
    source = str(method.get("source", ""))
    alike = [m for m in methods.values() if isinstance(m, dict) and m.get("source") == source]
    return len(alike) == 1 and f" {_fold(source)} " in f" {_fold(text)} "


def _before(events: Sequence[Event], seq: int) -> list[Event]:
    return [e for e in events if e.seq < seq]


NEW = "new:"
"""A detail read from what the write added to its record (`new:payment_history.amount`: the charge or refund it
made), compared with the record as last read; a number is named by its size (a refund of -120 as "120")."""


def _detail_values(detail: str, args: JsonObject, result: Json, kept: JsonObject) -> list[Json]:
    if not detail.startswith(NEW):
        return values_at(args, detail)
    path = detail[len(NEW) :]
    head = path.split(".", 1)[0]
    was, now = kept.get(head), result.get(head) if isinstance(result, dict) else None
    old: list[Json] = was if isinstance(was, list) else []
    added = [x for x in now if x not in old] if isinstance(now, list) else []
    rest = path.split(".", 1)[1] if "." in path else ""
    values = [v for x in added for v in (values_at(x, rest) if rest else [x])]
    return [abs(v) if isinstance(v, int | float) and not isinstance(v, bool) else v for v in values]


def _overcharged(call: ToolCall, kept: JsonObject, listing: str, text: str) -> list[tuple[str, Json]]:
    """A charge above every price the listing put to the customer: they agreed to pay less, so to another
    action (more segments, more passengers). A price quoted in their favour is a misquote, not this."""
    quoted = [float(p.replace(",", "")) for p in re.findall(r"\$\s?(\d[\d,]*(?:\.\d+)?)", listing)]
    was, now = kept.get("payment_history"), call.result.get("payment_history") if isinstance(call.result, dict) else None
    old: list[Json] = was if isinstance(was, list) else []
    charges = [x.get("amount") for x in now if x not in old and isinstance(x, dict)] if isinstance(now, list) else []
    return [
        ("charged", c)
        for c in charges
        if isinstance(c, int | float) and not isinstance(c, bool) and c > 0 and quoted and c > max(quoted) and not named(c, text)
    ]


def _named(detail: str, value: Json, text: str, earlier: Sequence[Event]) -> bool:
    return named_payment(value, text, earlier) if detail.endswith("payment_id") else named(value, text)


def _as_read(call: ToolCall, key: str | None, earlier: Sequence[Event]) -> JsonObject:
    """The call's record as the conversation last read it (a later read wins), {} when never read."""
    args = call.arguments if isinstance(call.arguments, dict) else {}
    if key is None or key not in args:
        return {}
    found: JsonObject = {}
    for e in earlier:
        if (
            isinstance(e, ToolCall)
            and e.error is None
            and isinstance(e.result, dict)
            and isinstance(e.arguments, dict)
            and e.arguments.get(key) == args[key]
            and e.result.get(key) == args[key]
        ):
            found = e.result
    return found


def _confirmation(
    call: ToolCall, details: list[str], events: Sequence[Event], writes: Sequence[ToolCall], spec_key: str | None = None
) -> tuple[bool, str]:
    """Whether the call was confirmed (see the module doc), and why. The record's own key may have been named
    anywhere before; a detail the record already has as last read (a kept flight) needs no listing again."""
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
    before = " ".join(e.text for e in earlier if isinstance(e, AgentMessage | CustomerMessage) and e.seq <= agreement.seq)
    kept = _as_read(call, spec_key, earlier)
    missing = []
    for detail in details:  # `a|b`: either detail named is enough (the charge's amount, or its payment method)
        options = [
            [
                (d, v)
                for v in _detail_values(d, args, call.result, kept)
                if not _named(d, v, before if d == spec_key else text, earlier)
                and (d.startswith(NEW) or v not in values_at(kept, d))
            ]
            for d in detail.split("|")
        ]
        missing += [] if any(not o for o in options) else options[0]
    if any(d.startswith(NEW) for detail in details for d in detail.split("|")):
        missing += _overcharged(call, kept, " ".join(e.text for e in turn) + " " + agreement.text, text)
    if missing:
        shown = ", ".join(f"{d}={v!r}" for d, v in missing[:3])
        return False, f"{call.name}: the details agreed to are not the call's ({shown} never listed before the yes)"
    return True, f"{call.name}: details listed and agreed before the call"


def _writes(bundle: DomainBundle, events: Iterable[Event]) -> list[ToolCall]:
    tools = bundle.domain.tools
    return [
        e
        for e in events
        if isinstance(e, ToolCall) and e.name in tools and e.error is None and tools[e.name].kind != ToolKind.READ
    ]


@rule("procedure")
def procedure(ctx: RuleContext) -> list[Verdict]:
    """Confirmation before a write and one action at a time, where the domain asks for them."""
    verdicts: list[Verdict] = []
    wanted = confirm_tools(ctx.bundle)
    if wanted:
        writes = _writes(ctx.bundle, ctx.events)
        checked = [
            (call, *_confirmation(call, wanted[call.name], ctx.events, writes, ctx.bundle.domain.tools[call.name].key))
            for call in writes
            if call.name in wanted
        ]
        failed = [c for c in checked if not c[1]]
        if failed:
            call, _, why = failed[0]
            more = f" (and {len(failed) - 1} more)" if len(failed) > 1 else ""
            verdicts.append(
                ctx.verdict(
                    "procedure.confirmation",
                    False,
                    why + more,
                    event_seq=call.seq,
                    details={"tool": call.name, "count": len(failed)},
                )
            )
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
            return ctx.verdict(
                "procedure.one_at_a_time",
                False,
                f"replied to the customer and called {following.name} in one message",
                event_seq=following.seq,
            )
    return ctx.verdict("procedure.one_at_a_time", True, "no reply and tool call in one message")
