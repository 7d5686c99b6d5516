"""Agents' display names: short, distinct, a given NAME=SPEC name kept, and a legend for the rest."""

from __future__ import annotations

import pytest

from sage_desk.core.agents.display import display_names, legend, names_from_configs, short_form, split_named

SAMPLE = [
    "baseline:oracle",
    "baseline:escalator",
    "baseline:imperfect?classify=0.95&act=0.85&believe=0.1&escalate=0.15",
    "baseline:imperfect",
    "baseline:imperfect?classify=0.85&act=0.6&believe=0.4&escalate=0.05",
]


def test_the_sample_runs_five_agents_get_five_short_distinct_names():
    names = display_names(SAMPLE)
    # the plain imperfect keeps the bare name though it is listed after a variant; variants numbered in order
    assert list(names.values()) == ["oracle", "escalator", "imperfect-2", "imperfect", "imperfect-3"]
    # what each imperfect stands for; oracle and escalator say their spec plainly
    assert legend(names) == [f"{n} = {s}" for s, n in names.items() if "imperfect" in s]


def test_a_given_name_is_kept_and_a_derived_one_steps_around_it():
    names = display_names(SAMPLE[2:4], {SAMPLE[2]: "imperfect"})
    assert names == {SAMPLE[2]: "imperfect", SAMPLE[3]: "imperfect-2"}


def test_names_given_for_agents_not_listed_are_ignored_and_a_spec_shown_whole_has_no_legend():
    names = display_names(["scripted"], {"baseline:oracle": "o"})
    assert names == {"scripted": "scripted"}
    assert legend(names) == []
    assert legend(display_names(["baseline:oracle"])) == []
    assert legend(display_names(["openai/gpt-4o"], {"openai/gpt-4o": "four"})) == ["four = openai/gpt-4o"]


@pytest.mark.parametrize(
    "spec, short",
    [
        ("openai/gpt-4o-mini", "gpt-4o-mini"),
        ("ollama/llama3.1:8b", "llama3.1:8b"),
        ("http://localhost:8000/v1/chat", "localhost:8000"),
        ("python:my_agents.support:make_agent", "make_agent"),
        ("baseline:complier", "complier"),
        ("a-very-long-model-name-from-some-provider", "a-very-long-model-n…"),
    ],
)
def test_short_forms_of_each_kind_of_spec(spec, short):
    assert short_form(spec) == short


@pytest.mark.parametrize(
    "text, parsed",
    [
        ("careful=baseline:imperfect?act=0.9", ("careful", "baseline:imperfect?act=0.9")),
        ("gpt=openai/gpt-4o", ("gpt", "openai/gpt-4o")),
        ("baseline:imperfect?classify=0.9&act=0.7", (None, "baseline:imperfect?classify=0.9&act=0.7")),
        ("http://host:8000/v1?key=x", (None, "http://host:8000/v1?key=x")),
        ("python:mod:factory", (None, "python:mod:factory")),
        ("name=", (None, "name=")),
        ("=spec", (None, "=spec")),
    ],
)
def test_name_equals_spec_splits_only_at_a_plain_name(text, parsed):
    assert split_named(text) == parsed


def test_names_from_several_run_configs_first_wins_and_junk_is_ignored():
    configs = [{"agent_names": {"a": "first"}}, {"agent_names": {"a": "second", "b": "bee", "c": 3}}, {}]
    assert names_from_configs(configs) == {"a": "first", "b": "bee"}


def test_a_runs_names_follow_its_configs_order_whatever_order_a_reader_meets_the_agents_in():
    from sage_desk.core.agents.display import names_for_runs

    config = {"agents": SAMPLE}
    assert names_for_runs([config], sorted(SAMPLE)) == names_for_runs([config]) == display_names(SAMPLE)
    assert names_for_runs([{}], ["openai/x"]) == {"openai/x": "x"}  # an imported run: its agents as met
