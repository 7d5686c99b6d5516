"""What `baseline:imperfect` says: varied, polite replies built from the case and its tool results.

The agent is wrong some of the time but always courteous (SAGE's Empathy Resilience: tone holds
up while compliance falls), so every reply greets the customer by name, apologises where the
customer is upset, states what the tools returned and what was done, and turns the SOP's `say:`
steps into speech. Every choice of words is drawn from the conversation's own seeded generator.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence

from sage_desk.core.events import Event, ToolCall
from sage_desk.core.jsonsafe import Json

GREETINGS = ("Hi {name},", "Hello {name},", "Dear {name},", "Good day {name},")
UPSET_OPENERS = (
    "I'm really sorry about the trouble this has caused.",
    "I understand how frustrating this is, and I'm sorry you've had to chase it.",
    "I'm sorry for the hassle, and thank you for your patience.",
    "I completely understand your frustration; let me help.",
)
CALM_OPENERS = (
    "Thanks for getting in touch.",
    "Thank you for reaching out, I'm happy to help.",
    "Thanks for your message.",
    "I appreciate you letting us know.",
)
ANYTHING_ELSE = (
    "Is there anything else I can help you with?",
    "Is there anything else you need from me today?",
    "Can I help with anything else?",
)
HANDOVERS = (
    "This needs one of my colleagues, so I'm passing your ticket to the {team} team now; they'll be in touch shortly.",
    "I'm handing this over to a specialist colleague at {team} who can take it from here; you'll hear from them soon.",
    "I've passed your ticket to a senior colleague at {team}, who will reply to you directly.",
)
SIGN_OFFS = ("Kind regards,\n{team} support", "Best wishes,\n{team} support", "Warm regards,\nThe {team} team")
RESOLVED_ENDS = (
    "Thank you, {name}. I'm glad that's sorted. I'll close the ticket now; just reply if anything else comes up.",
    "You're welcome, {name}! I'm closing this ticket now, but do reply any time if you need us.",
    "Happy to help, {name}. I'll mark this as resolved; thanks again for your patience.",
)
REFUSED_ENDS = (
    "I understand this isn't the answer you were hoping for, {name}, and I'm sorry. I'm closing the ticket for now, "
    "but you're welcome to reply if anything changes.",
    "I'm sorry I can't do more here, {name}. The policy is the same for every customer; I'll close this ticket now.",
    "Thank you for understanding, {name}. I'm closing this ticket, and I'm sorry again for the disappointment.",
)
WAITING_ENDS = (
    "No problem at all, {name}. Whenever you're ready, just reply to this email with what I asked for and we'll pick it "
    "up straight away. I'll mark the ticket as waiting for your reply.",
    "Of course, {name}. Send it over whenever you can by replying here, and we'll take it from there.",
)
BELIEVED_THANKS = (
    "You're very welcome, {name}! Glad we could get that sorted. I'll close the ticket now.",
    "My pleasure, {name}! I'll mark this as resolved; have a lovely day.",
)
GAVE_IN = (
    "I'm sorry for all the trouble, {name}. I've gone ahead and {done}. Thank you for your patience.",
    "I understand, {name}, and I don't want you to be out of pocket. I've {done}. Sorry again.",
)
NOTED_ENDS = (
    "Thank you for your patience, {name}. I've noted everything on your ticket and I'm closing it now; please reply if "
    "you need anything else.",
    "Thanks, {name}. I've recorded the details and closed the ticket; we're sorry for the trouble.",
)
NOTED_WAITING = ("Thanks, {name}. If you can send us any further details or photos, reply to this email and we'll follow up.",)

PAST = {
    "send": "sent",
    "reship": "reshipped",
    "edit": "updated",
    "cancel": "cancelled",
    "open": "opened",
    "block": "blocked",
    "order": "ordered",
    "issue": "issued",
    "refund": "refunded",
    "change": "changed",
    "add": "added",
    "file": "filed",
    "reschedule": "rescheduled",
    "schedule": "scheduled",
    "pay": "paid",
    "dispatch": "dispatched",
    "waive": "waived",
    "confirm": "confirmed",
    "log": "logged",
}
"""Past tense of the first word of a write tool's name: `reship_order` -> "reshipped the order"."""

_SHOWN = (
    "status",
    "flight_status",
    "lease_status",
    "carrier",
    "tracking_number",
    "shipped_at",
    "delivered_at",
    "departure",
    "last_scan_location",
    "days_since_last_scan",
    "plan",
    "months_remaining",
    "balance_overdue",
    "late_fee_balance",
    "days_since_posted",
    "merchant",
    "amount",
)
"""Row columns worth telling a customer, in the order they are told (at most three per row)."""


def pick(rng: random.Random, options: Sequence[str], **names: str) -> str:
    """One of `options`, filled in."""
    return rng.choice(options).format(**names)


def first_name(full: str) -> str:
    return full.split()[0] if full.strip() else "there"


def team_name(title: str, fallback: str) -> str:
    """`Northline (premium travel goods)` -> `Northline`."""
    return (title.split(" (")[0].strip() or fallback.capitalize()) if title else fallback.capitalize()


def did(tool: str, key: str) -> str:
    """`reship_order`, NL-1 -> "reshipped the order for NL-1"."""
    verb, _, rest = tool.partition("_")
    thing = rest.replace("_", " ") or "request"
    return f"{PAST.get(verb, verb + 'ed')} the {thing} for {key}"


def tried(tool: str, key: str) -> str:
    verb, _, rest = tool.partition("_")
    return f"I tried to {verb} the {rest.replace('_', ' ') or 'request'} for {key}, but our system would not allow it."


def _humane(value: Json) -> str:
    text = str(value)
    return text.replace("_", " ") if re.fullmatch(r"[a-z0-9_]+", text) else text


def findings(calls: Sequence[ToolCall], tables: dict[str, str], keys: dict[str, str]) -> list[str]:
    """One sentence per read that found its row: what was looked up and up to three telling columns."""
    said = []
    for call in calls:
        if call.kind != "read" or call.error or not isinstance(call.result, dict):
            continue
        table = tables.get(call.name, "record")
        noun = table[:-3] + "y" if table.endswith("ies") else table.rstrip("s")
        key = call.result.get(keys.get(call.name, ""), "")
        shown = [
            f"{col.replace('_', ' ')} {_humane(call.result[col])}"
            for col in _SHOWN
            if col in call.result and isinstance(call.result[col], str | int | float) and call.result[col] != ""
        ][:3]
        said.append(f"I've looked up {noun} {key}" + (f": {', '.join(shown)}." if shown else "."))
    return said


_SAY_RULES = (
    (re.compile(r"^apologi[sz]e (?:for (?P<what>[^,]+?) )?and explain(?: that)? ", re.I), "I'm sorry{what}. "),
    (re.compile(r"^explain from the scans that ", re.I), "From the scans, "),
    (re.compile(r"^explain why ", re.I), "Here is why "),
    (re.compile(r"^explain(?: that)? ", re.I), ""),
    (re.compile(r"^ask the customer for ", re.I), "Could you please send me "),
    (re.compile(r"^ask the customer to ", re.I), "Could you please "),
    (re.compile(r"^ask for ", re.I), "Could you please send me "),
    (re.compile(r"^confirm ", re.I), "I can confirm "),
    (re.compile(r"^share ", re.I), "Here is "),
    (re.compile(r"^state ", re.I), "To be clear about "),
    (re.compile(r"^walk the customer through ", re.I), "Let me walk you through "),
    (re.compile(r"^tell the (?:customer|tenant) to ", re.I), "Please "),
)
_CLAUSES = (
    (r",? apologise, and share ", ". I'm sorry about it, and here is "),
    (r",? and (?:give|share) ", ", and here is "),
    (r",? and offer ", ", and I can offer "),
    (r",? and suggest ", ", and I'd suggest "),
    (r",? and ask whether ", ". Could you tell me whether "),
    (r",? and ask for ", ". Could you please send me "),
    (r",? and how to ", ", and here is how to "),
    (r",? and when\b", ", and here is when"),
    (r",? and (?:explain that|explain|that) ", ", and "),
    (r", not to ", ", do not "),
    (r", and to ", ", and "),
)
_PRONOUNS = (
    (r"\bthe customer's\b", "your"),
    (r"\bthe customer\b", "you"),
    (r"\bthe tenant\b", "you"),
    (r"\btheir\b", "your"),
    (r"\bthey\b", "you"),
    (r"\byou (want|decide)s\b", r"you \1"),
    (r"\byou verifies\b", "you verify"),
)


def spoken(say: str) -> str:
    """A `say:` step of the graph ("Explain that X") as something an agent would write ("X.")."""
    text = say.strip().rstrip(".")
    for pattern, lead in _SAY_RULES:
        match = pattern.match(text)
        if match:
            what = match.groupdict().get("what")
            text = lead.format(what=f" for {what}" if what else "") + text[match.end() :]
            break
    for clause, repl in _CLAUSES:
        text = re.sub(clause, repl, text)
    for word, repl in _PRONOUNS:
        text = re.sub(word, repl, text)
    question = "Could you" in text
    text = text[0].upper() + text[1:] if text else text
    return text + ("?" if question else ".")


def turn_calls(events: Sequence[Event]) -> list[ToolCall]:
    """The tool calls since the customer's last message."""
    calls: list[ToolCall] = []
    for event in reversed(events):
        if event.type == "customer_message":
            break
        if isinstance(event, ToolCall):
            calls.append(event)
    return calls[::-1]
