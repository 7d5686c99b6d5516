"""Draft a Dynamic Dialogue Graph from a prose SOP with a model.

`draft_graph(text, domain, options)` asks the model, through `LlmClient`, for a `DraftGraph` as
structured output (a JSON schema in `response_format`, and in the prompt for models that ignore
it). Every answer is checked: the schema, then the graph's own rules (`validate_graph`, minus the
domain's tool list: a step the domain has no tool for is flagged, not refused). An answer with
problems is sent back with the problems listed, up to `max_attempts` requests in all; after that
`DraftError` lists what was still wrong, and nothing is returned to be saved.

A long document is drafted section by section (`source.split_sections`), each request showing
the nodes drafted so far so shared steps keep one id, and the parts are merged by the rule in
`draft.py`; the merged graph is then checked as a whole and, if need be, repaired the same way.

The result is laid out, every node's `cite` holds the document's own sentence it came from, and
`provenance` maps node ids to where that sentence is in the text.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from sage_desk.core.errors import Problem, SageError
from sage_desk.core.jsonsafe import JsonObject
from sage_desk.core.sop.document import DomainNames
from sage_desk.core.sop.draft import (
    DraftGraph,
    draft_schema,
    fragment_problems,
    from_graph,
    merge,
    missing_sources,
    parse_draft,
    to_graph,
)
from sage_desk.core.sop.layout import apply_layout
from sage_desk.core.sop.model import Graph, NodeKind
from sage_desk.core.sop.source import DEFAULT_SECTION_CHARS, Section, Span, locate, split_sections
from sage_desk.core.sop.validate import validate_graph

if TYPE_CHECKING:
    from sage_desk.core.llm import LlmClient

DEFAULT_ATTEMPTS = 3

DRAFT_SYSTEM = """You turn a customer-support Standard Operating Procedure (SOP), written as prose, into a \
Dynamic Dialogue Graph that an evaluation tool walks path by path.

Node kinds:
- start: exactly one, the customer writing in. Only the first part of the SOP has it.
- decision: branches on ONE field. Every value of that field must be on exactly one edge leaving it.
- action: one step the agent must take: either `tool` (the exact name of one of the domain's tools) \
or `say` (what the agent must tell or ask the customer, as one instruction).
- end: a terminal outcome: resolved, refused (policy does not allow what was asked), escalated \
(handed over to a human), info_requested (waiting for the customer).

Rules:
- start and action nodes have exactly one outgoing edge; end nodes have none; no cycles.
- Edges leaving a decision carry `when`: the field value(s) they stand for. Other edges have `when: []`.
- An if/then rule is a decision; a table of conditions is a decision per condition column, its \
rows giving the values and the step each leads to.
- Fields are user fields (learned from the customer: what they want, evidence they sent, their \
situation) or system fields (read from the records: use the domain's system variables with their \
exact names and the values their expressions produce). Values are short snake_case words.
- Do not make action nodes for tag_ticket, close_ticket or handover_to_human: an end node stands \
for closing the ticket, and an `escalated` end stands for the handover.
- Use a domain tool's exact name when one does the step. If a step needs a tool the domain does \
not have, still write a snake_case tool name for it: it will be flagged for the author.
- Tool arguments are optional constraints: a literal, or "=expression" over {context} (e.g. \
"=order.order_id").
- `source`: copy, word for word, the sentence of the SOP the node comes from (for start: the \
sentence that says who writes in or the first rule; for an end: the sentence giving that outcome).
- Ids are unique snake_case; labels are 3-7 words.

Answer with one JSON object that follows this JSON schema, and nothing else:
{schema}
"""

DRAFT_USER = """=== DOMAIN: {title} ===
{domain}

{earlier}=== SOP TEXT{part} ===
{text}
"""

EARLIER = """=== ALREADY DRAFTED FROM EARLIER PARTS ===
{summary}
Reuse these ids for the same steps (shared end nodes, decisions continued here). You may add edges \
leaving these nodes, e.g. the branch of an earlier decision that this part describes (then list \
the field again with the new value). Do not add another start node.

"""

REPAIR = """Your draft has these problems:
{problems}
Fix every one and answer with the whole corrected draft (all of its fields, nodes and edges, not only \
the changes) as one JSON object."""

FINAL_REPAIR = """The parts of the SOP were drafted one by one and merged into the graph below. The \
merged graph has these problems:
{problems}
Fix every one and answer with the whole corrected graph (all fields, nodes and edges) as one JSON object.

=== MERGED GRAPH ===
{draft}
"""


class DraftError(SageError):
    """The model's drafts kept failing validation; `problems` are those of its last answer."""

    def __init__(self, what: str, problems: list[str], attempts: int, raw: str | None = None):
        self.problems = problems
        self.attempts = attempts
        self.raw = raw
        listed = "\n".join(f"  - {p}" for p in problems)
        super().__init__(f"{what}: the model's draft still had {len(problems)} problem(s) after {attempts} attempt(s):\n{listed}")


@dataclass(frozen=True)
class DomainContext:
    """What the model is told about a domain, and the names validation checks against.

    `sage_desk.core.domain.declaration.load_domain_context` reads it from a domain's `domain.yaml`.
    """

    name: str
    title: str
    tools: dict[str, str]
    system_variables: dict[str, str]
    context: tuple[str, ...]
    intent_field: str
    tool_names: tuple[str, ...]
    """The domain's tools and the helpdesk tools every domain has."""
    expr_names: tuple[str, ...]
    """Names an argument expression may use."""

    def names(self) -> DomainNames:
        """What the editor's validation needs."""
        return DomainNames(self.name, self.tool_names, self.expr_names)

    def describe(self) -> str:
        """The domain as prompt text: tools, system variables, context rows, intent field."""
        tools = "\n".join(f"- {name}: {text}" for name, text in self.tools.items()) or "- (none)"
        variables = "\n".join(f"- {name} = {text}" for name, text in self.system_variables.items()) or "- (none)"
        return (
            f"Tools:\n{tools}\nSystem variables (system fields, with the expression that gives their value):\n"
            f"{variables}\nRecords an argument expression may use: {', '.join(self.context) or 'none'}\n"
            f"The field for what the customer wants (the intent) is named: {self.intent_field}"
        )


@dataclass(frozen=True)
class DraftOptions:
    """The model and how hard to try."""

    model: str
    api_base: str | None = None
    api_key: str | None = None
    max_attempts: int = DEFAULT_ATTEMPTS
    section_chars: int = DEFAULT_SECTION_CHARS
    temperature: float | None = 0.0
    timeout: float = 300.0
    max_retries: int = 2
    name: str | None = None
    title: str = ""


@dataclass(frozen=True)
class DraftProgress:
    """Where drafting is: `step` of `steps` (one per section, one for the final check)."""

    step: int
    steps: int
    message: str


@dataclass(frozen=True)
class Unmatched:
    """An action whose tool the domain does not have."""

    node: str
    tool: str
    cite: str


@dataclass
class DraftResult:
    """A drafted graph, laid out, with where each node came from and what the author should check."""

    graph: Graph
    text: str
    provenance: dict[str, Span]
    unmatched: list[Unmatched]
    problems: list[Problem]
    warnings: list[str] = field(default_factory=list)
    sections: int = 1
    requests: int = 0
    tokens: int = 0
    cost_usd: float = 0.0


ProgressFn = Callable[[DraftProgress], None]


class _Conversation:
    """The calls to the model: structured output when the provider takes it, and usage totals."""

    def __init__(self, options: DraftOptions, client: LlmClient | None):
        from sage_desk.core.llm import LlmClient

        self.options = options
        self.client = client or LlmClient()
        self.structured = True
        self.requests = 0
        self.tokens = 0
        self.cost_usd = 0.0

    def _params(self) -> JsonObject:
        o = self.options
        params: dict[str, Any] = {
            "api_base": o.api_base,
            "api_key": o.api_key,
            "temperature": o.temperature,
            "timeout": o.timeout,
            "max_retries": o.max_retries,
        }
        if self.structured:
            params["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "sop_draft", "schema": draft_schema(), "strict": False},
            }
        return params

    async def ask(self, messages: list[JsonObject]) -> str:
        """One answer's text; falls back to plain JSON in the prompt if the provider refuses `response_format`."""
        from sage_desk.core.llm import LlmError

        try:
            reply = await self.client.complete(self.options.model, messages, **self._params())
        except LlmError as exc:
            refused = any(word in str(exc).lower() for word in ("response_format", "json_schema", "structured output"))
            if not (self.structured and exc.status == 400 and refused):
                raise
            self.structured = False
            reply = await self.client.complete(self.options.model, messages, **self._params())
        self.requests += 1
        self.tokens += reply.usage.prompt_tokens + reply.usage.completion_tokens
        self.cost_usd += reply.usage.cost_usd
        return reply.content or ""

    async def until_valid(
        self,
        messages: list[JsonObject],
        check: Callable[[DraftGraph], tuple[Graph | None, list[str]]],
        what: str,
        report: Callable[[int], None],
    ) -> Graph:
        """Ask, check, and ask again with the problems, up to `max_attempts` answers."""
        problems: list[str] = []
        raw = ""
        for attempt in range(1, self.options.max_attempts + 1):
            report(attempt)
            raw = await self.ask(messages)
            draft, problems = parse_draft(raw)
            graph = None
            if draft is not None:
                graph, problems = check(draft)
            if graph is not None and not problems:
                return graph
            messages = [
                *messages,
                {"role": "assistant", "content": raw},
                {"role": "user", "content": REPAIR.format(problems="\n".join(f"- {p}" for p in problems))},
            ]
        raise DraftError(what, problems, self.options.max_attempts, raw)


def _convert(draft: DraftGraph, name: str, title: str) -> tuple[Graph | None, list[str]]:
    try:
        return to_graph(draft, name, title), []
    except ValidationError as exc:
        return None, [f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()[:20]]


def whole_problems(graph: Graph, domain: DomainContext) -> list[str]:
    """What must be fixed before a draft is accepted: the graph's rules (tools are flagged, not refused)."""
    problems = [p.message for p in validate_graph(graph, expr_names=domain.expr_names)]
    return list(dict.fromkeys([*problems, *missing_sources(graph)]))


def summarise(graph: Graph) -> str:
    """The graph drafted so far, compactly, for the next section's request."""
    lines = ["fields: " + "; ".join(f"{n} ({s.source.value}): {', '.join(s.values)}" for n, s in graph.fields.items())]
    for node in graph.nodes:
        detail = node.field or node.tool or node.outcome or ("say" if node.say else "")
        lines.append(f"- {node.id} ({node.kind.value}{': ' + detail if detail else ''}) {node.label}")
    return "\n".join(lines)


async def draft_graph(
    text: str,
    domain: DomainContext,
    options: DraftOptions,
    *,
    client: LlmClient | None = None,
    on_progress: ProgressFn | None = None,
) -> DraftResult:
    """Draft a graph from `text`; raises DraftError (nothing usable), LlmError (the provider failed)."""
    sections = split_sections(text, options.section_chars)
    if not sections:
        raise SageError("the SOP text is empty")
    chat = _Conversation(options, client)
    name, steps = options.name or domain.name, len(sections) + (1 if len(sections) > 1 else 0)
    system = DRAFT_SYSTEM.format(context=", ".join([*domain.context, "facts", "slots"]), schema=json.dumps(draft_schema()))
    graph = Graph(name=name, title=options.title)
    warnings: list[str] = []
    origin: dict[str, Section] = {}
    for i, section in enumerate(sections):
        fragment = await _draft_section(chat, system, text, sections, i, graph, domain, options, on_progress, steps)
        origin.update({n.id: section for n in fragment.nodes if n.id not in origin})
        graph, merge_warnings = merge(graph, fragment) if i else (fragment, [])
        warnings += merge_warnings
    if len(sections) > 1:
        graph = await _final_check(chat, system, graph, domain, options, on_progress, steps)
    return _finish(graph, text, origin, domain, warnings, chat, len(sections))


async def _draft_section(
    chat: _Conversation,
    system: str,
    text: str,
    sections: list[Section],
    i: int,
    base: Graph,
    domain: DomainContext,
    options: DraftOptions,
    on_progress: ProgressFn | None,
    steps: int,
) -> Graph:
    section = sections[i]
    single = len(sections) == 1
    part = "" if single else f" (part {i + 1} of {len(sections)}{': ' + section.title if section.title else ''})"
    earlier = EARLIER.format(summary=summarise(base)) if i else ""
    user = DRAFT_USER.format(
        title=domain.title, domain=domain.describe(), earlier=earlier, part=part, text=section.text(text).strip()
    )

    def check(draft: DraftGraph) -> tuple[Graph | None, list[str]]:
        fragment, problems = _convert(draft, base.name, options.title)
        if fragment is None:
            return None, problems
        if single:
            return fragment, whole_problems(fragment, domain)
        return fragment, fragment_problems(base, fragment, first=i == 0)

    def report(attempt: int) -> None:
        if on_progress:
            again = f" (attempt {attempt}, fixing problems)" if attempt > 1 else ""
            what = "Drafting" if single else f"Drafting part {i + 1} of {len(sections)}"
            on_progress(DraftProgress(i, steps, f"{what}{again}…"))

    messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
    return await chat.until_valid(
        messages, check, "the draft" if single else f"part {i + 1} ({section.title or 'untitled'})", report
    )


async def _final_check(
    chat: _Conversation,
    system: str,
    graph: Graph,
    domain: DomainContext,
    options: DraftOptions,
    on_progress: ProgressFn | None,
    steps: int,
) -> Graph:
    problems = whole_problems(graph, domain)
    if not problems:
        return graph

    def check(draft: DraftGraph) -> tuple[Graph | None, list[str]]:
        repaired, conversion = _convert(draft, graph.name, options.title)
        return (repaired, conversion) if repaired is None else (repaired, whole_problems(repaired, domain))

    def report(attempt: int) -> None:
        if on_progress:
            on_progress(DraftProgress(steps - 1, steps, f"Fixing the merged graph (attempt {attempt})…"))

    draft = from_graph(graph).model_dump_json(by_alias=True, indent=1)
    user = FINAL_REPAIR.format(problems="\n".join(f"- {p}" for p in problems), draft=draft)
    return await chat.until_valid(
        [{"role": "system", "content": system}, {"role": "user", "content": user}], check, "the merged draft", report
    )


def _finish(
    graph: Graph,
    text: str,
    origin: dict[str, Section],
    domain: DomainContext,
    warnings: list[str],
    chat: _Conversation,
    sections: int,
) -> DraftResult:
    graph, provenance, cite_warnings = _cite(graph, text, origin)
    graph, unmatched, tool_warnings = _match_tools(graph, domain)
    graph = apply_layout(graph)
    problems = validate_graph(graph, tools=domain.tool_names, expr_names=domain.expr_names, file=graph.name)
    return DraftResult(
        graph=graph,
        text=text,
        provenance=provenance,
        unmatched=unmatched,
        problems=problems,
        warnings=[*warnings, *tool_warnings, *cite_warnings],
        sections=sections,
        requests=chat.requests,
        tokens=chat.tokens,
        cost_usd=chat.cost_usd,
    )


def _cite(graph: Graph, text: str, origin: dict[str, Section]) -> tuple[Graph, dict[str, Span], list[str]]:
    """Point each node at the document's own sentence (looked for in its section first)."""
    provenance: dict[str, Span] = {}
    warnings: list[str] = []
    nodes = []
    for node in graph.nodes:
        section = origin.get(node.id)
        span = locate(node.cite, text, section.start, section.end) if section else None
        span = span or locate(node.cite, text)
        if span is None:
            if node.cite:
                warnings.append(f"node {node.id!r}: its source sentence is not in the text: {node.cite!r}")
            nodes.append(node)
            continue
        provenance[node.id] = span
        nodes.append(node.model_copy(update={"cite": " ".join(span.text(text).split())}))
    return graph.model_copy(update={"nodes": nodes}), provenance, warnings


def _match_tools(graph: Graph, domain: DomainContext) -> tuple[Graph, list[Unmatched], list[str]]:
    """Map near-misses (`reship` for `reship_order`) to the domain's tools; list the rest as unmatched."""
    names = list(domain.tool_names)
    unmatched: list[Unmatched] = []
    warnings: list[str] = []
    nodes = []
    for node in graph.nodes:
        if node.kind != NodeKind.ACTION or not node.tool or node.tool in names:
            nodes.append(node)
            continue
        close = difflib.get_close_matches(node.tool, names, n=1, cutoff=0.85)
        if close:
            warnings.append(f"node {node.id!r}: tool {node.tool!r} read as the domain's {close[0]!r}")
            nodes.append(node.model_copy(update={"tool": close[0]}))
        else:
            unmatched.append(Unmatched(node.id, node.tool, node.cite))
            nodes.append(node)
    return graph.model_copy(update={"nodes": nodes}), unmatched, warnings
