"""The route a conversation took through the SOP graph, beside the route its case expected.

The rule engine judges actions, not routes: it reads the agent's acts against the expected path's
required steps (`rules/acts.py`). To draw the agent's route on the graph we pick, among every
start-to-end path, the one its actions and ending fit best:

1. the most observed actions matched in order (longest common subsequence of tool names),
2. then an end node with the outcome the conversation had (`escalated`, `resolved` ...),
3. then the fewest actions left unexplained on either side,
4. then the longest run of nodes shared with the expected path (so a tie keeps the expected one).

The route is drawn from the calls: a tool node on it whose tool was never called is `not_called`
(passed by, not gone through). The first divergence is the first node of that route off the expected route; the node before it
(usually a decision) is where the agent turned. When the routes agree but the rules found a
missing or out-of-order step, that step's node is the first problem instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from sage_desk.core.cases.model import Case
from sage_desk.core.domain.loader import DomainBundle
from sage_desk.core.events import Event, ToolCall
from sage_desk.core.rules.engine import RuleContext
from sage_desk.core.sop.paths import Path


@dataclass
class PathTrace:
    """The expected and the taken route of one conversation, and where they part."""

    expected: list[str]
    taken: list[str]
    expected_id: str | None = None
    taken_id: str | None = None
    divergence: str | None = None
    """The first node of the taken route that is not on the expected route at that step."""
    turned_at: str | None = None
    """The last node both routes share before they part (usually a decision)."""
    first_problem: str | None = None
    """On a followed route: the first expected step not done (or done out of order)."""
    off_route: list[ToolCall] = field(default_factory=list)
    """Actions the taken route does not explain."""
    action_nodes: dict[int, str] = field(default_factory=dict)
    """Event seq of each explained action -> the node it stands for."""
    not_called: list[str] = field(default_factory=list)
    """Tool nodes of the taken route whose tool the agent never called there: the route passes them by,
    it does not go through them (drawn apart, named in the account)."""
    ending: str = "open"

    @property
    def followed(self) -> bool:
        """Whether the agent stayed on the expected route, every step done and nothing else."""
        return self.divergence is None and self.first_problem is None and not self.off_route


def _lcs(a: Sequence[str], b: Sequence[str]) -> int:
    row = [0] * (len(b) + 1)
    for x in a:
        prev = 0
        for j, y in enumerate(b, start=1):
            prev, row[j] = row[j], prev + 1 if x == y else max(row[j], row[j - 1])
    return row[-1]


def _tools(path: Path) -> list[str]:
    return [a["tool"] for a in path.actions if a.get("tool")]


def _shared_prefix(a: Sequence[str], b: Sequence[str]) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def _explain(path: Path, actions: Sequence[ToolCall]) -> tuple[dict[int, str], list[ToolCall]]:
    """Match actions in order to the path's tool nodes: seq -> node, and the actions left over."""
    steps = [(a["node"], a["tool"]) for a in path.actions if a.get("tool")]
    matched: dict[int, str] = {}
    left: list[ToolCall] = []
    cursor = 0
    for call in actions:
        hit = next((i for i in range(cursor, len(steps)) if steps[i][1] == call.name), None)
        if hit is None:
            left.append(call)
        else:
            matched[call.seq] = steps[hit][0]
            cursor = hit + 1
    return matched, left


def trace_conversation(case: Case, bundle: DomainBundle, events: Sequence[Event]) -> PathTrace:
    """The route the conversation's actions fit best, the expected route, and where they part."""
    ctx = RuleContext(case, bundle, list(events))
    paths = list(bundle.paths_by_id().values())
    expected: Path | None = ctx.path
    expected_nodes = expected.nodes if expected else []
    observed = [c.name for c in ctx.actions]
    ending, _ = ctx.ending()

    def fit(path: Path) -> tuple[int, bool, int, int]:
        tools = _tools(path)
        common = _lcs(tools, observed)
        return (
            common,
            path.outcome == ending,
            -(len(tools) + len(observed) - 2 * common),
            _shared_prefix(path.nodes, expected_nodes),
        )

    taken = max(paths, key=fit) if paths else None
    trace = PathTrace(
        expected=list(expected_nodes),
        taken=list(taken.nodes) if taken else [],
        expected_id=expected.id if expected else None,
        taken_id=taken.id if taken else None,
        ending=ending,
    )
    if taken is not None:
        trace.action_nodes, trace.off_route = _explain(taken, ctx.actions)
        done = set(trace.action_nodes.values())
        trace.not_called = [a["node"] for a in taken.actions if a.get("tool") and a["node"] not in done]
    if expected is not None and taken is not None:
        shared = _shared_prefix(taken.nodes, expected.nodes)
        if shared < max(len(taken.nodes), len(expected.nodes)):
            trace.divergence = taken.nodes[shared] if shared < len(taken.nodes) else None
            trace.turned_at = taken.nodes[shared - 1] if shared else None
        else:
            trace.first_problem = next((step.node for step in ctx.reading.steps if step.in_order is None), None)
    return trace


def describe_trace(trace: PathTrace, label: dict[str, str] | None = None) -> str:
    """One or two sentences a reviewer reads under the graph."""
    name = (label or {}).get
    if not trace.expected:
        return (
            "No single expected path: an imported conversation whose slots are not all known yet "
            "(set them to place it), or a graph edited after the run."
        )
    if trace.divergence is not None:
        at = name(trace.turned_at or "", trace.turned_at or "the start")
        shared = trace.taken.index(trace.divergence)
        instead = trace.expected[shared] if shared < len(trace.expected) else None
        text = f"Left the expected route after “{at}”: went to “{name(trace.divergence, trace.divergence)}”"
        text += f" instead of “{name(instead, instead)}”." if instead else "."
    elif trace.first_problem is not None:
        text = f"On the expected route, but step “{name(trace.first_problem, trace.first_problem)}” was not done as expected."
    else:
        text = "Followed the expected route."
    if trace.not_called:
        text += " Not called: " + ", ".join(f"“{name(n, n)}”" for n in trace.not_called) + "."
    if trace.off_route:
        calls = ", ".join(c.name for c in trace.off_route)
        text += f" Off the graph: {calls}."
    return text
