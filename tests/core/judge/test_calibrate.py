"""Calibrate end to end: examples from train into the prompt, the held-out part judged again through litellm."""

from __future__ import annotations

import asyncio
import json

import pytest
from calibration_data import HEURISTIC, fresh_store, human_says_pass, judge_script, label_all

from sage_desk.core.calibration import CalibrationCancelled, calibrate, split_of
from sage_desk.core.errors import JudgeError
from sage_desk.core.judge.llm_judge import EXAMPLES_HEADER, LlmJudge
from sage_desk.core.llm import LlmClient

MODEL = "openai/fake-judge"


def options(fake_openai):
    return {"api_base": fake_openai.base_url, "client": LlmClient(backoff_base=0.01), "judge_options": {"api_key": "sk-test"}}


def heldout_ids(store):
    return sorted(c.id for c in store.conversations(run_id=store.latest_run_id()) if split_of(c.case_id) != "train")


def test_calibration_improves_agreement_on_the_held_out_part(judged, fake_openai):
    fake_openai.script = judge_script
    label_all(judged)
    result = calibrate(judged, judged.latest_run_id(), MODEL, per_class=2, seed=0, **options(fake_openai))
    # examples: 2 passes and 2 fails, all from train cases
    assert [e.passed for e in result.selection.examples] == [True, False, True, False]
    assert all(split_of(e.case_id) == "train" for e in result.selection.examples)
    assert result.heldout_conversations == heldout_ids(judged)
    assert not set(result.train_conversations) & set(result.heldout_conversations)
    # no judge:openai/fake-judge verdicts were stored, so "before" was judged now, without examples
    assert result.before_from == "rejudged"
    assert result.calls == 2 * len(result.heldout_conversations) == len(fake_openai.requests)
    with_examples = [r for r in fake_openai.requests if EXAMPLES_HEADER.strip() in r["messages"][-1]["content"]]
    assert len(with_examples) == len(result.heldout_conversations)
    (row,) = result.rows
    held = [c for c in judged.conversations(run_id=judged.latest_run_id()) if c.id in result.heldout_conversations]
    passes = sum(human_says_pass(c) for c in held)
    # before: the judge passed everything -> accuracy = share of human passes; after: it agrees everywhere
    assert row.criterion == "judge.empathy" and row.calibrated and row.dropped == 0
    assert row.before.accuracy == pytest.approx(passes / len(held)) and row.before.kappa == pytest.approx(0.0)
    assert row.after.accuracy == 1.0 and row.after.kappa == pytest.approx(1.0)
    assert result.after.n == result.before.n == len(held)
    # the run's stored verdicts are untouched; the examples are kept for the record
    assert judged.verdicts(run_id=judged.latest_run_id(), source=f"judge:{MODEL}") == []
    kept = judged.judge_examples("northline", "judge.empathy", "train")
    assert [(k.conversation_id, k.label_passed) for k in kept] == [
        (e.conversation_id, e.passed) for e in result.selection.examples
    ]
    assert "CUSTOMER:" in kept[0].transcript


def test_examples_in_the_prompt_never_come_from_held_out_conversations(judged, fake_openai):
    fake_openai.script = judge_script
    label_all(judged)
    result = calibrate(judged, judged.latest_run_id(), MODEL, **options(fake_openai))
    held_texts = {cid: judged.events(cid)[0].text for cid in result.heldout_conversations}
    prompt = next(r for r in fake_openai.requests if EXAMPLES_HEADER.strip() in r["messages"][-1]["content"])
    examples_part = prompt["messages"][-1]["content"].split("=== WHAT THE PROCEDURE EXPECTED ===")[0]
    leaked = [cid for cid, opening in held_texts.items() if opening in examples_part]
    assert leaked == []


def test_stored_verdicts_of_the_same_judge_are_the_before(judged, fake_openai):
    fake_openai.script = judge_script
    label_all(judged)
    run_id = judged.latest_run_id()
    judge = LlmJudge(MODEL, api_base=fake_openai.base_url, api_key="sk-test", client=LlmClient())
    for cid in heldout_ids(judged):
        convo = judged.conversation(cid)
        from sage_desk.core.session import run_cases

        bundle, cases, _ = run_cases(judged, run_id)
        judged.save_verdicts(cid, judge.source, asyncio.run(judge.judge(cases[convo.case_id], bundle, judged.events(cid))))
    sent = len(fake_openai.requests)
    result = calibrate(judged, run_id, MODEL, **options(fake_openai))
    assert result.before_from == "stored"
    assert len(fake_openai.requests) - sent == len(result.heldout_conversations) == result.calls
    assert result.rows[0].after.accuracy == 1.0 and result.rows[0].before.accuracy < 1.0


def test_litellm_mock_response_path_and_unparseable_replies_are_dropped_not_failed(judged):
    label_all(judged)
    reply = json.dumps({"scores": {"judge.empathy": {"score": 8, "rationale": "kind"}}})
    result = calibrate(judged, judged.latest_run_id(), MODEL, judge_options={"mock_response": reply})
    (row,) = result.rows
    assert row.before.confusion.fp + row.before.confusion.fn == row.after.confusion.fp + row.after.confusion.fn
    assert row.after.true_pass_rate == 1.0 and row.after.true_fail_rate == 0.0
    broken = calibrate(
        judged, judged.latest_run_id(), MODEL, judge_options={"mock_response": "no json here"}, save_examples=False
    )
    assert broken.rows[0].after.n == 0 and broken.rows[0].dropped == len(broken.heldout_conversations)


def test_a_baseline_judge_cannot_be_calibrated(judged):
    label_all(judged)
    with pytest.raises(JudgeError, match="no prompt, so few-shot examples cannot change it"):
        calibrate(judged, judged.latest_run_id(), HEURISTIC)


def test_too_few_labels_are_refused_with_what_to_do(judged):
    with pytest.raises(JudgeError, match="sage-desk label"):
        calibrate(judged, judged.latest_run_id(), MODEL)
    run_id = judged.latest_run_id()
    for convo in judged.conversations(run_id=run_id):
        judged.add_override(convo.id, "judge.empathy", HEURISTIC, human_passed=True)
    with pytest.raises(JudgeError, match="both a passing and a failing"):
        calibrate(judged, run_id, MODEL)


def test_cancel_stops_before_the_next_call(judged, fake_openai):
    fake_openai.script = judge_script
    label_all(judged)
    seen = []
    with pytest.raises(CalibrationCancelled):
        calibrate(
            judged,
            judged.latest_run_id(),
            MODEL,
            concurrency=1,
            on_progress=lambda d, t: seen.append((d, t)),
            cancelled=lambda: len(seen) >= 2,
            **options(fake_openai),
        )
    assert len(fake_openai.requests) == 2 and seen[-1][0] == 2


def test_unjudged_run_with_labels_written_against_the_llm_judge(unjudged_template, tmp_path, fake_openai):
    fake_openai.script = judge_script
    with fresh_store(unjudged_template, tmp_path) as store:
        label_all(store, source=f"judge:{MODEL}")
        result = calibrate(store, store.latest_run_id(), MODEL, **options(fake_openai))
    assert result.before_from == "rejudged" and result.rows[0].after.accuracy == 1.0
