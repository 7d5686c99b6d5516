"""Load and save `sop.yaml`.

Loading goes through `yamlsafe` (hostile input is refused with a located message) and maps every
pydantic error back to its line. Saving writes one canonical layout, so that saving a loaded
graph gives the same bytes again and a diff of two saves shows only what the author changed.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from pydantic import ValidationError

from sage_desk.core.errors import InputError, Problem, SopError
from sage_desk.core.jsonsafe import Json
from sage_desk.core.sop.model import Graph
from sage_desk.core.yamlsafe import Located, load_file, loads


def load_graph(path: str | Path) -> Graph:
    """Load a graph file; raises SopError naming the file and line of every schema problem."""
    return load_graph_located(path)[0]


def load_graph_located(path: str | Path) -> tuple[Graph, Located]:
    """Load a graph file and keep the positions of its values, for validation messages."""
    try:
        located = load_file(path)
    except InputError as exc:
        raise SopError(exc.problems) from None
    return graph_from_located(located), located


def loads_graph(text: str, file: str = "<string>") -> Graph:
    """Load a graph from YAML text."""
    try:
        located = loads(text, file)
    except InputError as exc:
        raise SopError(exc.problems) from None
    return graph_from_located(located)


def graph_from_located(located: Located) -> Graph:
    """Validate parsed YAML against the Graph schema, locating each error."""
    if not isinstance(located.data, dict):
        found = type(located.data).__name__ if located.data is not None else "nothing"
        raise SopError([located.problem((), f"expected a SOP graph (a mapping with nodes and edges), found {found}")])
    try:
        return Graph.model_validate(located.data)
    except ValidationError as exc:
        raise SopError(pydantic_problems(exc, located)) from None


def pydantic_problems(exc: ValidationError, located: Located) -> list[Problem]:
    """Turn pydantic errors into located problems, one per error."""
    problems = []
    for err in exc.errors():
        loc = tuple(err["loc"])
        where = ".".join(str(part) for part in loc) or "document"
        msg = err["msg"]
        if err["type"] == "extra_forbidden":
            msg = f"unknown key {loc[-1]!r}"
            where = ".".join(str(part) for part in loc[:-1]) or "document"
        problems.append(located.problem(loc, f"{where}: {msg}"))
    return sorted(set(problems))


# --- canonical writer -------------------------------------------------------------------------

_PLAIN = re.compile(r"^[A-Za-z_][A-Za-z0-9_.\-/ ]*$")
_YAML11_WORDS = {"y", "n", "yes", "no", "on", "off", "true", "false", "null", "~"}
# Characters JSON leaves raw but YAML may not hold raw: DEL and C1 controls are refused by the
# reader; NEL (\x85, a Windows-1252 ellipsis read as Latin-1), LS and PS are line breaks to YAML
# (inside a flow mapping they broke the file); BOM is stripped.
_YAML_UNSAFE = re.compile("[\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]")


def _scalar(value: Json) -> str:
    if isinstance(value, str):
        if _PLAIN.match(value) and value.lower() not in _YAML11_WORDS and value == value.strip():
            return value
        return _YAML_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", json.dumps(value, ensure_ascii=False))
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return json.dumps(value, ensure_ascii=False)


def _flow(value: Json) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_scalar(k)}: {_flow(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_flow(v) for v in value) + "]"
    return _scalar(value)


def dumps_graph(graph: Graph) -> str:
    """The canonical YAML text of a graph."""
    out = [f"version: {graph.version}", f"name: {_scalar(graph.name)}"]
    for key in ("title", "description"):
        if getattr(graph, key):
            out.append(f"{key}: {_scalar(getattr(graph, key))}")
    out.append("fields:" + ("" if graph.fields else " {}"))
    for name, spec in graph.fields.items():
        out.append(f"  {_scalar(name)}:")
        out.append(f"    source: {spec.source.value}")
        if spec.description:
            out.append(f"    description: {_scalar(spec.description)}")
        out.append(f"    values: {_flow(spec.values)}")
    out.append("nodes:" + ("" if graph.nodes else " []"))
    for node in graph.nodes:
        data = node.model_dump(exclude_defaults=True, mode="json")
        data["kind"] = node.kind.value
        data["pos"] = list(node.pos)
        known = ["id", "kind", "label", "field", "tool", "args", "say", "outcome", "note", "cite"]
        # every other field a node sets (tell, confirm ...) too: a key left out here was lost on every save
        order = [*known, *(k for k in data if k not in known and k != "pos"), "pos"]
        first = True
        for key in order:
            if key not in data:
                continue
            prefix = "- " if first else "  "
            out.append(f"{prefix}{key}: {_flow(data[key])}")
            first = False
    out.append("edges:" + ("" if graph.edges else " []"))
    for edge in graph.edges:
        parts = [f"from: {_scalar(edge.source)}", f"to: {_scalar(edge.target)}"]
        if edge.when is not None:
            parts.append(f"when: {_flow(edge.when)}")
        out.append("- {" + ", ".join(parts) + "}")
    return "\n".join(out) + "\n"


def dump_graph(graph: Graph, path: str | Path) -> None:
    """Write a graph to `path` atomically (a crash mid-save never leaves half a file)."""
    target = Path(path)
    tmp = target.with_name(f".{target.name}.tmp")
    tmp.write_text(dumps_graph(graph), encoding="utf-8")
    tmp.replace(target)
