"""Tools: the helpdesk tools every domain has, JSON schemas, and safe execution.

A tool call never raises out of here: bad arguments, unknown rows and failed guards come back
as a `ToolResult` with an `error` the model can read and act on.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from sage_desk.core import expr
from sage_desk.core.domain.model import Domain, Param, ToolKind, ToolSpec
from sage_desk.core.domain.world import WorldView
from sage_desk.core.jsonsafe import Json, JsonObject

TAG, HANDOVER, CLOSE = "tag_ticket", "handover_to_human", "close_ticket"
HELPDESK_TOOLS = (TAG, HANDOVER, CLOSE)
CLOSE_OUTCOMES = ("resolved", "refused", "info_requested")


@dataclass
class ToolResult:
    """What a tool call returned: `result` on success, `error` otherwise."""

    result: Json = None
    error: str | None = None
    kind: str = "read"  # read | write | record | helpdesk
    guard_failed: bool = False  # the call was well-formed but the guard refused it

    @property
    def ok(self) -> bool:
        return self.error is None

    def for_model(self) -> str:
        """The JSON text handed back to the model."""
        return json.dumps({"error": self.error} if self.error else self.result, ensure_ascii=False, default=str)


def _param_schema(param: Param) -> JsonObject:
    schema: JsonObject = {"type": param.type}
    if param.description:
        schema["description"] = param.description
    if param.enum is not None:
        schema["enum"] = param.enum
    if param.type == "array":
        schema["items"] = {"type": "string"}
    return schema


def _schema(name: str, description: str, props: JsonObject, required: list[str]) -> JsonObject:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {"type": "object", "properties": props, "required": required, "additionalProperties": False},
        },
    }


def helpdesk_schemas(domain: Domain, user_fields: dict[str, list[str]]) -> list[JsonObject]:
    """Schemas of tag_ticket, handover_to_human and close_ticket for this domain's slots."""
    intents = user_fields.get(domain.intent_field, [])
    slots = {f: {"type": "string", "enum": v} for f, v in user_fields.items() if f != domain.intent_field}
    tag_props: JsonObject = {
        "intent": {"type": "string", "enum": intents, "description": f"The customer's {domain.intent_field}"}
    }
    if slots:
        tag_props["slots"] = {"type": "object", "properties": slots, "description": "What you learned from the customer"}
    return [
        _schema(
            TAG, "Record your classification of the ticket: the customer's intent and what you learned.", tag_props, ["intent"]
        ),
        _schema(
            HANDOVER,
            "Hand the ticket to a human colleague, with the reason.",
            {"reason": {"type": "string", "description": "Why a human must take over"}},
            ["reason"],
        ),
        _schema(
            CLOSE,
            "Close the ticket with its outcome and a one-line summary.",
            {"outcome": {"type": "string", "enum": list(CLOSE_OUTCOMES)}, "summary": {"type": "string"}},
            ["outcome", "summary"],
        ),
    ]


def tool_schema(name: str, spec: ToolSpec) -> JsonObject:
    """The OpenAI-style JSON schema of a declared tool."""
    props = {spec.key: {"type": "string", "description": f"The {spec.key} of the {spec.table} row"}}
    required = [spec.key]
    for pname, param in spec.params.items():
        props[pname] = _param_schema(param)
        if param.required:
            required.append(pname)
    return _schema(name, spec.description, props, required)


_PY_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list,),
    "object": (dict,),
}


def check_args(spec: ToolSpec, args: Json) -> str | None:
    """Why `args` do not fit the tool's parameters, or None."""
    if not isinstance(args, dict):
        return "arguments must be a JSON object"
    allowed = {spec.key, *spec.params}
    unknown = sorted(set(args) - allowed)
    if unknown:
        return f"unknown argument {unknown[0]!r} (expected: {', '.join(sorted(allowed))})"
    if not isinstance(args.get(spec.key), (str, int)) or str(args.get(spec.key)).strip() == "":
        return f"missing required argument {spec.key!r}"
    for pname, param in spec.params.items():
        if pname not in args:
            if param.required:
                return f"missing required argument {pname!r}"
            continue
        value = args[pname]
        types = _PY_TYPES[param.type]
        if not isinstance(value, types) or (param.type in ("integer", "number") and isinstance(value, bool)):
            return f"argument {pname!r} must be of type {param.type}"
        if param.enum is not None and value not in param.enum:
            return f"argument {pname!r} must be one of {param.enum}"
    return None


def call_tool(domain: Domain, world: WorldView, name: str, args: Json) -> ToolResult:
    """Run a declared tool on the conversation's private world; never raises."""
    spec = domain.tools.get(name)
    if spec is None:
        return ToolResult(error=f"unknown tool {name!r}")
    problem = check_args(spec, args)
    if problem:
        return ToolResult(error=f"{name}: {problem}", kind=spec.kind.value)
    key = str(args[spec.key])
    row = world.get(spec.table, key)
    if row is None:
        return ToolResult(error=f"no {spec.table} row with {spec.key} {key!r}", kind=spec.kind.value)
    if spec.kind == ToolKind.READ:
        shown = {k: v for k, v in row.items() if spec.returns is None or k in spec.returns}
        return ToolResult(result=shown, kind="read")
    names = {"row": row, "args": args}
    try:
        if spec.guard and not expr.evaluate(spec.guard, names):
            return ToolResult(error=f"{name}: {spec.guard_message}", kind=spec.kind.value, guard_failed=True)
        changes = {
            col: (expr.evaluate(v[1:], names) if isinstance(v, str) and v.startswith("=") else v) for col, v in spec.set.items()
        }
    except expr.ExprError as exc:
        return ToolResult(error=f"{name}: could not apply ({exc})", kind=spec.kind.value)
    row.update(changes)
    world.put(spec.table, key, row)
    if spec.kind == ToolKind.RECORD:
        world.record({"tool": name, "args": args})
        return ToolResult(result={"recorded": True, "tool": name, spec.key: key, **changes}, kind="record")
    return ToolResult(result={"updated": True, spec.key: key, **changes}, kind="write")
