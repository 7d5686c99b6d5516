"""The run's group-commit writer: the same record as direct writes, fewer transactions, nothing lost."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy.exc import OperationalError

from sage_desk.core.engine.runner import Runner, RunSpec
from sage_desk.core.errors import RunError
from sage_desk.core.events import AgentMessage, CustomerMessage, Ended, TerminationReason
from sage_desk.core.rules.verdict import Verdict
from sage_desk.core.scoring.hooks import VerdictHooks, verdict_hook
from sage_desk.core.store import Store
from sage_desk.core.store.batch import BatchWriter, StoreLink

SPEC = dict(
    domain="northline",
    agents=["baseline:oracle", "baseline:complier"],
    cases=["nl-001", "nl-002", "nl-003"],
    repeats=2,
    concurrency=3,
)


def _store(tmp_path, name="runs.db"):
    return Store(f"sqlite:///{tmp_path / name}")


def _record(store, run_id):
    """What a run left, keyed by (case, agent, repeat), without timings and the baselines' process-wide call ids."""
    out = {}
    for c in store.conversations(run_id=run_id):
        events = [(e.seq, e.type, e.model_dump(exclude={"t", "latency_ms", "call_id"})) for e in store.events(c.id)]
        verdicts = sorted((v.source, v.criterion, v.passed, v.score, v.rationale) for v in store.verdicts(conversation_id=c.id))
        totals = (c.status, c.termination, c.turns, c.prompt_tokens, c.agent_turns, c.error)
        out[(c.case_id, c.agent, c.repeat)] = (events, verdicts, totals)
    return out


def _conversation(store):
    run_id = store.create_run("northline", {}, [{"case_id": "nl-001", "agent": "a"}, {"case_id": "nl-002", "agent": "a"}])
    return run_id, [c.id for c in store.conversations(run_id=run_id)]


def test_a_batched_run_records_exactly_what_direct_writes_record(tmp_path, any_store):
    direct, batched = _store(tmp_path, "direct.db"), any_store  # batched: SQLite file, in memory, PostgreSQL
    first = Runner(direct, post=verdict_hook(direct))
    second = Runner(batched, post_factory=VerdictHooks(), link=StoreLink.of(batched))
    one = first.create(RunSpec(**SPEC))
    two = second.create(RunSpec(**SPEC))
    asyncio.run(first.execute(one))
    asyncio.run(second.execute(two))
    expected, got = _record(direct, one), _record(batched, two)
    assert len(got) == 12 and got == expected
    assert all(verdicts for _, verdicts, _ in got.values())


def test_nothing_reaches_the_store_until_a_flush(tmp_path):
    store = _store(tmp_path)
    _, (cid, _) = _conversation(store)
    writer = BatchWriter(store)
    writer.start_conversation(cid)
    events = [CustomerMessage(text="hi", seq=0), AgentMessage(text="hello", seq=1), Ended(reason=TerminationReason.CLOSED, seq=2)]
    writer.append_many(cid, events)
    writer.finish(cid, TerminationReason.CLOSED, events=events)
    writer.save_verdicts(cid, "rules", [Verdict(source="rules", criterion="outcome", passed=True)])
    assert store.events(cid) == [] and store.conversation(cid).status.value == "pending"
    writer.close()
    assert [e.type for e in store.events(cid)] == ["customer_message", "agent_message", "ended"]
    assert store.conversation(cid).status.value == "finished"
    assert [v.criterion for v in store.verdicts(conversation_id=cid)] == ["outcome"]


def test_a_restart_within_one_batch_is_not_reordered(tmp_path):
    store = _store(tmp_path)
    _, (cid, _) = _conversation(store)
    writer = BatchWriter(store)
    writer.start_conversation(cid)
    writer.append_many(cid, [CustomerMessage(text="first attempt", seq=0)])
    writer.start_conversation(cid)  # an attempt restarted before the batch was written
    writer.append_many(cid, [CustomerMessage(text="second attempt", seq=0)])
    writer.close()
    assert [e.text for e in store.events(cid)] == ["second attempt"]


def test_a_refused_batch_costs_only_the_conversation_at_fault(any_store, caplog):
    store = any_store
    _, (good, bad) = _conversation(store)
    writer = BatchWriter(store)
    for cid in (good, bad):
        writer.start_conversation(cid)
        writer.append_many(cid, [CustomerMessage(text="hi", seq=0)])
    writer.append_many(bad, [AgentMessage(text="same seq again", seq=0)])  # a harness bug: the batch is refused
    writer.flush()
    assert [e.text for e in store.events(good)] == ["hi"]
    assert writer.lost == {bad}
    refused = store.conversation(bad)
    assert refused.status.value == "errored" and "refused" in (refused.error or "")
    events = [CustomerMessage(text="hi", seq=0), Ended(reason=TerminationReason.CLOSED, seq=1)]
    writer.finish(bad, TerminationReason.CLOSED, events=events)  # later writes of a lost conversation are dropped
    writer.finish(good, TerminationReason.CLOSED, events=events[:1])
    writer.close()
    assert store.conversation(bad).status.value == "errored"
    assert store.conversation(good).status.value == "finished"
    assert "refused" in caplog.text


class _BrokenStore(Store):
    """A database that takes the run's creation, then refuses every write of the run."""

    def write_batch(self, batch):
        raise OperationalError("INSERT", {}, Exception("disk I/O error"))

    def start_conversation(self, conversation_id):
        raise OperationalError("UPDATE", {}, Exception("disk I/O error"))


def test_a_store_that_refuses_the_runs_writes_stops_the_run_with_one_clear_error(tmp_path, fake_openai):
    fake_openai.latency = 0.05  # conversations that wait on a model, so the first flush comes mid-run
    store = _BrokenStore(f"sqlite:///{tmp_path / 'runs.db'}")
    runner = Runner(store, post_factory=VerdictHooks(), agent_options={"api_key": "x"}, link=StoreLink.of(store))
    run_id = runner.create(RunSpec(**{**SPEC, "agents": ["openai/fake-agent"], "api_base": fake_openai.base_url, "repeats": 10}))
    with pytest.raises(RunError, match=r"(?s)could not be recorded .*disk I/O error.*--resume"):
        asyncio.run(runner.execute(run_id))
    assert runner.progress is not None and runner.progress.done < runner.progress.total  # it stopped, not played on
    assert len(store.unfinished_conversations(run_id)) == 30  # nothing half-written: all of it resumes
