"""Load and validate a domain folder: domain.yaml, policy.md, sop.yaml, world.yaml.

`validate_domain` collects every problem across the files (for the CLI and the GUI's problem
list); `load_domain` returns a ready `DomainBundle` or raises DomainError with those problems
(`cases.suite.validate_domain_and_suite` adds the case suite the domain names: the files a run reads).

A domain folder may come from anyone, and its policy text goes to the model provider, so the
files `domain.yaml` names (`policy:`, `sop:`, `world:`, `cases:`) must be regular files inside
the folder: no absolute paths, no `../`, no symlink leading out, no devices or pipes (which
read forever, whatever size they report).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from sage_desk.core import expr
from sage_desk.core.domain.model import Column, Domain, Table, ToolKind
from sage_desk.core.domain.tools import HELPDESK_TOOLS, helpdesk_schemas, tool_schema
from sage_desk.core.domain.unsafe import FALSE_CLOSURE
from sage_desk.core.domain.world import Row, World, WorldView
from sage_desk.core.errors import DomainError, InputError, Problem
from sage_desk.core.jsonsafe import Json, JsonObject
from sage_desk.core.locations import resolve_domain_dir
from sage_desk.core.sop.io import graph_from_located, pydantic_problems
from sage_desk.core.sop.model import FieldSource, Graph
from sage_desk.core.sop.paths import Path as SopPath
from sage_desk.core.sop.paths import enumerate_paths
from sage_desk.core.sop.validate import validate_graph
from sage_desk.core.yamlsafe import Located, load_file, read_text

ARG_NAMES = ("slots", "facts")
"""Names graph argument expressions may use besides the domain's context rows."""
UNSAFE_NAMES = ("row", "before", "args", "result", "facts", "slots", "done", "now")
"""Names an unsafe act's `when` may use besides the domain's context rows (rules/acts.py says what each holds)."""
CLOCK = "now"
"""The policy's current time (domain.yaml `clock:`), for system variables and unsafe acts."""
DOMAIN_FILES = ("policy", "sop", "world", "cases")
"""The keys of domain.yaml that name a file of the folder."""


@dataclass
class DomainBundle:
    """A loaded domain: its declaration, graph, world and policy text."""

    dir: Path
    domain: Domain
    graph: Graph
    world: World
    policy: str
    graph_located: Located | None = None
    _schemas: list[JsonObject] = field(default_factory=list, repr=False)
    _paths: tuple[Graph, dict[str, SopPath]] | None = field(default=None, repr=False, compare=False)

    @property
    def name(self) -> str:
        return self.domain.name

    @property
    def sop_path(self) -> Path:
        return self.dir / self.domain.sop

    @property
    def cases_path(self) -> Path:
        return self.dir / self.domain.cases

    def paths_by_id(self) -> dict[str, SopPath]:
        """The graph's paths by id, enumerated once per bundle (again only if its graph is replaced)."""
        if self._paths is None or self._paths[0] is not self.graph:
            self._paths = (self.graph, {p.id: p for p in enumerate_paths(self.graph)})
        return self._paths[1]

    def user_fields(self) -> dict[str, list[str]]:
        """User slots of the graph with their values."""
        return {n: s.values for n, s in self.graph.fields.items() if s.source == FieldSource.USER}

    def tool_names(self) -> list[str]:
        return [*self.domain.tools, *HELPDESK_TOOLS]

    def tool_schemas(self) -> list[JsonObject]:
        """OpenAI-style schemas for every tool the agent may call (cached)."""
        if not self._schemas:
            self._schemas = [tool_schema(n, s) for n, s in self.domain.tools.items()]
            self._schemas += helpdesk_schemas(self.domain, self.user_fields())
        return self._schemas

    def context_rows(self, grounding: dict[str, str], world: World | WorldView | None = None) -> dict[str, Row]:
        """The named rows of a case: those it names, then those reached through `via`."""
        source = world or self.world
        rows: dict[str, Row] = {}
        for name, ctx in self.domain.context.items():
            key = grounding.get(name)
            if key is None and ctx.via:
                other, _, column = ctx.via.partition(".")
                key = rows.get(other, {}).get(column)
            if key is not None:
                row = source.get(ctx.table, key)
                if row is not None:
                    rows[name] = row
        return rows

    def system_values(self, rows: dict[str, Row]) -> JsonObject:
        """Every system variable evaluated over the context rows (missing rows give None)."""
        values = {}
        for fname, expression in self.domain.system_variables.items():
            try:
                values[fname] = expr.evaluate(expression, {**rows, CLOCK: self.domain.clock})
            except expr.ExprError:
                values[fname] = None
        return values


def load_domain(name_or_path: str | Path, graph: Graph | None = None) -> DomainBundle:
    """Load a domain folder; raises DomainError listing every problem.

    With `graph`, that graph stands in for the folder's sop.yaml (which is then not read): the graph a
    stored run was played with, drawn in Review even after sop.yaml was edited or broken."""
    bundle, problems = _load(resolve_domain_dir(name_or_path), graph)
    errors = [p for p in problems if p.is_error]
    if errors or bundle is None:
        raise DomainError(errors or problems)
    return bundle


def validate_domain(name_or_path: str | Path) -> list[Problem]:
    """Every problem of a domain folder (empty when it is fine)."""
    return load_domain_problems(name_or_path)[1]


def load_domain_problems(name_or_path: str | Path) -> tuple[DomainBundle | None, list[Problem]]:
    """The domain as far as it loads (None when it does not) and every problem found on the way."""
    return _load(resolve_domain_dir(name_or_path))


def file_problem(folder: Path, name: str) -> str | None:
    """Why `name` (from domain.yaml) may not be read from `folder`, or None when it is a safe file path."""
    if not name or Path(name).is_absolute() or name.startswith("~"):
        return f"{name!r} must be a path inside the domain folder, not an absolute one"
    root = folder.resolve()
    target = Path(os.path.realpath(root / name))  # every symlink on the way followed
    if not target.is_relative_to(root):
        return f"{name!r} leads outside the domain folder"
    if target.exists() and not target.is_file():
        return f"{name!r} is not a regular file"
    return None


def _load(folder: Path, given_graph: Graph | None = None) -> tuple[DomainBundle | None, list[Problem]]:
    decl_file = folder / "domain.yaml"
    if not decl_file.is_file():
        return None, [Problem(str(folder), 1, 1, "not a domain folder (no domain.yaml)")]
    try:
        located = load_file(decl_file)
        if not isinstance(located.data, dict):
            return None, [located.problem((), "expected a mapping (name, tables, tools ...)")]
        domain = Domain.model_validate(located.data)
    except InputError as exc:
        return None, exc.problems
    except ValidationError as exc:
        return None, pydantic_problems(exc, located)
    problems: list[Problem] = []
    problems += _check_declaration(domain, located)
    unsafe = {key: why for key in DOMAIN_FILES if (why := file_problem(folder, getattr(domain, key)))}
    problems += [located.problem((key,), f"{key}: {why}") for key, why in unsafe.items()]
    if "sop" in unsafe:
        return None, problems
    graph: Graph | None
    graph_problems: list[Problem]
    if given_graph is not None:
        graph, graph_located, graph_problems = given_graph, None, []
    else:
        graph, graph_located, graph_problems = _load_graph(folder / domain.sop, domain)
    problems += graph_problems
    no_world = "world" in unsafe or (domain.audit_only and not (folder / domain.world).exists())  # audited from its reads
    world, world_problems = (World(), []) if no_world else _load_world(folder / domain.world, domain)
    problems += world_problems
    policy = ""
    if "policy" not in unsafe:
        try:
            policy = read_text(folder / domain.policy)
        except InputError as exc:
            problems += exc.problems
    if graph is not None:
        problems += _check_fields(domain, graph, located)
        if graph_located is not None and not any(p.is_error for p in problems):
            problems += _unread_decisions(domain, graph, graph_located)
    if graph is None:
        return None, problems
    bundle = DomainBundle(folder, domain, graph, world, policy, graph_located)
    return bundle, problems


def _check_declaration(domain: Domain, located: Located) -> list[Problem]:
    problems = []
    for name, tool in domain.tools.items():
        if name in HELPDESK_TOOLS:
            problems.append(located.problem(("tools", name), f"tool {name!r} is built in; choose another name"))
        table = domain.tables.get(tool.table)
        if table is None:
            problems.append(located.problem(("tools", name, "table"), f"tool {name!r}: unknown table {tool.table!r}"))
            continue
        for col in tool.set:
            if table.columns and col not in table.columns:
                problems.append(
                    located.problem(("tools", name, "set"), f"tool {name!r}: unknown column {col!r} of {tool.table!r}")
                )
        names = ("row", "args")
        for where, text in [
            ("guard", tool.guard),
            *[(f"set.{c}", v[1:]) for c, v in tool.set.items() if isinstance(v, str) and v.startswith("=")],
        ]:
            if text is not None:
                err = expr.check(text, names)
                if err:
                    problems.append(located.problem(("tools", name, where.split(".")[0]), f"tool {name!r}: {err}"))
        if tool.kind == ToolKind.READ and (tool.set or tool.guard):
            problems.append(located.problem(("tools", name), f"tool {name!r}: a read tool has no 'set' or 'guard'"))
    for i, act in enumerate(domain.unsafe_acts):
        spec = domain.tools.get(act.tool)
        if spec is None:
            problems.append(located.problem(("unsafe_acts", i, "tool"), f"unsafe act: unknown tool {act.tool!r}"))
        elif spec.kind == ToolKind.READ:
            problems.append(
                located.problem(("unsafe_acts", i, "tool"), f"unsafe act: {act.tool!r} is a read tool; only writes can be unsafe")
            )
        if act.kind == FALSE_CLOSURE:
            problems.append(
                located.problem(
                    ("unsafe_acts", i, "kind"),
                    f"unsafe act {act.tool!r}: {FALSE_CLOSURE} is read from how the ticket was closed, not declared on a write",
                )
            )
        if act.when is not None:
            err = expr.check(act.when, (*UNSAFE_NAMES, *domain.context))
            if err:
                problems.append(located.problem(("unsafe_acts", i, "when"), f"unsafe act {act.tool!r}: {err}"))
    for name, ctx in domain.context.items():
        if ctx.table not in domain.tables:
            problems.append(located.problem(("context", name), f"context {name!r}: unknown table {ctx.table!r}"))
    for fname, text in domain.system_variables.items():
        err = expr.check(text, (*domain.context, *([CLOCK] if domain.clock else [])))
        if err:
            problems.append(located.problem(("system_variables", fname), f"system variable {fname!r}: {err}"))
    return problems


def _load_graph(path: Path, domain: Domain) -> tuple[Graph | None, Located | None, list[Problem]]:
    try:
        located = load_file(path)
        graph = graph_from_located(located)
    except InputError as exc:
        return None, None, exc.problems
    tools = [*domain.tools, *HELPDESK_TOOLS]
    names = [*domain.context, *ARG_NAMES]
    return graph, located, validate_graph(graph, located, tools=tools, expr_names=names, file=str(path), warnings=True)


def _check_fields(domain: Domain, graph: Graph, located: Located) -> list[Problem]:
    problems = []
    if domain.intent_field not in graph.fields:
        problems.append(located.problem(("intent_field",), f"intent_field {domain.intent_field!r} is not a field of the graph"))
    for fname, spec in graph.fields.items():
        if spec.source == FieldSource.SYSTEM and fname not in domain.system_variables:
            problems.append(
                located.problem(
                    ("system_variables",), f"system field {fname!r} of the graph has no expression in system_variables"
                )
            )
    for fname in domain.system_variables:
        declared = graph.fields.get(fname)
        if declared is not None and declared.source != FieldSource.SYSTEM:
            problems.append(
                located.problem(("system_variables", fname), f"{fname!r} is a user slot in the graph, not a system variable")
            )
    return problems


_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "list": (list,),
    "object": (dict,),
}


def _load_world(path: Path, domain: Domain) -> tuple[World, list[Problem]]:
    world = World()
    try:
        located = load_file(path)
    except InputError as exc:
        return world, exc.problems
    if not isinstance(located.data, dict):
        return world, [located.problem((), "expected a mapping of table name to a list of rows")]
    problems: list[Problem] = []
    for tname, rows in located.data.items():
        table = domain.tables.get(tname)
        if table is None:
            problems.append(located.problem((tname,), f"unknown table {tname!r} (declared: {', '.join(domain.tables)})"))
            continue
        if not isinstance(rows, list):
            problems.append(located.problem((tname,), f"table {tname!r}: expected a list of rows"))
            continue
        world.tables[tname] = {}
        for i, row in enumerate(rows):
            problems += _check_row(located, tname, i, row, table, world.tables[tname])
    return world, problems


def _check_row(located: Located, tname: str, i: int, row: Json, table: Table, into: dict[str, Row]) -> list[Problem]:
    where = (tname, i)
    if not isinstance(row, dict):
        return [located.problem(where, f"{tname}[{i}]: expected a mapping")]
    problems = []
    key = row.get(table.key)
    if key is None:
        return [located.problem(where, f"{tname}[{i}]: missing key column {table.key!r}")]
    if str(key) in into:
        problems.append(located.problem(where + (table.key,), f"{tname}: duplicate key {key!r}"))
    for col, value in row.items():
        spec: Column | None = table.column(col)
        if table.columns and spec is None:
            problems.append(located.problem(where + (col,), f"{tname}[{i}]: unknown column {col!r}"))
            continue
        if spec is None or value is None:
            continue
        if not isinstance(value, _TYPES[spec.type]) or (spec.type in ("integer", "number") and isinstance(value, bool)):
            problems.append(located.problem(where + (col,), f"{tname}[{i}].{col}: expected {spec.type}, found {value!r}"))
        elif spec.values is not None and value not in spec.values:
            problems.append(located.problem(where + (col,), f"{tname}[{i}].{col}: {value!r} is not one of {spec.values}"))
    for col in table.columns:
        spec = table.column(col)
        if spec is not None and spec.required and col not in row:
            problems.append(located.problem(where, f"{tname}[{i}]: missing column {col!r}"))
    into[str(key)] = row
    return problems


def _names(text: str) -> set[str]:
    """The plain names an expression reads (`customer` in `customer.claims_last_year >= 2`)."""
    import ast

    try:
        return {n.id for n in ast.walk(ast.parse(text, mode="eval")) if isinstance(n, ast.Name)}
    except SyntaxError:
        return set()


def _unread_decisions(domain: Domain, graph: Graph, located: Located) -> list[Problem]:
    """Warnings: a decision on a system variable that some path reaches without reading its records.

    The agent cannot know `PriorClaims` unless it looked the customer up first; a graph that
    decides on it with no read before it on some path asks the agent to branch on what it cannot
    know, and its paths (the ground truth) leave out the read the policy asks for. Checked without
    enumerating paths: the decision must be unreachable from the start once every action node
    that reads one of its tables is taken out.
    """
    from sage_desk.core.sop.model import NodeKind
    from sage_desk.core.sop.validate import reachable, successors

    start = graph.start()
    if start is None:
        return []
    readers = {name: spec.table for name, spec in domain.tools.items() if spec.kind == ToolKind.READ}
    problems = []
    for index, node in enumerate(graph.nodes):
        spec = graph.fields.get(node.field or "")
        if node.kind != NodeKind.DECISION or spec is None or spec.source != FieldSource.SYSTEM:
            continue
        text = domain.system_variables.get(node.field or "", "")
        tables = {domain.context[row].table for row in _names(text) if row in domain.context}
        if not tables:
            continue
        kept = {n.id for n in graph.nodes} - {
            n.id for n in graph.nodes if n.kind == NodeKind.ACTION and readers.get(n.tool or "") in tables
        }
        if node.id in kept and start.id in kept and node.id in reachable(successors(graph, kept), [start.id]):
            tools = sorted(t for t, table in readers.items() if table in tables) or ["a read tool"]
            problems.append(
                located.problem(
                    ("nodes", index, "field"),
                    f"node {node.id!r}: decides on system variable {node.field!r} "
                    f"({', '.join(sorted(tables))}) with no read before it on some path: add a "
                    f"{' or '.join(tools)} step before it",
                    node.id,
                    severity="warning",
                )
            )
    return problems
