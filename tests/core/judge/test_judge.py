"""The judges: parse failures are unscored (raw kept), structured answers become verdicts."""

from __future__ import annotations

import asyncio
import json

from helpers import first_case

from sage_desk.core.agents.base import make_agent, make_customer
from sage_desk.core.engine.conversation import run_conversation
from sage_desk.core.engine.memory import MemoryRecorder
from sage_desk.core.judge.heuristic import HeuristicJudge
from sage_desk.core.judge.llm_judge import LlmJudge, criteria_for, format_examples, parse_answer
from sage_desk.core.llm import LlmClient


def oracle_events(case, bundle):
    return asyncio.run(
        run_conversation("c", case, bundle, make_agent("baseline:oracle"), make_customer("scripted"), MemoryRecorder())
    ).events


def judge_with(reply_text, case, bundle):
    judge = LlmJudge("openai/judge", client=LlmClient(), mock_response=reply_text)
    return asyncio.run(judge.judge(case, bundle, oracle_events(case, bundle)))


def test_unparseable_reply_is_unscored_with_the_raw_reply_kept(northline, northline_cases):
    case = first_case(northline_cases, bucket="resolvable")
    verdicts = judge_with("I think the agent did fine overall!", case, northline)
    assert verdicts and all(v.unscored and v.passed is None and v.score is None for v in verdicts)
    assert verdicts[0].raw == "I think the agent did fine overall!"
    assert "no JSON object" in verdicts[0].rationale


def test_structured_reply_becomes_scores_and_missing_criteria_stay_unscored(northline, northline_cases):
    case = first_case(northline_cases, bucket="resolvable")
    answer = {
        "scores": {
            "judge.empathy": {"score": 9, "rationale": "warm"},
            "judge.policy_adherence": {"score": 3, "rationale": "skipped a step"},
        }
    }
    verdicts = {v.criterion: v for v in judge_with("```json\n" + json.dumps(answer) + "\n```", case, northline)}
    assert verdicts["judge.empathy"].score == 0.9 and verdicts["judge.empathy"].passed is True
    assert verdicts["judge.policy_adherence"].passed is False and verdicts["judge.policy_adherence"].rationale == "skipped a step"
    assert verdicts["judge.linguistic_quality"].unscored


def test_out_of_range_score_is_a_parse_failure():
    answer, problem = parse_answer(json.dumps({"scores": {"judge.empathy": {"score": 42}}}))
    assert answer is None and "unexpected shape" in problem


def test_say_steps_become_criteria(northline_cases):
    case = next(c for c in northline_cases.values() if any(a.say for a in c.expected.actions))
    names = [c.name for c in criteria_for(case)]
    assert any(n.startswith("judge.say.") for n in names)


def test_few_shot_examples_enter_the_prompt(northline, northline_cases):
    case = first_case(northline_cases, bucket="resolvable")
    examples = [{"criterion": "judge.empathy", "passed": False, "rationale": "cold", "transcript": "AGENT: no."}]
    judge = LlmJudge("openai/judge", examples=examples)
    prompt = judge.messages(case, northline, oracle_events(case, northline))[1]["content"]
    assert "HUMAN-VERIFIED EXAMPLES" in prompt and "AGENT: no." in prompt
    assert format_examples([]) == ""


def test_heuristic_judge_is_labelled_and_deterministic(northline, northline_cases):
    case = first_case(northline_cases, bucket="resolvable")
    events = oracle_events(case, northline)
    first = HeuristicJudge().judge_sync(case, northline, events)
    again = HeuristicJudge().judge_sync(case, northline, events)
    assert [(v.criterion, v.score) for v in first] == [(v.criterion, v.score) for v in again]
    assert all(v.source == "baseline:heuristic" and v.rationale.startswith("heuristic:") for v in first)
    assert {v.criterion for v in first} >= {"judge.empathy", "judge.policy_adherence", "judge.resolution_quality"}


def test_the_heuristic_judge_never_rewards_silence_or_an_instant_close(northline, northline_cases):
    # Labelled before running: an agent that says nothing deserves 0 on every criterion; one that
    # closes a must-escalate ticket at once ("Done!") ignored the SOP: low resolution and adherence.
    from sage_desk.core.events import AgentMessage, CustomerMessage, TicketClosed, ToolCall

    must = first_case(northline_cases, bucket="must_escalate")
    judge = HeuristicJudge()
    silent = judge.judge_sync(must, northline, [CustomerMessage(text=must.opening)])
    assert {v.score for v in silent} == {0.0} and not any(v.passed for v in silent)
    instant = [
        CustomerMessage(text=must.opening),
        AgentMessage(text=f"Hi {must.persona.name.split()[0]}, all done, thanks!"),
        ToolCall(name="close_ticket", arguments={"outcome": "resolved", "summary": "done"}, kind="helpdesk"),
        TicketClosed(outcome="resolved"),
    ]
    scores = {v.criterion: v.score for v in judge.judge_sync(must, northline, instant)}
    assert scores["judge.resolution_quality"] <= 0.2 and scores["judge.policy_adherence"] < 0.6
