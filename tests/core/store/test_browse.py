"""The Review list read in one query: verdict summaries, overrides applied, filters, transcript search.

Every expected figure is computed here from the store's ordinary API (verdicts, events), never
from the list itself.
"""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest

from sage_desk.core.engine.runner import Runner, RunSpec
from sage_desk.core.judge.heuristic import SOURCE as HEURISTIC
from sage_desk.core.judge.heuristic import HeuristicJudge
from sage_desk.core.scoring.hooks import verdict_hook
from sage_desk.core.store import Store
from sage_desk.core.store.browse import BrowseFilter

CASES = ["nl-001", "nl-053", "nl-121", "nl-145", "nl-150"]
AGENTS = ["baseline:oracle", "baseline:complier", "baseline:escalator"]


@pytest.fixture(scope="module")
def db_file(tmp_path_factory) -> Path:
    """A database with one small judged run: three baselines, five cases, two repeats."""
    path = tmp_path_factory.mktemp("browse") / "runs.db"
    with Store(f"sqlite:///{path}") as store:
        runner = Runner(store, post=verdict_hook(store, [HeuristicJudge()]))
        run_id = runner.create(RunSpec(domain="northline", agents=AGENTS, cases=CASES, repeats=2))
        asyncio.run(runner.execute(run_id))
    return path


@pytest.fixture
def store(db_file, tmp_path):
    """A fresh copy of the judged run for each test (overrides change it)."""
    copy = tmp_path / "copy.db"
    shutil.copyfile(db_file, copy)
    with Store(f"sqlite:///{copy}") as s:
        yield s


@pytest.fixture
def run_id(store) -> str:
    return store.latest_run_id()


def rule_failures(store, conversation_id):
    return sum(1 for v in store.effective_verdicts(conversation_id=conversation_id, source="rules") if v.passed is False)


def judge_mean(store, conversation_id):
    scores = [
        v.score
        for v in store.effective_verdicts(conversation_id=conversation_id)
        if v.source != "rules" and v.score is not None and not v.unscored
    ]
    return sum(scores) / len(scores)


def test_one_row_per_conversation_in_case_model_repeat_order(store, run_id):
    table = store.conversation_table(run_id)
    records = store.conversations(run_id)
    assert table.ids == [c.id for c in records]  # the store's own order: case, agent, repeat
    assert len(table) == len(CASES) * len(AGENTS) * 2
    assert table.domain == "northline"
    row = table.row_of(records[4].id)
    assert (table.case_ids[row], table.agents[row], table.repeats[row], table.buckets[row]) == (
        records[4].case_id,
        records[4].agent,
        records[4].repeat,
        records[4].bucket,
    )


def test_summaries_match_the_verdicts(store, run_id):
    table = store.conversation_table(run_id)
    for row, cid in enumerate(table.ids):
        verdicts = store.verdicts(conversation_id=cid)
        assert table.rules_failed[row] == rule_failures(store, cid)
        assert table.judge_score(row) == pytest.approx(judge_mean(store, cid))
        assert set(table.failing[row]) == {v.criterion for v in verdicts if v.passed is False and not v.unscored}
        assert table.judge_failed(row) == len({v.criterion for v in verdicts if v.source == HEURISTIC and v.passed is False})
        outcome = next(v for v in verdicts if v.criterion == "outcome")
        assert table.outcome_passed(row) is outcome.passed
        assert table.overridden[row] == 0 and table.disagree[row] == 0


def test_filters_narrow_the_list(store, run_id):
    table = store.conversation_table(run_id)
    records = {c.id: c for c in store.conversations(run_id)}
    oracle = table.filter(BrowseFilter(agent="baseline:oracle"))
    assert {table.ids[i] for i in oracle} == {c.id for c in records.values() if c.agent == "baseline:oracle"}
    adversarial = table.filter(BrowseFilter(bucket="adversarial", conflict=records[table.ids[0]].conflict))
    assert {table.ids[i] for i in adversarial} == {
        c.id for c in records.values() if c.bucket == "adversarial" and c.conflict == records[table.ids[0]].conflict
    }
    failures = table.filter(BrowseFilter(failures_only=True))
    assert {table.ids[i] for i in failures} == {cid for cid in records if rule_failures(store, cid) > 0}
    assert 0 < len(failures) < len(table)
    catastrophic = {
        v.conversation_id for v in store.verdicts(run_id=run_id) if v.criterion.startswith("catastrophic.") and v.passed is False
    }
    assert {table.ids[i] for i in table.filter(BrowseFilter(failing="catastrophic.*"))} == catastrophic
    outcome = {v.conversation_id for v in store.verdicts(run_id=run_id) if v.criterion == "outcome" and v.passed is False}
    assert {table.ids[i] for i in table.filter(BrowseFilter(failing="outcome"))} == outcome
    both = table.filter(BrowseFilter(agent="baseline:complier", failures_only=True))
    assert set(both) == set(failures) & set(table.filter(BrowseFilter(agent="baseline:complier")))


def test_text_search_finds_ids_cases_models_and_failed_criteria(store, run_id):
    table = store.conversation_table(run_id)
    assert [table.case_ids[i] for i in table.filter(BrowseFilter(text="NL-121"))] == ["nl-121"] * 6
    one = table.ids[7]
    assert table.filter(BrowseFilter(text=one[2:8].upper())) == [7]
    escalated = table.filter(BrowseFilter(text="escalation.unneeded"))
    assert {table.ids[i] for i in escalated} == {
        v.conversation_id for v in store.verdicts(run_id=run_id) if v.criterion == "escalation.unneeded" and v.passed is False
    }


def test_transcript_search_reads_customer_and_agent_messages(store, run_id):
    word = "tracking"
    expected = {
        cid
        for cid, events in store.events_many(store.conversation_table(run_id).ids).items()
        if any(e.type in ("customer_message", "agent_message") and word in e.text.lower() for e in events)
    }
    found = store.search_transcripts(run_id, word.upper())
    assert found == expected and found
    assert store.search_transcripts(run_id, "no such words anywhere %") == set()
    table = store.conversation_table(run_id)
    rows = table.filter(BrowseFilter(text=word, text_ids=frozenset(found)))
    by_name = {table.ids[i] for i in table.filter(BrowseFilter(text=word))}  # judge.say.say_tracking failed ...
    assert {table.ids[i] for i in rows} == found | by_name


def test_overrides_change_the_summary_the_latest_one_wins(store, run_id):
    table = store.conversation_table(run_id)
    row = next(i for i in range(len(table)) if "outcome" in table.failing[i])
    cid, before = table.ids[row], table.rules_failed[row]
    store.add_override(cid, "outcome", "rules", human_passed=True, reason="it did end right", author="ann")
    after = store.conversation_table(run_id)
    assert after.rules_failed[row] == before - 1 == rule_failures(store, cid)
    assert "outcome" not in after.failing[row] and after.outcome_passed(row) is True
    assert (after.overridden[row], after.disagree[row]) == (1, 1)
    assert after.filter(BrowseFilter(disagree_only=True)) == [row]
    store.add_override(cid, "outcome", "rules", human_passed=False, reason="on second thought", author="ann")
    again = store.conversation_table(run_id)
    assert again.rules_failed[row] == before and (again.overridden[row], again.disagree[row]) == (1, 0)
    assert again.filter(BrowseFilter(disagree_only=True)) == []


def test_a_judge_score_override_moves_the_mean_and_small_moves_are_not_disagreement(store, run_id):
    cid = store.conversation_table(run_id).ids[0]
    empathy = next(v for v in store.verdicts(conversation_id=cid) if v.criterion == "judge.empathy")
    store.add_override(cid, "judge.empathy", HEURISTIC, human_score=1.0, human_passed=True, author="bo")
    table = store.conversation_table(run_id, [cid])
    assert table.ids == [cid]
    assert table.judge_score(0) == pytest.approx(judge_mean(store, cid))
    assert table.disagree[0] == (1 if empathy.passed is not True or 1.0 - empathy.score >= 0.25 else 0)
    nudge = min(1.0, empathy.score + 0.1)
    store.add_override(cid, "judge.empathy", HEURISTIC, human_score=nudge, human_passed=empathy.passed, author="bo")
    assert store.conversation_table(run_id, [cid]).disagree[0] == 0


def test_replace_row_takes_a_reread_summary(store, run_id):
    table = store.conversation_table(run_id)
    row = next(i for i in range(len(table)) if table.rules_failed[i] > 0)
    criterion = table.failing[row][0] if not table.failing[row][0].startswith("judge") else "outcome"
    store.add_override(table.ids[row], criterion, "rules", human_passed=True, author="cy")
    table.replace_row(row, store.conversation_table(run_id, [table.ids[row]]))
    assert table.overridden[row] == 1 and table.rules_failed[row] == rule_failures(store, table.ids[row])


def test_conversations_without_verdicts_show_no_summary(store):
    run_id = store.create_run("northline", {}, [{"id": "p-1", "case_id": "nl-001", "agent": "baseline:oracle"}])
    table = store.conversation_table(run_id)
    assert table.rules_failed[0] == -1 and table.judge_score(0) is None and table.outcome_passed(0) is None
    assert table.failing[0] == () and not table.is_failure(0)
    assert store.conversation_table("no-such-run").ids == []


@pytest.mark.parametrize("size", [1, 7, 30, 1000])
def test_pages_read_after_each_last_row_add_up_to_the_whole_list(store, run_id, size):
    whole = store.conversation_table(run_id)
    assert len(whole) > 7
    read = store.conversation_table(run_id, limit=size)
    while (after := read.last_key()) is not None:
        page = store.conversation_table(run_id, after=after, limit=size)
        assert len(page) <= size
        if not len(page):
            break
        read.extend(page)
    assert read.ids == whole.ids  # every row once, in the list's order
    assert read.failing == whole.failing and list(read.rules_failed) == list(whole.rules_failed)
    assert list(read.repeats) == list(whole.repeats) and read.agents == whole.agents
