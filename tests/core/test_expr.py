"""Conditions, guards and argument expressions: checked before use, evaluated without eval."""

from __future__ import annotations

import pytest

from sage_desk.core import expr
from sage_desk.core.expr import ExprError, check, evaluate

ORDER = {"order": {"order_id": "NL-1", "status": "shipped", "items": [{"sku": "a"}, {"sku": "b"}], "total": 120.0}}


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("order.status in ('processing', 'shipped')", True),
        ("order.status == 'delivered'", False),
        ("len(order.items)", 2),  # a column named like a dict method is still the column
        ("order.items[1].sku", "b"),
        ("order['status']", "shipped"),
        ("upper(order.order_id)", "NL-1"),
        ("'big' if order.total > 100 else 'small'", "big"),
        ("{'shipped': 'in_transit'}[order.status]", "in_transit"),
    ],
)
def test_evaluate(text: str, value: object) -> None:
    assert evaluate(text, ORDER) == value


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty expression"),
        ("   ", "empty expression"),
        ("order.status ==", "bad expression 'order.status ==': invalid syntax"),
        ("lambda: 1", "bad expression 'lambda: 1': lambda is not allowed"),
        ("(x := 1)", "bad expression '(x := 1)': namedexpr is not allowed"),
        ("order.__class__", "bad expression 'order.__class__': private attribute '__class__'"),
        (
            "__import__('os')",
            "bad expression \"__import__('os')\": only these functions may be called: "
            "abs, float, hours_between, int, keys, len, lower, max, min, pluck, round, starting, str, subset, upper, where",
        ),
        (
            "order.status.upper()",
            "bad expression 'order.status.upper()': only these functions may be called: "
            "abs, float, hours_between, int, keys, len, lower, max, min, pluck, round, starting, str, subset, upper, where",
        ),
        ("x" * 501, "expression longer than 500 characters"),
        ("-" * 400 + "1", f"expression nested deeper than {expr.MAX_DEPTH} levels"),
    ],
)
def test_check_refuses(text: str, message: str) -> None:
    assert check(text) == message


def test_evaluating_does_not_widen_what_check_accepts() -> None:
    evaluate("1", {})
    assert check("list(order.items)") is not None
    assert sorted(expr.FUNCTIONS) == [
        "abs",
        "float",
        "hours_between",
        "int",
        "keys",
        "len",
        "lower",
        "max",
        "min",
        "pluck",
        "round",
        "starting",
        "str",
        "subset",
        "upper",
        "where",
    ]


def test_check_against_known_names() -> None:
    assert check("order.status == 'x'", ["order", "customer"]) is None
    assert check("ordr.status == 'x'", ["order", "customer"]) == (
        "bad expression \"ordr.status == 'x'\": unknown name 'ordr' (known: customer, order)"
    )
    assert check("len(order.items) > 0 and True", ["order"]) is None


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("missing == 1", "'missing' is not defined"),
        ("order.nothing", "Attribute 'nothing' does not exist"),
        ("order.keys", "Attribute 'keys' does not exist"),  # dict methods are not reachable by dot syntax
        ("order.items[5]", "list index out of range"),
        ("1 / 0", "division by zero"),
        ("9 ** 9 ** 9", "9 ** 387420489"),
        ("'a' * 10 ** 9", "will not evaluate something that long"),
        ("-" * 499 + "1", "nested deeper than"),
    ],
)
def test_evaluate_errors_are_expr_errors(text: str, fragment: str) -> None:
    with pytest.raises(ExprError) as info:
        evaluate(text, ORDER)
    assert fragment in str(info.value)


BOMBS = [
    "3999999**3999999 > 0",  # an exponent under simpleeval's own limit, a result of 88 million bits
    "9**9**9",
    "1 << 10**9",
    "10**300 * 10**300 * 10**300 * 10**300",
    "'%0999999999d' % 1",  # a gigabyte per evaluation
    "f'{1:0999999999d}'",
    "[1 for a in 'xxxxxxxxxx' for b in 'xxxxxxxxxx' for c in 'xxxxxxxxxx']",  # grows with every `for`
    "len({a: 1 for a in 'xyz'})",
    "[[1] * 100000] * 100000",  # str() or == of it walks 10^10 elements
]


@pytest.mark.parametrize("text", BOMBS)
def test_check_refuses_expressions_that_could_run_away(text: str) -> None:
    problem = check(text)
    assert problem is not None and len(problem) < 300  # a huge number is named by its size, not printed
    with pytest.raises(ExprError):
        evaluate(text, {})


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("row.fmt % 1", {"row": {"fmt": "%0999999999d"}}),  # a format string from the world, not the expression
        ("row.n ** row.n > 0", {"row": {"n": 3999999}}),
        ("row.n * row.n * row.n", {"row": {"n": 2**600}}),
        ("row.items * 100000", {"row": {"items": [[1] * 1000]}}),
    ],
)
def test_evaluation_bounds_what_only_the_data_reveals(text: str, names: dict) -> None:
    assert check(text) is None
    with pytest.raises(ExprError):
        evaluate(text, names)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("2 ** 10 + 3", 1027),
        ("row.total % 7", 3),
        ("2 ** 0.5 > 1.4", True),
        ("'ab' * 3", "ababab"),
        ("(-2) ** 3", -8),
    ],
)
def test_ordinary_arithmetic_still_works(text: str, value: object) -> None:
    assert evaluate(text, {"row": {"total": 10}}) == value
