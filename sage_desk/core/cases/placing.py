"""Placing a conversation on the SOP graph without a case: from what the conversation shows.

An imported conversation has no hidden truth and no expected path. What it shows is enough to
place it: the context rows it looked up (the order it read, the customer behind it), the rows
the tools returned (the order's real status in production), and the slots someone set (the
agent's own `tag_ticket`, an extractor, a reviewer). The system fields follow from the rows; the
paths of the graph that agree with every known value are the **candidates**. One candidate is an
expected path like a suite case's; several mean some slot is still unknown, and the rules then
score only what every candidate agrees on (rules/placed.py).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from sage_desk.core import expr
from sage_desk.core.cases.model import Bucket, Case, Expected, ExpectedAction
from sage_desk.core.domain.loader import DomainBundle
from sage_desk.core.domain.model import ToolKind
from sage_desk.core.events import CustomerMessage, Event, ToolCall
from sage_desk.core.jsonsafe import JsonObject
from sage_desk.core.sop.paths import Path, enumerate_paths

UNPLACED = ""
"""`expected.path` of a case the conversation's known values do not pin to one path."""


def known_values(bundle: DomainBundle, case: Case) -> JsonObject:
    """Every field value the case knows: its slots, and the system fields its rows decide (None: unknown)."""
    from sage_desk.core.cases.build import case_context

    values = {k: v for k, v in bundle.system_values(case_context(bundle, case)).items() if v is not None}
    return {**values, **case.truth}


def candidate_paths(bundle: DomainBundle, case: Case, paths: list[Path] | None = None) -> list[Path]:
    """The graph's paths that agree with every value the case knows."""
    values = known_values(bundle, case)
    every = paths if paths is not None else enumerate_paths(bundle.graph)
    return [p for p in every if all(p.allows(f, str(values[f])) for f in p.assignments if f in values)]


def undecided_fields(paths: list[Path], values: JsonObject) -> list[str]:
    """The fields the candidates disagree on and nobody knows: what a reviewer must set."""
    fields: dict[str, set[str]] = {}
    for path in paths:
        for name, chosen in path.assignments.items():
            fields.setdefault(name, set()).add(str(chosen))
    return sorted(f for f, seen in fields.items() if f not in values and (len(seen) > 1 or len(paths) > 1))


def expected_on(bundle: DomainBundle, case: Case, path: Path) -> Expected:
    """A path's expected actions for a case whose facts may be unknown: an argument that cannot be
    worked out (`=facts.variant_id` with no facts) is left unconstrained instead of failing."""
    from sage_desk.core.cases.build import case_context

    names = {**case_context(bundle, case), "slots": case.truth, "facts": case.facts}
    actions = []
    for action in path.actions:
        if "tool" not in action:
            actions.append(ExpectedAction(node=action["node"], say=action["say"]))
            continue
        args = {}
        for key, value in action["args"].items():
            if isinstance(value, str) and value.startswith("="):
                try:
                    args[key] = expr.evaluate(value[1:], names)
                except (expr.ExprError, KeyError, TypeError, AttributeError):
                    continue
            else:
                args[key] = value
        actions.append(ExpectedAction(node=action["node"], tool=action["tool"], args=args))
    return Expected(path=path.id, actions=actions, outcome=path.outcome or "")


TRANSCRIPT = "transcript"
"""Slot source: the customer's own words, read by the domain's `transcript_facts` patterns (evidence, not
the agent's claim)."""


def transcript_facts(bundle: DomainBundle, events: Iterable[Event]) -> dict[str, str | None]:
    """The facts a domain reads from what the customer wrote (domain.yaml `transcript_facts`): per fact,
    the earliest customer message one of its patterns matches decides (the opening request before a
    later aside), and among that message's matches the value listed first.

    With the records the conversation's reads returned (`grounding_from`) and the policy's clock
    (domain.yaml `clock`), these are an imported conversation's facts: auditing needs no world file.
    The importer keeps them as the case's `facts`, and as its slots where they name a user field of
    the graph (source `transcript`)."""
    said = [e.text for e in events if isinstance(e, CustomerMessage)]
    found: dict[str, str | None] = {}
    for fact, values in bundle.domain.transcript_facts.items():
        found[fact] = None  # declared but not heard: known to be unknown (`facts.X` reads None, not an error)
        for text in said:
            hit = next((v for v, patterns in values.items() if any(re.search(p, text, re.IGNORECASE) for p in patterns)), None)
            if hit is not None:
                found[fact] = hit
                break
    return found


def bucket_of(paths: list[Path]) -> Bucket | None:
    """Must-escalate when every candidate ends with a human, resolvable when none does, else unknown."""
    endings = {p.outcome == "escalated" for p in paths}
    if endings == {True}:
        return Bucket.MUST_ESCALATE
    if endings == {False}:
        return Bucket.RESOLVABLE
    return None


def on_path(case: Case, bundle: DomainBundle, path: Path, bucket: Bucket | None = None) -> Case:
    """The case as if `path` were its expected path."""
    chosen = bucket or (Bucket.MUST_ESCALATE if path.outcome == "escalated" else Bucket.RESOLVABLE)
    return case.model_copy(update={"expected": expected_on(bundle, case, path), "bucket": chosen})


def grounding_from(bundle: DomainBundle, events: list[Event]) -> tuple[dict[str, str], dict[str, list[JsonObject]]]:
    """The case's named rows (from the keys the agent's tools used) and the rows its reads returned.

    A read's result is what production said that record was: it becomes the conversation's own
    world row, over the seeded world's row of the same key where there is one.
    """
    domain = bundle.domain
    grounding: dict[str, str] = {}
    rows: dict[str, dict[str, JsonObject]] = {}
    calls = [e for e in events if isinstance(e, ToolCall) and e.name in domain.tools and isinstance(e.arguments, dict)]
    for call in calls:
        spec = domain.tools[call.name]
        key = call.arguments.get(spec.key) if isinstance(call.arguments, dict) else None
        if key is None:
            continue
        for name, ctx in domain.context.items():
            if ctx.via is None and ctx.table == spec.table and name not in grounding:
                grounding[name] = str(key)
        if spec.kind == ToolKind.READ and call.error is None and isinstance(call.result, dict):
            table = domain.tables.get(spec.table)
            base = bundle.world.get(spec.table, key) or {}
            row = {**base, **call.result}
            if table is not None:
                row.setdefault(table.key, str(key))
                rows.setdefault(spec.table, {})[str(row[table.key])] = row
    return grounding, {table: list(found.values()) for table, found in rows.items()}
