"""What a model answers when it drafts a graph from prose, and how drafts become one `Graph`.

`DraftGraph` is the structured-output schema: fields, nodes (each with the `source` sentence it
came from) and edges. `to_graph` turns it into the graph model; `fragment_problems` checks a
section's draft on its own (every reference resolves, every node is well-formed); `merge` joins
section drafts into one graph.

The merge rule, applied section by section in document order:
- A node id already drafted names the same node: the first definition is kept and later ones only
  fill what it left empty (label, source ...). If the later one is of another kind, it is a
  different node and is renamed `id_2` (a warning says so).
- Fields with the same name are one field: values are united in order.
- Only the first section's `start` counts; a later section's start is dropped and the nodes it
  led to become that section's entry points.
- Edges are united; exact duplicates are dropped.
- A section whose entry points (nodes nothing leads to yet) are still unconnected is joined to
  the previous sections: every step left open before it (an action or start with no next step)
  leads to its first entry point. So a procedure written as consecutive steps chains up, and a
  section the model already attached (a branch of an earlier decision) is left as it is.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic_core import ErrorDetails

from sage_desk.core.jsonsafe import JsonObject
from sage_desk.core.sop.model import OUTCOMES, Edge, FieldSource, FieldSpec, Graph, Node, NodeKind


class _Draft(BaseModel):
    model_config = ConfigDict(extra="ignore", populate_by_name=True)


class DraftField(_Draft):
    """A field decisions branch on."""

    name: str = Field(description="CamelCase name, e.g. CoreDemand or OrderStage; a domain system variable's exact name")
    source: Literal["user", "system"] = Field(description="user: learned from the customer; system: read from the records")
    values: list[str] = Field(min_length=1, description="Every value the field can take, snake_case")
    description: str = ""


class DraftNode(_Draft):
    """One node of the draft."""

    id: str = Field(description="Unique snake_case id")
    kind: Literal["start", "decision", "action", "end"]
    label: str = Field("", description="A short label (3-7 words)")
    field: str | None = Field(None, description="decision only: the field it branches on")
    tool: str | None = Field(None, description="action only: the domain tool to call (exact name); null for a say step")
    args: dict[str, str | int | float | bool] = Field(
        default_factory=dict, description="tool action only: argument constraints, literal or '=expression'"
    )
    say: str | None = Field(None, description="action only: what the agent must say, when no tool is called")
    outcome: str | None = Field(None, description="end only: resolved, refused, escalated or info_requested")
    source: str = Field("", description="The sentence of the SOP text this node comes from, copied verbatim")


class DraftEdge(_Draft):
    """A directed edge; `when` lists the decision values it stands for."""

    source: str = Field(alias="from")
    target: str = Field(alias="to")
    when: list[str] = Field(default_factory=list, description="Edges leaving a decision: the field value(s); else []")


class DraftGraph(_Draft):
    """A whole draft (or one section's part of it)."""

    fields: list[DraftField] = Field(default_factory=list)
    nodes: list[DraftNode] = Field(default_factory=list)
    edges: list[DraftEdge] = Field(default_factory=list)


def draft_schema() -> JsonObject:
    """The JSON schema a model's answer must follow (for `response_format`)."""
    return DraftGraph.model_json_schema(by_alias=True)


def parse_draft(raw: str | None) -> tuple[DraftGraph | None, list[str]]:
    """The draft in a model's reply, or the reasons it could not be read (for the repair request)."""
    import json

    text = (raw or "").strip()
    start, end = text.find("{"), text.rfind("}")
    if start < 0:
        return None, ["the answer holds no JSON object"]
    try:
        data = json.loads(text[start : end + 1] if end > start else text[start:])
    except json.JSONDecodeError as exc:
        return None, [f"the answer is not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"]
    try:
        return DraftGraph.model_validate(data), []
    except ValidationError as exc:
        return None, [_schema_problem(err) for err in exc.errors()[:20]]


def _schema_problem(err: ErrorDetails) -> str:
    where = ".".join(str(p) for p in err["loc"]) or "the answer"
    return f"{where}: {err['msg']}"


def slug(value: str) -> str:
    """A node id without spaces (models sometimes write 'Check stage')."""
    return "_".join(value.strip().split()) or "node"


_KEEP = {
    NodeKind.START: (),
    NodeKind.DECISION: ("field",),
    NodeKind.ACTION: ("tool", "args", "say"),
    NodeKind.END: ("outcome",),
}


def to_graph(draft: DraftGraph, name: str, title: str = "") -> Graph:
    """The draft as a graph: ids without spaces, only the attributes that apply to each kind."""
    fields: dict[str, FieldSpec] = {}
    for spec in draft.fields:
        old = fields.get(spec.name)
        values = list(dict.fromkeys([*(old.values if old else []), *(v.strip() for v in spec.values if v.strip())]))
        fields[spec.name] = FieldSpec(
            source=FieldSource(spec.source),
            values=values,
            description=old.description if old and old.description else spec.description,
        )
    nodes = [_node(n) for n in draft.nodes]
    edges = [Edge(source=slug(e.source), target=slug(e.target), when=_when(e.when)) for e in draft.edges]
    return Graph(name=name, title=title, fields=fields, nodes=nodes, edges=edges)


def _node(draft: DraftNode) -> Node:
    kind = NodeKind(draft.kind)
    attrs: JsonObject = {"id": slug(draft.id), "kind": kind, "label": draft.label.strip(), "cite": draft.source.strip()}
    for key in _KEEP[kind]:
        value = getattr(draft, key)
        attrs[key] = value.strip() if isinstance(value, str) else value
    if kind == NodeKind.ACTION and attrs.get("tool") and attrs.get("say"):
        attrs["say"] = None  # a tool call wins; its explanation lives in the label
    if kind == NodeKind.ACTION and not attrs.get("tool"):
        attrs["args"] = {}
    return Node(**{k: v for k, v in attrs.items() if v not in (None, "")})


def _when(values: list[str]) -> str | list[str] | None:
    cleaned = [v.strip() for v in values if v.strip()]
    if not cleaned:
        return None
    return cleaned[0] if len(cleaned) == 1 else cleaned


def fragment_problems(base: Graph, fragment: Graph, *, first: bool) -> list[str]:
    """What is wrong with one section's draft on its own, given the graph drafted before it."""
    problems: list[str] = []
    known = {n.id: n for n in base.nodes}
    fields = {**base.fields, **fragment.fields}
    seen: set[str] = set()
    for node in fragment.nodes:
        if node.id in seen:
            problems.append(f"node {node.id!r}: two nodes of this section use the id {node.id!r}")
        seen.add(node.id)
        problems += _node_problems(node, fields)
        known.setdefault(node.id, node)
    if first and not any(n.kind == NodeKind.START for n in fragment.nodes):
        problems.append("the first section must have the start node (kind 'start')")
    for edge in fragment.edges:
        problems += _edge_problems(edge, known, fields)
    return problems


def _node_problems(node: Node, fields: dict[str, FieldSpec]) -> list[str]:
    where = f"node {node.id!r}"
    problems = []
    if node.kind == NodeKind.DECISION and not node.field:
        problems.append(f"{where}: a decision needs the 'field' it branches on")
    elif node.kind == NodeKind.DECISION and node.field not in fields:
        problems.append(f"{where}: field {node.field!r} is not declared in 'fields' (declared: {', '.join(fields) or 'none'})")
    if node.kind == NodeKind.ACTION and not (node.tool or node.say):
        problems.append(f"{where}: an action needs a 'tool' to call or a 'say' step")
    if node.kind == NodeKind.END and node.outcome not in OUTCOMES:
        problems.append(f"{where}: an end needs an 'outcome', one of {', '.join(OUTCOMES)}")
    if not node.cite:
        problems.append(f"{where}: 'source' is empty; copy the sentence of the SOP this node comes from")
    return problems


def _edge_problems(edge: Edge, known: dict[str, Node], fields: dict[str, FieldSpec]) -> list[str]:
    where = f"edge {edge.source!r} -> {edge.target!r}"
    missing = [end for end in (edge.source, edge.target) if end not in known]
    if missing:
        return [f"{where}: unknown node {m!r} (use an id of this section or one listed as drafted before)" for m in missing]
    source = known[edge.source]
    if source.kind != NodeKind.DECISION:
        return [f"{where}: only edges leaving a decision carry 'when'"] if edge.when is not None else []
    if not edge.values:
        return [f"{where}: an edge leaving a decision needs 'when' (a value of {source.field!r})"]
    spec = fields.get(source.field or "")
    bad = [v for v in edge.values if spec is not None and v not in spec.values]
    if bad and spec is not None:
        return [f"{where}: {bad[0]!r} is not a value of {source.field!r} ({', '.join(spec.values)})"]
    return []


def merge(base: Graph, fragment: Graph) -> tuple[Graph, list[str]]:
    """`fragment` (the next section's draft) joined to `base` by the rule in the module docstring."""
    warnings: list[str] = []
    fields = dict(base.fields)
    for name, spec in fragment.fields.items():
        fields[name] = _merge_field(fields.get(name), spec, name, warnings)
    nodes = list(base.nodes)
    index = {n.id: i for i, n in enumerate(nodes)}
    renames: dict[str, str] = {}
    added: list[str] = []
    dropped_start: str | None = None
    has_start = any(n.kind == NodeKind.START for n in nodes)
    for node in fragment.nodes:
        if node.kind == NodeKind.START and has_start:
            dropped_start = node.id
            continue
        if node.id in index:
            old = nodes[index[node.id]]
            if old.kind == node.kind:
                nodes[index[node.id]] = _fill(old, node)
                continue
            new_id = _unique(node.id, index)
            warnings.append(f"two nodes named {node.id!r} ({old.kind.value} and {node.kind.value}): the second is now {new_id!r}")
            renames[node.id] = new_id
            node = node.model_copy(update={"id": new_id})
        index[node.id] = len(nodes)
        nodes.append(node)
        added.append(node.id)
    edges, entries = _merge_edges(base, fragment, renames, dropped_start)
    merged = base.model_copy(update={"fields": fields, "nodes": nodes, "edges": edges})
    return _connect(merged, base, entries + added), warnings


def _merge_field(old: FieldSpec | None, new: FieldSpec, name: str, warnings: list[str]) -> FieldSpec:
    if old is None:
        return new
    if old.source != new.source:
        warnings.append(
            f"field {name!r} was drafted as a {old.source.value} field and then as a {new.source.value} one; kept {old.source.value}"
        )
    values = list(dict.fromkeys([*old.values, *new.values]))
    return FieldSpec(source=old.source, values=values, description=old.description or new.description)


def _fill(old: Node, new: Node) -> Node:
    update = {
        key: getattr(new, key)
        for key in ("label", "field", "tool", "args", "say", "outcome", "cite")
        if not getattr(old, key) and getattr(new, key)
    }
    return old.model_copy(update=update) if update else old


def _unique(base: str, taken: dict[str, int]) -> str:
    n = 2
    while f"{base}_{n}" in taken:
        n += 1
    return f"{base}_{n}"


def _merge_edges(
    base: Graph, fragment: Graph, renames: dict[str, str], dropped_start: str | None
) -> tuple[list[Edge], list[str]]:
    edges = list(base.edges)
    keys = {(e.source, e.target, tuple(e.values)) for e in edges}
    entries: list[str] = []
    for edge in fragment.edges:
        source, target = renames.get(edge.source, edge.source), renames.get(edge.target, edge.target)
        if edge.source == dropped_start:
            entries.append(target)
            continue
        key = (source, target, tuple(edge.values))
        if key not in keys:
            keys.add(key)
            edges.append(Edge(source=source, target=target, when=edge.when))
    return edges, entries


def _connect(graph: Graph, base: Graph, candidates: list[str]) -> Graph:
    """Lead every step left open in `base` to the section's first entry point nobody leads to yet."""
    targets = {e.target for e in graph.edges}
    # an end nobody leads to is left for validation to report: chaining steps into it is rarely right
    entry = next(
        (
            c
            for c in candidates
            if c not in targets and (node := graph.node(c)) is not None and node.kind in (NodeKind.DECISION, NodeKind.ACTION)
        ),
        None,
    )
    if entry is None:
        return graph
    sources = {e.source for e in graph.edges}
    open_steps = [n.id for n in base.nodes if n.kind in (NodeKind.START, NodeKind.ACTION) and n.id not in sources]
    if not open_steps:
        return graph
    return graph.model_copy(update={"edges": [*graph.edges, *(Edge(source=s, target=entry) for s in open_steps)]})


def from_graph(graph: Graph) -> DraftGraph:
    """A graph in the draft's own shape (to show the model the merged draft it must repair)."""
    return DraftGraph(
        fields=[
            DraftField(name=n, source=s.source.value, values=s.values, description=s.description) for n, s in graph.fields.items()
        ],
        nodes=[
            DraftNode(
                id=n.id,
                kind=n.kind.value,
                label=n.label,
                field=n.field,
                tool=n.tool,
                args=n.args,
                say=n.say,
                outcome=n.outcome,
                source=n.cite,
            )
            for n in graph.nodes
        ],
        edges=[DraftEdge(source=e.source, target=e.target, when=e.values) for e in graph.edges],
    )


def missing_sources(graph: Graph) -> list[str]:
    """A problem for every node that does not say which sentence it came from."""
    return [
        f"node {n.id!r}: 'source' is empty; copy the sentence of the SOP this node comes from" for n in graph.nodes if not n.cite
    ]
