"""The one registry every plug-in kind uses: a duplicate raises, a miss lists what exists."""

from __future__ import annotations

import pytest

from sage_desk.core.agents.base import BASELINES, CUSTOMERS, make_agent, make_customer
from sage_desk.core.cases.taxonomy import TACTICS, UnknownTacticError
from sage_desk.core.errors import SageError
from sage_desk.core.judge.factory import BASELINE_JUDGES, UnknownJudgeError, make_judges
from sage_desk.core.registry import DuplicateNameError, Registry, UnknownNameError
from sage_desk.core.rules.engine import RULES


def test_a_miss_lists_the_names_in_registration_order():
    colours = Registry[int]("colour")
    colours.add("red", 1)
    colours.register("blue")(2)
    assert colours.get("blue") == 2 and colours.names() == ["red", "blue"] and "red" in colours
    with pytest.raises(UnknownNameError) as miss:
        colours.get("green")
    assert str(miss.value) == "unknown colour 'green' (known: red, blue)"
    assert isinstance(miss.value, SageError)


def test_a_duplicate_raises_and_keeps_the_first():
    colours = Registry[int]("colour")
    colours.add("red", 1)
    with pytest.raises(DuplicateNameError, match="colour 'red' is already registered"):
        colours.add("red", 2)
    assert colours.get("red") == 1


def test_the_loader_runs_once_on_first_lookup():
    calls: list[int] = []
    lazy = Registry[int]("thing", load=lambda: calls.append(1) or lazy.add("late", 3))
    assert calls == []
    assert lazy.names() == ["late"] and lazy.get("late") == 3
    assert calls == [1]


@pytest.mark.parametrize(
    "registry, shipped",
    [
        (RULES, "catastrophic"),
        (BASELINES, "baseline:oracle"),
        (CUSTOMERS, "scripted"),
        (BASELINE_JUDGES, "baseline:heuristic"),
        (TACTICS, "thanks_trap"),
    ],
)
def test_every_plugin_kind_uses_it(registry, shipped):
    assert isinstance(registry, Registry) and shipped in registry.names()
    with pytest.raises(UnknownNameError, match=f"known: .*{shipped}"):
        registry.get("nope")


def test_unknown_offline_names_raise_their_kinds_error():
    with pytest.raises(UnknownNameError, match="unknown baseline agent 'baseline:nope'"):
        make_agent("baseline:nope")
    with pytest.raises(UnknownNameError, match="unknown customer 'baseline:nope' \\(known: scripted\\)"):
        make_customer("baseline:nope")
    with pytest.raises(UnknownJudgeError, match="unknown baseline judge 'baseline:nope' \\(known: baseline:heuristic\\)"):
        make_judges(["baseline:nope"])
    with pytest.raises(UnknownTacticError):
        TACTICS.get("bribery")
