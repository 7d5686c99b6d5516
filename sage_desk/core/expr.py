"""Conditions, guards and argument constraints: small expressions, evaluated safely.

We use simpleeval (a maintained, sandboxed evaluator over Python's `ast`): no `eval`, no
attribute access to dunders, bounded powers and string sizes. Dict values are reachable with dot
syntax (`order.status`), so expressions read like the policy: ``order.status in ('processing',)``.

Expressions come from domain folders, which may be hostile, so every evaluation is bounded by
construction rather than by a timer: no loops (comprehensions are refused), no `%`-formatting
or f-strings (a format width allocates what it names: `'%0999999999d' % 1` is a gigabyte), no
list repetition (a nested one makes `str()` or `==` walk 10^10 elements), integers of at most
`MAX_INT_BITS` bits out of `**`, `*` and `<<`, and strings of at most simpleeval's 100,000
characters. With at most `MAX_LENGTH` characters there are a few hundred operations, each on
bounded values, so one evaluation takes microseconds to milliseconds and a few hundred KB at most.
`check` folds constant arithmetic with the same bounds, so `3999999**3999999 > 0` is refused
by `validate` before anything runs.
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable, Iterable, Mapping

import simpleeval

from sage_desk.core.errors import SageError
from sage_desk.core.jsonsafe import Json

MAX_LENGTH = 500
MAX_DEPTH = 50
MAX_INT_BITS = 1024  # far beyond any amount, count or date a policy compares; 2**1024 is still instant


def _list(items: Json) -> list[Json]:
    return list(items) if isinstance(items, list | tuple) else []


def _pluck(items: Json, *fields: str) -> list[Json]:
    """Each record's `field` (several fields: a tuple per record); records that are not mappings are skipped."""
    rows = [r for r in _list(items) if isinstance(r, dict)]
    if len(fields) == 1:
        return [r.get(fields[0]) for r in rows]
    return [tuple(r.get(f) for f in fields) for r in rows]


_COMPARE: dict[str, Callable[[Json, Json], bool]] = {
    "==": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
    "in": lambda a, b: a in b,
    "startswith": lambda a, b: str(a).startswith(str(b)),
}


def _where(items: Json, field: str, op: str, value: Json) -> list[Json]:
    """The records whose `field` compares to `value` (`op` one of ==, !=, <, <=, >, >=, in, startswith)."""
    test = _COMPARE[op]
    return [r for r in _list(items) if isinstance(r, dict) and r.get(field) is not None and test(r.get(field), value)]


def _hours_between(start: Json, end: Json) -> float:
    """Hours from one ISO time to another (`2024-05-14T16:03:00` to `2024-05-15T15:00:00`: 22.95)."""
    from datetime import datetime

    return (datetime.fromisoformat(str(end)) - datetime.fromisoformat(str(start))).total_seconds() / 3600


FUNCTIONS: dict[str, Callable[..., Json]] = {
    "len": len,
    "lower": lambda s: str(s).lower(),
    "upper": lambda s: str(s).upper(),
    "str": str,
    "int": int,
    "float": float,
    "abs": abs,
    "min": min,
    "max": max,
    "round": round,
    # over the records a conversation read (one pass over data already in memory: bounded by it)
    "pluck": _pluck,
    "where": _where,
    "hours_between": _hours_between,
    "keys": lambda d: list(d) if isinstance(d, dict) else [],
    "subset": lambda a, b: all(x in _list(b) for x in _list(a)),
    "starting": lambda items, prefix: [x for x in _list(items) if str(x).startswith(str(prefix))],
}


class ExprError(SageError):
    """An expression that cannot be parsed or evaluated."""


def _is_int(value: Json) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _too_big(what: str) -> ExprError:
    return ExprError(f"{what} would be larger than {MAX_INT_BITS} bits")


def _n(value: Json) -> str:
    """A number for a message: a huge one by its size, not its digits."""
    text = str(value)
    return text if len(text) <= 20 else f"a {value.bit_length()}-bit number"


def _power(a: Json, b: Json) -> Json:
    if _is_int(a) and _is_int(b) and b > 0 and abs(a) > 1 and b * math.log2(abs(a)) > MAX_INT_BITS:
        raise _too_big(f"{_n(a)} ** {_n(b)}")
    try:
        return a**b
    except OverflowError:
        raise ExprError(f"{_n(a)} ** {_n(b)} is too large") from None


def _multiply(a: Json, b: Json) -> Json:
    if _is_int(a) and _is_int(b) and a.bit_length() + b.bit_length() > MAX_INT_BITS + 1:
        raise _too_big(f"the product {_n(a)} * {_n(b)}")
    if isinstance(a, list | tuple | dict | set) or isinstance(b, list | tuple | dict | set):
        raise ExprError("lists cannot be repeated with *")
    return simpleeval.safe_mult(a, b)


def _shift(a: Json, b: Json) -> Json:
    if _is_int(a) and _is_int(b) and a.bit_length() + b > MAX_INT_BITS:
        raise _too_big(f"{_n(a)} << {_n(b)}")
    return simpleeval.safe_lshift(a, b)


def _modulo(a: Json, b: Json) -> Json:
    if isinstance(a, str | bytes):
        raise ExprError("%-formatting is not allowed")
    return operator.mod(a, b)


OPERATORS: dict[type[ast.AST], Callable[[Json, Json], Json]] = {
    **simpleeval.DEFAULT_OPERATORS,
    ast.Pow: _power,
    ast.Mult: _multiply,
    ast.LShift: _shift,
    ast.Mod: _modulo,
}
_FOLDABLE = (ast.Pow, ast.Mult, ast.LShift, ast.Add, ast.Sub)
_NOT_ALLOWED = {
    ast.Lambda: "lambda",
    ast.NamedExpr: "namedexpr",
    ast.Await: "await",
    ast.Yield: "yield",
    ast.YieldFrom: "yieldfrom",
    ast.ListComp: "a comprehension",
    ast.SetComp: "a comprehension",
    ast.DictComp: "a comprehension",
    ast.GeneratorExp: "a comprehension",
    ast.JoinedStr: "an f-string",
    ast.FormattedValue: "an f-string",
}


class _Evaluator(simpleeval.EvalWithCompoundTypes):
    """simpleeval with dot syntax that reads a dict's key before its methods.

    Plain simpleeval tries `getattr` first, so `order.items` gave the dict's `items` method
    instead of the order's `items` column (likewise `keys`, `values`, `get`, `copy`).
    """

    def _eval_attribute(self, node: ast.Attribute) -> Json:
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
        if type(node) in _NOT_ALLOWED:
            return f"bad expression {expr!r}: {_NOT_ALLOWED[type(node)]} is not allowed"
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) and _is_text(node.left):
            return f"bad expression {expr!r}: %-formatting is not allowed"
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult) and _is_collection(node.left, node.right):
            return f"bad expression {expr!r}: lists cannot be repeated with *"
        if isinstance(node, ast.Attribute) and node.attr.startswith("_"):
            return f"bad expression {expr!r}: private attribute {node.attr!r}"
        if isinstance(node, ast.Call) and not (isinstance(node.func, ast.Name) and node.func.id in FUNCTIONS):
            return f"bad expression {expr!r}: only these functions may be called: {', '.join(sorted(FUNCTIONS))}"
    try:
        _fold(tree.body)
    except ExprError as exc:
        return f"bad expression {expr!r}: {exc}"
    if allowed_names is not None:
        known = set(allowed_names) | set(FUNCTIONS) | {"True", "False", "None"}
        unknown = sorted(_names_in(tree) - known)
        if unknown:
            return f"bad expression {expr!r}: unknown name {unknown[0]!r} (known: {', '.join(sorted(set(allowed_names)))})"
    return None


def _is_collection(*nodes: ast.AST) -> bool:
    return any(isinstance(n, ast.List | ast.Tuple | ast.Set | ast.Dict) for n in nodes)


def _is_text(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str | bytes)


def _fold(node: ast.AST) -> Json:
    """The value of constant integer arithmetic under `node` (None when it is not constant), with the
    evaluator's bounds: raises ExprError where a run would. Walks every subtree for constants inside."""
    if isinstance(node, ast.Constant):
        return node.value if _is_int(node.value) else None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        value = _fold(node.operand)
        return -value if value is not None else None
    if isinstance(node, ast.BinOp):
        left, right = _fold(node.left), _fold(node.right)
        if left is None or right is None or not isinstance(node.op, _FOLDABLE):
            return None
        return OPERATORS[type(node.op)](left, right)
    for child in ast.iter_child_nodes(node):
        _fold(child)
    return None


def evaluate(expr: str, names: Mapping[str, Json]) -> Json:
    """Evaluate `expr` over `names`; raises ExprError with a readable message."""
    problem = check(expr)
    if problem:
        raise ExprError(problem)
    # a copy: EvalWithCompoundTypes adds list/tuple/dict/set to the mapping it is given, which
    # used to change what check() accepts after the first evaluation
    evaluator = _Evaluator(operators=dict(OPERATORS), names=dict(names), functions=dict(FUNCTIONS))
    try:
        return evaluator.eval(expr.strip())
    except simpleeval.NameNotDefined as exc:
        raise ExprError(f"in {expr!r}: {exc.name!r} is not defined") from None
    except (simpleeval.InvalidExpression, KeyError, TypeError, ValueError, ZeroDivisionError, AttributeError, IndexError) as exc:
        raise ExprError(f"in {expr!r}: {exc}") from None
