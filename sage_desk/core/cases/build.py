"""From a domain and a case's grounding to its ground truth: the selected path and concrete actions."""

from __future__ import annotations

from sage_desk.core import expr
from sage_desk.core.cases.model import Case, Expected, ExpectedAction
from sage_desk.core.domain.loader import DomainBundle
from sage_desk.core.domain.world import WorldView
from sage_desk.core.jsonsafe import JsonObject
from sage_desk.core.sop.paths import Path, enumerate_paths


def case_world(bundle: DomainBundle, case: Case) -> WorldView:
    """The conversation's private world: the domain's world plus the case's own rows."""
    keys = {name: table.key for name, table in bundle.domain.tables.items()}
    return bundle.world.fork(case.world_rows, keys)


def case_context(bundle: DomainBundle, case: Case) -> JsonObject:
    """The case's named rows (`order`, `customer` ...) read from its private world."""
    return bundle.context_rows(case.grounding, case_world(bundle, case))


def assignments_for(bundle: DomainBundle, case: Case) -> JsonObject:
    """Every field value known for the case: its hidden truth plus the system variables."""
    return {**bundle.system_values(case_context(bundle, case)), **case.truth}


def select_path(paths: list[Path], values: JsonObject) -> Path | None:
    """The one path whose decisions all agree with `values` (None when none or several do)."""
    matching = [
        p
        for p in paths
        if all(p.allows(f, str(values[f])) for f in p.assignments if f in values) and all(f in values for f in p.assignments)
    ]
    return matching[0] if len(matching) == 1 else None


def concrete_args(args: JsonObject, names: JsonObject) -> JsonObject:
    """Argument constraints with every `=expression` evaluated."""
    return {k: (expr.evaluate(v[1:], names) if isinstance(v, str) and v.startswith("=") else v) for k, v in args.items()}


def expected_for(bundle: DomainBundle, case: Case, path: Path) -> Expected:
    """The expected actions (with concrete arguments) and outcome of `path` for this case."""
    names = {**case_context(bundle, case), "slots": case.truth, "facts": case.facts}
    actions = []
    for action in path.actions:
        if "tool" in action:
            actions.append(ExpectedAction(node=action["node"], tool=action["tool"], args=concrete_args(action["args"], names)))
        else:
            actions.append(ExpectedAction(node=action["node"], say=action["say"]))
    return Expected(path=path.id, actions=actions, outcome=path.outcome or "")


def ground_truth(bundle: DomainBundle, case: Case, paths: list[Path] | None = None) -> Expected | None:
    """The expected part the case's truth and world select, or None when they select no single path."""
    path = select_path(paths if paths is not None else enumerate_paths(bundle.graph), assignments_for(bundle, case))
    return expected_for(bundle, case, path) if path else None
