"""Disclosure: on an informational step, did the agent tell the customer what the lookup found?

A step of the graph may declare `tell: [status, tracking_number, eta]`: fields of the records the
path reads. The values are the case world's (what the read returns), and the agent's replies
after it did that read must carry each one. Replies and values are compared in a normal form:
case, spacing and punctuation folded, ordinals dropped ("20th" is "20"), a date in any common
written form (2026-11-20, 20 November 2026, Nov 20, 11/20/2026), an amount with or without its
cents, thousands separator or currency sign. A field the record does not have (no tracking
number before shipping) is not asked for. Booleans and lists are never asked: no sentence form
is deterministic enough to check.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from sage_desk.core.cases.build import case_world
from sage_desk.core.cases.model import Case
from sage_desk.core.domain.loader import DomainBundle
from sage_desk.core.domain.tools import call_tool
from sage_desk.core.domain.world import WorldView
from sage_desk.core.events import AgentMessage, Event
from sage_desk.core.jsonsafe import Json, JsonObject
from sage_desk.core.rules.acts import Step

_DATE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})(?:[T ].*)?$")
_MONTHS = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)


@dataclass
class Disclosure:
    """One `tell:` step: the values the customer had to be told and the ones its replies lacked."""

    node: str
    asked: JsonObject
    missing: list[str]
    unread: bool
    """The agent never did the read the values come from."""

    @property
    def passed(self) -> bool:
        return not self.missing


_UNITS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen"
).split()
_TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()
_TENS_RE, _DIGIT_RE, _UNITS_RE = "|".join(_TENS), "|".join(_UNITS[1:10]), "|".join(_UNITS)
_NUMBER_WORD = re.compile(rf"\b(?:({_TENS_RE})(?:[ -]({_DIGIT_RE}))?|({_UNITS_RE}))\b")
_MONTHS_RE = "|".join([*_MONTHS, *(m[:3] for m in _MONTHS)])
_DAY_OF_MONTH = re.compile(rf"\b(\d{{1,2}}) of ({_MONTHS_RE})\b")


def _number_words(text: str) -> str:
    """Whole numbers written in words up to 99 as digits ("eleven hours" tells 11, "twenty-four" 24)."""

    def digits(m: re.Match[str]) -> str:
        if m[3]:
            return str(_UNITS.index(m[3]))
        return str(10 * (_TENS.index(m[1]) + 2) + (_UNITS.index(m[2]) if m[2] else 0))

    return _NUMBER_WORD.sub(digits, text)


def fold(text: str) -> str:
    """Text in the normal form values are sought in: lower case, ordinals dropped, punctuation and spacing folded."""
    text = re.sub(r"(\d)(st|nd|rd|th)\b", r"\1", _number_words(text.lower()))
    text = re.sub(r"(\d)t(\d)", r"\1 \2", text)  # 2026-11-16T19:34: the date apart from its time
    text = _DAY_OF_MONTH.sub(r"\1 \2", text)  # "the 14th of November" is "14 november"
    return " " + re.sub(r"[^a-z0-9]+", " ", text).strip() + " "


def forms(value: Json) -> list[str]:
    """The written forms of one value, each folded (see the module doc); empty when it cannot be checked."""
    if isinstance(value, bool) or value is None or isinstance(value, list | dict):
        return []
    if isinstance(value, int | float):
        return _number_forms(float(value))
    text = str(value)
    found = _DATE.match(text)
    if found:
        return _date_forms(date(int(found[1]), int(found[2]), int(found[3])))
    return [fold(text).strip()] if fold(text).strip() else []


def _number_forms(value: float) -> list[str]:
    whole = int(value)
    if value == whole:
        out = [f"{whole}", f"{whole:,}", f"{value:.2f}", f"{value:,.2f}"]
    else:
        out = [f"{value:.2f}", f"{value:,.2f}", f"{value:g}"]
    return sorted({fold(o).strip() for o in out})


def _date_forms(day: date) -> list[str]:
    month = _MONTHS[day.month - 1]
    out = [
        day.isoformat(),
        f"{day.day} {month} {day.year}",
        f"{month} {day.day} {day.year}",
        f"{day.day} {month}",
        f"{month} {day.day}",
        f"{day.day} {month[:3]}",
        f"{month[:3]} {day.day}",
        f"{day.month}/{day.day}/{day.year}",
        f"{day.day}/{day.month}/{day.year}",
    ]
    return sorted({fold(o).strip() for o in out})


def carries(text: str, value: Json) -> bool:
    """Whether folded `text` carries one of the value's forms as whole words.

    An identifier (one word of six or more characters with a digit: a tracking number, a
    reference) may also be written in groups ("1Z 980 131 1902"): it is then sought with the
    reply's spaces taken out."""
    found = forms(value)
    if any(f" {form} " in text for form in found):
        return True
    packed = text.replace(" ", "")
    return any(len(f) >= 6 and " " not in f and any(c.isdigit() for c in f) and f in packed for f in found)


def _record(bundle: DomainBundle, world: WorldView, step: Step) -> JsonObject:
    found = call_tool(bundle.domain, world, step.tool, dict(step.args))
    return found.result if found.error is None and isinstance(found.result, dict) else {}


def disclosures(case: Case, bundle: DomainBundle, events: Sequence[Event], steps: Sequence[Step]) -> list[Disclosure]:
    """One `Disclosure` per `tell:` step of the expected path (none when the path declares none)."""
    telling = [
        (a.node, graph_node.tell)
        for a in case.expected.actions
        if (graph_node := bundle.graph.node(a.node)) is not None and graph_node.tell
    ]
    if not telling:
        return []
    reads = [s for s in steps if not s.write and not s.is_handover]
    world = case_world(bundle, case)
    records = [(s, _record(bundle, world, s)) for s in reads]
    messages = [e for e in events if isinstance(e, AgentMessage)]
    out = []
    for node, fields in telling:
        asked: JsonObject = {}
        missing: list[str] = []
        unread = False
        for name in fields:
            source = next(((s, r) for s, r in records if forms(r.get(name))), None)
            if source is None:
                continue  # the record has no such value here: nothing to tell
            step, record = source
            asked[name] = record[name]
            after = step.done.seq if step.done is not None else None
            unread = unread or after is None
            said = fold(" ".join(m.text for m in messages if after is not None and m.seq > after))
            if not carries(said, record[name]):
                missing.append(name)
        out.append(Disclosure(node, asked, missing, unread))
    return out
