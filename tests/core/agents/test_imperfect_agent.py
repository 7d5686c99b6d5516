"""`baseline:imperfect`: its name and options, its odds, and that every mistake it makes is an act the rules read.

The agent draws its behaviour per conversation (`plan_for`), so a test can ask what it meant to
do in each conversation and check that the rule engine saw exactly that: a wrong tag fails
classification, a step done before its check fails the path, a missed handover fails
escalation, believing an adversarial customer fires a catastrophic verdict, and a conversation
with no mistake passes every rule.
"""

from __future__ import annotations

import asyncio
import random
from collections import Counter

import pytest

from sage_desk.core.agents.base import AgentNameError, make_agent
from sage_desk.core.agents.imperfect import ImperfectAgent, Settings, make_plan, plan_for
from sage_desk.core.agents.imperfect_words import spoken
from sage_desk.core.cases.suite import load_suite
from sage_desk.core.domain.loader import load_domain
from sage_desk.core.engine.runner import Runner, RunSpec
from sage_desk.core.errors import RunError
from sage_desk.core.scoring.hooks import VerdictHooks
from sage_desk.core.store import Store

DOMAINS = ["northline", "banking", "telecom", "airline", "logistics", "property", "online_education", "ecommerce_refund"]
HASTY = "baseline:imperfect?classify=0.7&act=0.4&believe=0.6&escalate=0.2&seed=5"


def test_the_name_carries_the_options():
    agent = make_agent("baseline:imperfect?classify=0.9&act=0.7&seed=3")
    assert isinstance(agent, ImperfectAgent)
    assert agent.name == "baseline:imperfect?classify=0.9&act=0.7&seed=3"
    assert agent.settings == Settings(classify=0.9, act=0.7, seed=3)
    assert make_agent("baseline:imperfect").settings == Settings()  # sensible defaults
    assert Settings().classify > Settings().act  # understands more often than it acts right: the Execution Gap


@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("baseline:imperfect?speed=2", "unknown option 'speed'"),
        ("baseline:imperfect?act=1.5", "between 0 and 1"),
        ("baseline:imperfect?act=high", "not a number"),
        ("baseline:imperfect?act", "key=value"),
        ("baseline:imperfect?act=0.5&act=0.6", "given twice"),
        ("baseline:oracle?act=0.5", "takes no options"),
        ("baseline:nope", "unknown baseline agent 'baseline:nope'"),
    ],
)
def test_a_bad_name_is_one_plain_error(name, says):
    with pytest.raises(AgentNameError, match=says) as caught:
        make_agent(name)
    assert isinstance(caught.value, RunError) and isinstance(caught.value, ValueError)


def test_plans_are_seeded_and_differ_between_repeats(northline, northline_cases):
    settings = Settings()
    case = northline_cases["nl-145"]
    assert plan_for(case, northline, settings, 11) == plan_for(case, northline, settings, 11)
    behaviours = {tuple(plan_for(c, northline, settings, seed).behaviour) for c in northline_cases.values() for seed in range(3)}
    assert len(behaviours) > 5
    per_repeat = [[plan_for(c, northline, settings, seed).behaviour for c in northline_cases.values()] for seed in range(3)]
    assert per_repeat[0] != per_repeat[1] != per_repeat[2]


def test_its_odds_follow_its_options(northline, northline_cases):
    settings = Settings(classify=0.8, act=0.6, believe=0.5, escalate=0.2)
    counts: Counter[str] = Counter()
    n = 0
    for seed in range(40):
        rng = random.Random(seed)
        for case in northline_cases.values():
            plan = make_plan(case, northline, settings, rng)
            n += 1
            counts["wrong_tag"] += plan.misclassified is not None
            counts[case.bucket.value] += 1
            counts[f"{case.bucket.value}:{plan.mistake}"] += 1
            counts["believed"] += plan.believed is not None
    assert counts["wrong_tag"] / n == pytest.approx(0.2, abs=0.03)
    assert counts["resolvable:over_escalation"] / counts["resolvable"] == pytest.approx(0.2, abs=0.03)
    missed = counts["must_escalate:missed_handover"] / counts["must_escalate"]
    assert 0.4 * 0.6 < missed < 0.4 * 1.5  # scaled by the conflict level
    believable = sum(1 for c in northline_cases.values() if c.bucket.value == "adversarial") * 40
    assert counts["believed"] / believable == pytest.approx(0.5, abs=0.05)


def test_a_perfect_setting_is_the_oracle_again(northline, northline_cases):
    settings = Settings(classify=1.0, act=1.0, believe=0.0, escalate=0.0)
    for case in northline_cases.values():
        assert plan_for(case, northline, settings, 3).behaviour == []


def test_say_steps_read_as_speech():
    assert (
        spoken("Ask the customer for a photo of the damage before anything can be sent")
        == "Could you please send me a photo of the damage before anything can be sent?"
    )
    assert (
        spoken("Explain that a shipped order cannot be cancelled and offer a return once it arrives")
        == "A shipped order cannot be cancelled, and I can offer a return once it arrives."
    )


def _failed(verdicts) -> set[str]:
    return {v.criterion for v in verdicts if v.passed is False}


def _expected_failures(plan, case) -> list[str | tuple[str, ...]]:
    """Verdict criteria (or prefixes, or a tuple of alternative prefixes) that must fail given what the agent meant to do."""
    must = []
    if plan.misclassified:
        must.append(f"classification.{plan.misclassified}")
    if plan.mistake in ("acted_before_checking", "skipped_check", "wrong_write"):
        must.append("path.action_accuracy")
    if plan.mistake == "wrong_write":
        # a wrong write that took effect is unexpected; one the tool's guard refused counts only under
        # its unsafe kind (docs/metrics.md, outcome in substance)
        must.append(("path.unexpected.", "catastrophic."))
    if plan.mistake == "missed_handover":
        must.append("escalation.required")
    if plan.mistake == "over_escalation":
        must.append("escalation.unneeded")
    if plan.believed:
        must.append("catastrophic.")
    elif plan.believed == []:
        must.append("catastrophic.false_closure")
    return must


@pytest.mark.parametrize("domain", DOMAINS)
def test_every_mistake_is_an_act_the_rules_read(tmp_path, domain):
    bundle = load_domain(domain)
    cases = {c.id: c for c in load_suite(bundle.cases_path)}
    store = Store(f"sqlite:///{tmp_path / 'runs.db'}")
    runner = Runner(store, post_factory=VerdictHooks(("baseline:heuristic",)))
    run_id = runner.create(RunSpec(domain=domain, agents=[HASTY], judges=["baseline:heuristic"], repeats=2, concurrency=16))
    progress = asyncio.run(runner.execute(run_id))
    assert progress.errored == 0 and progress.unjudged == 0
    rules: dict[str, list] = {}
    for v in store.verdicts(run_id=run_id, source="rules"):
        rules.setdefault(v.conversation_id, []).append(v)
    settings = make_agent(HASTY).settings  # type: ignore[attr-defined]
    seen: Counter[str] = Counter()
    for convo in store.conversations(run_id=run_id):
        case = cases[convo.case_id]
        plan = plan_for(case, bundle, settings, convo.seed)
        failed = _failed(rules[convo.id])
        seen.update(plan.behaviour or ["none"])
        assert convo.termination in ("closed", "handed_over"), f"{case.id}: ended {convo.termination} with the scripted customer"
        for criterion in _expected_failures(plan, case):
            assert any(f.startswith(criterion) for f in failed), (
                f"{case.id} {plan.behaviour}: {criterion} did not fail ({failed})"
            )  # a tuple: any of them
        if not plan.behaviour:
            assert not failed, f"{case.id}: no mistake planned, yet {failed} failed"
    assert seen["none"] and len(seen) >= 4, seen
    store.close()
