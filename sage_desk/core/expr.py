"""Conditions, guards and argument constraints: small expressions, evaluated safely.

We use simpleeval (a maintained, sandboxed evaluator over Python's `ast`): no `eval`, no
attribute access to dunders, bounded powers and string sizes. Dict values are reachable with dot
syntax (`order.status`), so expressions read like the policy: ``order.status in ('processing',)``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from typing import Any

import simpleeval

from sage_desk.core.errors import SageError

MAX_LENGTH = 500
MAX_DEPTH = 50
FUNCTIONS: dict[str, Any] = {
    "len": len, "lower": lambda s: str(s).lower(), "upper": lambda s: str(s).upper(),
    "str": str, "int": int, "float": float, "abs": abs, "min": min, "max": max, "round": round,
}


class ExprError(SageError):
    """An expression that cannot be parsed or evaluated."""


class _Evaluator(simpleeval.EvalWithCompoundTypes):
    """simpleeval with dot syntax that reads a dict's key before its methods.

    Plain simpleeval tries `getattr` first, so `order.items` gave the dict's `items` method
    instead of the order's `items` column (likewise `keys`, `values`, `get`, `copy`).
    """

    def _eval_attribute(self, node: ast.Attribute) -> Any:
        if not node.attr.startswith("_"):
            value = self._eval(node.value)
            if isinstance(value, Mapping):
                if node.attr in value:
                    return value[node.attr]
                raise simpleeval.AttributeDoesNotExist(node.attr, self.expr)
        return super()._eval_attribute(node)


def _names_in(tree: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}


def _depth(tree: ast.AST) -> int:
    deepest, todo = 0, [(tree, 1)]
    while todo:
        node, depth = todo.pop()
        deepest = max(deepest, depth)
        todo.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    return deepest


def check(expr: str, allowed_names: Iterable[str] | None = None) -> str | None:
    """Return why `expr` is not a valid expression, or None when it is."""
    if not isinstance(expr, str) or not expr.strip():
        return "empty expression"
    if len(expr) > MAX_LENGTH:
        return f"expression longer than {MAX_LENGTH} characters"
    try:
        tree = ast.parse(expr.strip(), mode="eval")
    except SyntaxError as exc:
        return f"bad expression {expr!r}: {exc.msg}"
    if _depth(tree) > MAX_DEPTH:
        # simpleeval recurses per level; `-----...1` would otherwise hit RecursionError
        return f"expression nested deeper than {MAX_DEPTH} levels"
    for node in ast.walk(tree):
        if isinstance(node, (ast.Lambda, ast.NamedExpr, ast.Await, ast.Yield, ast.YieldFrom)):
            return f"bad expression {expr!r}: {type(node).__name__.lower()} is not allowed"
        if isinstance(node, ast.Attribute) and node.attr.startswith("_"):
            return f"bad expression {expr!r}: private attribute {node.attr!r}"
        if isinstance(node, ast.Call) and not (isinstance(node.func, ast.Name) and node.func.id in FUNCTIONS):
            return f"bad expression {expr!r}: only these functions may be called: {', '.join(sorted(FUNCTIONS))}"
    if allowed_names is not None:
        known = set(allowed_names) | set(FUNCTIONS) | {"True", "False", "None"}
        unknown = sorted(_names_in(tree) - known)
        if unknown:
            return f"bad expression {expr!r}: unknown name {unknown[0]!r} (known: {', '.join(sorted(set(allowed_names)))})"
    return None


def evaluate(expr: str, names: Mapping[str, Any]) -> Any:
    """Evaluate `expr` over `names`; raises ExprError with a readable message."""
    problem = check(expr)
    if problem:
        raise ExprError(problem)
    # a copy: EvalWithCompoundTypes adds list/tuple/dict/set to the mapping it is given, which
    # used to change what check() accepts after the first evaluation
    evaluator = _Evaluator(names=dict(names), functions=dict(FUNCTIONS))
    try:
        return evaluator.eval(expr.strip())
    except simpleeval.NameNotDefined as exc:
        raise ExprError(f"in {expr!r}: {exc.name!r} is not defined") from None
    except (simpleeval.InvalidExpression, KeyError, TypeError, ValueError, ZeroDivisionError,
            AttributeError, IndexError) as exc:
        raise ExprError(f"in {expr!r}: {exc}") from None
