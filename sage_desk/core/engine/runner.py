"""The asyncio runner: cases x agents x repeats, bounded concurrency, progress, cancel, resume.

A run is created in the store first, with one row per conversation, so that whatever happens
next (Ctrl-C, kill -9, a closed window) the run can be resumed: finished conversations are kept,
the unfinished and errored ones run again from scratch, and finished ones missing a verdict
source of the post-hook (`sources`) are judged again from their stored events. A conversation
is recorded as finished only after the post-hook has stored its verdicts (rules and judges), so
a kill while a judge is answering never leaves a finished conversation unjudged. Progress is
reported through a plain callback (`on_progress`), safe to forward to a GUI thread as a signal.

A run streams, whatever its size: `concurrency` lanes take conversations in turn from what this
process claimed in the store (`claim_conversations`: a few at a time, each claim going on from the
last in list order, so that every process playing the run, joiners and worker processes included,
plays its own; store/owners.py), never one task per conversation nor the whole run in a list, and a
lane starts its next conversation only when the recorder has `room`. The engine never
imports the store (engine/ports.py): the caller passes the store and its `StoreLink`
(`session.build_runner`), whose recorder is the store's `BatchWriter` (store/batch.py), which
commits every conversation's events, finishes and verdicts together every 50 ms (or every few
hundred conversations) instead of seven transactions per conversation, so other readers see
conversations as they finish and a kill loses at most the last batch. Without a link, or with
a `post` hook bound to a store (rather than a `post_factory`), the runner writes straight into
the store, since such a hook's own writes would bypass a batch and land out of order.

What a run plays (`RunSpec`, its cases, seeds and API-key check) is engine/runspec.py (the names
stay importable from here, where most callers take them); the lanes' machinery is engine/lanes.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
import zlib
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from sage_desk.core.agents.base import make_agent, make_customer
from sage_desk.core.agents.protocol import agent_kind, check_settings
from sage_desk.core.cases.model import Case
from sage_desk.core.domain.loader import DomainBundle, load_domain
from sage_desk.core.engine.claims import claim_batch, claimed_rows
from sage_desk.core.engine.conversation import Outcome, run_conversation
from sage_desk.core.engine.heartbeat import Heartbeat
from sage_desk.core.engine.lanes import fewer_collections, stop_writing, taker
from sage_desk.core.engine.ports import DirectRecorder, PlayRow, RunRecorder, RunStore, StoreLink
from sage_desk.core.engine.runspec import PROVIDER_DEFAULT as PROVIDER_DEFAULT  # the app's form reads it here
from sage_desk.core.engine.runspec import RunSpec, check_keys, conversation_seed, load_cases
from sage_desk.core.engine.stamps import run_stamp
from sage_desk.core.engine.status import RESUMED, UNFINISHED, ConversationStatus, RunStatus
from sage_desk.core.engine.workers import Delta, WorkerJob, WorkerPool
from sage_desk.core.errors import RunError, SageError
from sage_desk.core.events import TerminationReason
from sage_desk.core.sop.io import dumps_graph

log = logging.getLogger(__name__)


@dataclass
class Progress:
    """Live figures of a run, for progress bars."""

    total: int
    done: int = 0
    errored: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    started: float = field(default_factory=time.monotonic)
    already_done: int = 0  # finished before this execution (a resume)
    unfinished: int = 0  # when the run ends: conversations left to a resume (a cancel, a failed write)
    unjudged: int = 0  # when the run ends: finished conversations missing verdicts of the post-hook's sources

    @property
    def elapsed_s(self) -> float:
        return time.monotonic() - self.started

    @property
    def eta_s(self) -> float | None:
        ran = self.done - self.already_done
        if ran <= 0:
            return None
        return self.elapsed_s / ran * (self.total - self.done)


PostHook = Callable[[str, Case, DomainBundle, Outcome], Awaitable[None]]
PostFactory = Callable[[Any], PostHook]  # store -> hook; picklable, for worker processes


def shard_of(conversation_id: str, shares: int) -> int:
    """Which of `shares` worker processes plays a conversation: a stable hash of its id, so every
    worker reads the same pages and keeps its own rows, and each gets a mix of agents and cases."""
    return zlib.crc32(conversation_id.encode()) % shares


class Runner:
    """Creates, executes, cancels and resumes runs against a store."""

    def __init__(
        self,
        store: RunStore,
        on_progress: Callable[[Progress], None] | None = None,
        post: PostHook | None = None,
        agent_options: dict[str, Any] | None = None,
        user_options: dict[str, Any] | None = None,
        workers: int = 1,
        post_factory: PostFactory | None = None,
        link: StoreLink | None = None,
        judge_prompt: str | None = None,
    ):
        """`link` gives the run its batched recorder (and worker processes their own store); without
        it every write goes straight to `store`. `workers` > 1 spreads conversations over that many
        processes (see engine/workers.py); they need `link`, a database other than an in-memory
        one, and `post_factory` (picklable: it builds the post-hook on each worker's own recorder)
        instead of `post`. `judge_prompt` is the judge's prompt hash for the run's stamp (the
        engine cannot read the judge; `session.build_runner` passes it)."""
        if workers < 1:
            raise RunError("workers must be at least 1")
        self.store = store
        self.link = link
        self.judge_prompt = judge_prompt
        self.on_progress = on_progress
        self.post = post
        self.post_factory = post_factory
        self.workers = workers
        self.on_delta: Callable[[Delta], None] | None = None  # set in a worker process
        self._pool: WorkerPool | None = None
        self.agent_options = agent_options or {}
        self.user_options = user_options or {}
        self._cancel = asyncio.Event()
        self._tasks: list[asyncio.Task] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._llm: Any = None
        self._loaded: dict[tuple[str, str | None, tuple[str, ...] | None], tuple[DomainBundle, list[Case]]] = {}
        self.progress: Progress | None = None
        self.owner_id: int | None = None  # this process's row in the run's owners while it plays (store/owners.py)

    def create(self, spec: RunSpec, run_id: str | None = None) -> str:
        """Create the run and its conversation rows (under `run_id` when given, as the app names it before
        writing the rows in a thread); returns the run id."""
        if not spec.agents:
            raise RunError("name at least one agent (--agent)")
        if spec.repeats < 1 or spec.concurrency < 1:
            raise RunError("repeats and concurrency must be at least 1")
        check_settings(spec.agent_settings(), spec.agents)
        for agent in spec.agents:
            make_agent(agent, spec.agent_settings(), **self.agent_options)  # fail now on an unknown baseline, not mid-run
        self.check_keys(spec)
        bundle, cases = self._domain_and_cases(spec)
        rows = []
        for agent in spec.agents:
            for repeat in range(1, spec.repeats + 1):
                for case in cases:
                    rows.append(
                        {
                            "case_id": case.id,
                            "agent": agent,
                            "repeat": repeat,
                            "bucket": case.bucket.value,
                            "conflict": case.conflict.value,
                            "tactics": case.tactics,
                            "seed": conversation_seed(spec.seed, case.id, agent, repeat),
                        }
                    )
        spec.stamp = run_stamp(spec, bundle, cases, self.agent_options, self.user_options, judge_prompt=self.judge_prompt)
        # the graph as played, so Review draws this run on it whatever later edits do to sop.yaml
        return self.store.create_run(bundle.name, spec.to_config(), rows, run_id=run_id, sop_graph=dumps_graph(bundle.graph))

    def cancel(self) -> None:
        """Stop starting conversations and cancel those in flight (they stay resumable).

        Safe to call from any thread (the GUI's): the work is handed to the run's event loop.
        """
        loop = self._loop
        if loop is None or loop.is_closed():
            self._cancel.set()
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            self._cancel_now()
        else:
            loop.call_soon_threadsafe(self._cancel_now)

    def _cancel_now(self) -> None:
        self._cancel.set()
        if self._pool is not None:
            self._pool.cancel()
        for task in self._tasks:
            task.cancel()

    async def execute(self, run_id: str, join: bool = False, retry_errored: bool | None = None) -> Progress:
        """Play every unfinished or errored conversation of `run_id`, and judge finished ones missing verdicts.

        Every process that plays a run (a new run, a resume, a joiner, its worker processes) takes its
        conversations the same way: it registers as one of the run's owners, with a heartbeat, and
        claims conversations nobody holds a few at a time (store/owners.py), taking back those of
        owners whose heartbeat stopped; it ends when nothing is left to claim and no live owner holds
        anything. So no conversation is played twice, whatever mix of processes plays the run.
        Without `join`, a run another live process plays is refused (RunBusyError naming it); with
        it, this process plays alongside. `retry_errored` (default: not `join`) plays conversations
        that errored before this process started again (a resume does; a plain joiner leaves them).
        """
        self._loop = asyncio.get_running_loop()
        run = self.store.get_run(run_id)
        spec = RunSpec.from_config(run.config)
        check_settings(spec.agent_settings(), spec.agents)  # a resume whose header variable is unset is refused
        self.check_keys(spec)
        total = sum(run.counts.values())
        todo = self.store.count_to_play(run_id, RESUMED, self.sources())
        self.progress = Progress(total=total)
        self.progress.already_done = self.progress.done = total - todo
        statuses = RESUMED if (not join if retry_errored is None else retry_errored) else UNFINISHED
        self.owner_id = self.store.claim_run(run_id, join=join)  # refused while another live process plays it (owners.py)
        heartbeat = self._heartbeat(self.owner_id)
        try:
            self.store.set_run_status(run_id, RunStatus.RUNNING)
            self._report()
            if self._sharded(todo):
                await self._play_in_workers(run_id, spec, todo, statuses)
            else:
                with self._endpoint_figures(run_id, spec, shares=1):
                    rows = self._claimed(run_id, self.owner_id, statuses, claim_batch(spec.concurrency))
                    await self._play_rows(rows, spec, spec.concurrency)
        finally:
            heartbeat.stop()
            self._release(self.owner_id)
        status = RunStatus.CANCELLED if self._cancel.is_set() else RunStatus.FINISHED
        self._tally(run_id)
        self.store.set_run_status(run_id, status)
        if heartbeat.lost.is_set():
            raise RunError(
                f"run {run_id} was taken over by another process while this one's heartbeat was late; "
                "what this process finished is kept"
            )
        return self.progress

    def _release(self, owner_id: int) -> None:
        """Stop owning the run; a database that refuses even that leaves a row nobody beats, taken over later."""
        try:
            self.store.release_owner(owner_id)
        except Exception as exc:  # never hide why the run stopped behind this
            log.warning(
                "could not remove this process from the run's owners (%s); it is taken over once its heartbeat is stale",
                str(exc).splitlines()[0][:200],
            )

    def _heartbeat(self, owner_id: int) -> Heartbeat:
        """Beat this process's ownership of the run from a thread; stop playing if another process took it over."""

        def beat() -> bool:
            alive = bool(self.store.beat_owner(owner_id))
            if not alive:
                self.cancel()  # its conversations are someone else's now: play none further
            return alive

        return Heartbeat(beat).start()

    def _claimed(self, run_id: str, owner_id: int, statuses: tuple[str, ...], batch: int) -> AsyncIterator[PlayRow]:
        """The conversations this process plays, claimed as the lanes take them (engine/claims.py)."""
        return claimed_rows(self.store, run_id, owner_id, statuses, self.sources(), batch, self._cancel.is_set)

    def _rows(self, run_id: str, share: int = 0, shares: int = 1) -> Iterator[PlayRow]:
        """The conversations to play (this worker's share of them), read a page at a time as the lanes take them."""
        for page in self.store.conversations_to_play(run_id, RESUMED, self.sources()):
            yield from (row for row in page if shares == 1 or shard_of(row.id, shares) == share)

    def check_keys(self, spec: RunSpec) -> None:
        """Refuse a run whose models have no API key anywhere (see `check_keys`)."""
        check_keys(spec, self.agent_options, self.user_options)

    def sources(self) -> tuple[str, ...]:
        """The verdict sources the post-hook gives every finished conversation (none without a hook that says)."""
        hook = self.post_factory if self.post_factory is not None else self.post
        return tuple(getattr(hook, "sources", ()) or ())

    def _tally(self, run_id: str) -> None:
        """The run's end as the store has it: what errored, what is left unfinished or unjudged."""
        progress = self.progress
        assert progress is not None
        counts = self.store.get_run(run_id).counts
        progress.errored = counts.get(ConversationStatus.ERRORED, 0)
        progress.unfinished = sum(counts.get(s, 0) for s in UNFINISHED)
        sources = self.sources()
        progress.unjudged = self.store.count_to_play(run_id, (), sources) if sources else 0
        self._report()

    async def play_share(
        self, run_id: str, share: int, shares: int, concurrency: int, statuses: tuple[str, ...] = RESUMED
    ) -> None:
        """A worker's part of `execute`: claim and play conversations under the parent's owner id (or, without
        one, the conversations of its share); the parent keeps the run's status and heartbeat."""
        self._loop = asyncio.get_running_loop()
        spec = RunSpec.from_config(self.store.get_run(run_id).config)
        self.progress = Progress(total=0)  # the parent's progress counts the run; this one only what was played here
        rows: Iterable[PlayRow] | AsyncIterator[PlayRow] = self._rows(run_id, share, shares)
        if self.owner_id is not None:
            rows = self._claimed(run_id, self.owner_id, statuses, claim_batch(concurrency))
        with self._endpoint_figures(run_id, spec, shares):
            await self._play_rows(rows, spec, concurrency)

    @contextlib.contextmanager
    def _endpoint_figures(self, run_id: str, spec: RunSpec, shares: int) -> Iterator[None]:
        """Cap each endpoint at this process's share of `--endpoint-concurrency`, and add what every endpoint
        did while this process played to the run's figures (report: endpoints), even when the play failed."""
        from sage_desk.core.llm import balance

        cap = spec.endpoint_concurrency
        balance.set_endpoint_concurrency(None if cap is None else max(1, -(-cap // shares)))
        balance.take_stats()  # what an earlier run of this process left is not this run's
        try:
            yield
        finally:
            balance.set_endpoint_concurrency(None)
            taken = balance.take_stats()
            if taken:
                try:
                    self.store.update_run_config(run_id, "endpoints", lambda old: balance.merge_stats(old, taken))
                except Exception as exc:  # figures only: never hide why the run stopped behind them
                    log.warning("could not record the endpoints' figures: %s", str(exc).splitlines()[0][:200])

    def _sharded(self, todo: int) -> bool:
        if self.workers == 1 or todo < 2:
            return False
        if self.link is None:
            raise RunError("worker processes need the store's link to open their own store (session.build_runner passes it)")
        if not self.link.shareable:
            raise RunError("worker processes need a database file or server, not an in-memory database")
        if self.post is not None and self.post_factory is None:
            raise RunError("worker processes need a post_factory, not a post hook bound to this process's store")
        return True

    async def _play_in_workers(self, run_id: str, spec: RunSpec, todo: int, statuses: tuple[str, ...]) -> None:
        shares = min(self.workers, todo)
        per_worker = max(1, -(-spec.concurrency // shares))
        jobs = [
            WorkerJob(
                self.link,
                run_id,
                share,
                shares,
                per_worker,
                self.agent_options,
                self.user_options,
                self.post_factory,
                owner_pid=os.getpid(),
                owner_id=self.owner_id,
                statuses=statuses,
            )
            for share in range(shares)
        ]
        self._pool = WorkerPool(jobs, on_delta=self._add_delta)
        if self._cancel.is_set():
            return
        if self._pool.forks:
            self.store.close()  # no SQLite connection may cross a fork (workers.py); the store reopens on use
        try:
            await self._pool.run()
        finally:
            self._pool = None

    def _domain_and_cases(self, spec: RunSpec) -> tuple[DomainBundle, list[Case]]:
        """The domain and cases of `spec`, read once per runner (`create` then `execute` read them once)."""
        key = (spec.domain, spec.suite, tuple(spec.cases) if spec.cases is not None else None)
        if key not in self._loaded:
            bundle = load_domain(spec.domain)
            self._loaded[key] = (bundle, load_cases(bundle, spec))
        return self._loaded[key]

    def _recorder(self) -> RunRecorder:
        """The link's batched recorder; straight into the store without a link or with a bound `post` hook."""
        if self.post is not None or self.link is None:
            return DirectRecorder(self.store)
        recorder = self.link.recorder(self.store)
        recorder.owner_id = self.owner_id  # its writes go only to conversations this owner holds (store/batch.py)
        return recorder

    async def _play_rows(self, rows: Iterable[PlayRow] | AsyncIterator[PlayRow], spec: RunSpec, concurrency: int) -> None:
        bundle, suite = self._domain_and_cases(spec)
        cases = {c.id: c for c in suite}
        recorder = self._recorder()
        post = self.post if self.post is not None else (self.post_factory(recorder) if self.post_factory is not None else None)

        async def one(row: PlayRow) -> None:
            case = cases.get(row.case_id)
            if row.status == ConversationStatus.FINISHED:  # played before; only its verdicts are missing
                await self._judge_again(row, case, bundle, recorder, post)
            elif case is None:
                recorder.start_conversation(row.id)
                recorder.finish(row.id, TerminationReason.ERROR, f"case {row.case_id!r} is no longer in the suite", events=[])
                self._count(None, errored=True)
            else:
                await self._play(row, case, bundle, spec, recorder, post)
            await asyncio.sleep(0)  # baselines never wait on anything: let the flushes and a cancel in between

        flusher = asyncio.ensure_future(recorder.flush_every())
        flusher.add_done_callback(self._stop_if_failed)
        take = taker(rows)
        failures: list[BaseException] = []

        async def lane() -> None:
            # `concurrency` lanes take rows in turn, not a task per row: a conversation that never
            # waits (baselines) plays in one step, and with thousands of tasks ready at once one pass
            # of the event loop played the whole run before a cancel (or a worker's cancel watch) ran.
            # A lane starts a conversation only when the recorder has room: the run never gets
            # ahead of its writes, so what it holds does not grow with its size (store/batch.py).
            while (row := await take()) is not None:
                try:
                    await recorder.room()
                    if self._cancel.is_set():
                        return  # the row stays as stored (pending), for a resume
                    await one(row)
                except Exception as exc:  # raised once every lane has stopped, as before
                    failures.append(exc)

        self._tasks = [asyncio.ensure_future(lane()) for _ in range(max(1, concurrency))]
        try:
            with fewer_collections():
                results = await asyncio.gather(*self._tasks, return_exceptions=True)
        finally:
            self._tasks = []
            await stop_writing(flusher, recorder, self.store)
        for result in [*failures, *results]:
            if isinstance(result, BaseException) and not isinstance(result, asyncio.CancelledError):
                raise result

    def _stop_if_failed(self, flusher: asyncio.Future) -> None:
        """The store refused the run's writes for good: stop playing conversations nobody can record."""
        if not flusher.cancelled() and flusher.exception() is not None:
            self._cancel_now()

    def _client(self, spec: RunSpec) -> Any:
        """One LLM client per run, so per-provider concurrency limits hold across conversations."""
        if self._llm is None:
            from sage_desk.core.llm import LlmClient

            self._llm = LlmClient(concurrency=spec.concurrency)
        return self._llm

    async def _play(
        self, row: PlayRow, case: Case, bundle: DomainBundle, spec: RunSpec, recorder: RunRecorder, post: PostHook | None
    ) -> None:
        options = {**self.agent_options}
        if agent_kind(row.agent) == "model":
            options.setdefault("client", self._client(spec))
            if spec.api_base_for("agent"):
                options.setdefault("api_base", spec.api_base_for("agent"))
        try:
            agent = make_agent(row.agent, spec.agent_settings(), **options)
        except SageError as exc:  # a Python agent whose factory fails: this conversation errors, the run goes on
            recorder.start_conversation(row.id)
            recorder.finish(row.id, TerminationReason.ERROR, str(exc), events=[])
            self._count(None, errored=True)
            return
        user_opts = {**self.user_options}
        if spec.user != "scripted":
            user_opts.setdefault("client", self._client(spec))
        if spec.api_base_for("user") and spec.user != "scripted":
            user_opts.setdefault("api_base", spec.api_base_for("user"))
        customer = make_customer(spec.user, **user_opts)
        outcome = await run_conversation(row.id, case, bundle, agent, customer, recorder, seed=row.seed or 0, finish=False)
        reason, error = outcome.reason, outcome.error
        if post is not None and reason != TerminationReason.ERROR:
            try:
                await post(row.id, case, bundle, outcome)
            except Exception as exc:  # a rule or judge bug: this conversation errors, the run goes on
                reason, error = TerminationReason.ERROR, f"its verdicts failed: {type(exc).__name__}: {exc}"
        recorder.finish(row.id, reason, error, events=outcome.events)  # with the verdicts held for it (batch.py)
        self._count(outcome, errored=reason == TerminationReason.ERROR)

    async def _judge_again(
        self, row: PlayRow, case: Case | None, bundle: DomainBundle, recorder: RunRecorder, post: PostHook | None
    ) -> None:
        """Store the verdicts a finished conversation is missing, from its stored events, then finish it again."""
        if case is None or post is None:
            self._count(None, errored=False)  # nothing can judge it now; the run's tally still counts it unjudged
            return
        events = self.store.events(row.id)
        outcome = Outcome(TerminationReason(row.termination or TerminationReason.TURN_LIMIT), row.error, events)
        recorder.hold_verdicts(row.id)
        try:
            await post(row.id, case, bundle, outcome)
        except Exception as exc:  # it stays finished and unjudged, and the run's tally says so
            log.error("%s: judging it again failed: %s: %s", row.id, type(exc).__name__, exc)
        else:
            recorder.finish(row.id, outcome.reason, row.error, events=events)
        self._count(None, errored=False)

    def _count(self, outcome: Outcome | None, errored: bool) -> None:
        usage = [e for e in (outcome.events if outcome else []) if e.type == "llm_usage"]
        delta = Delta(
            errored=errored,
            prompt_tokens=sum(e.prompt_tokens for e in usage),
            completion_tokens=sum(e.completion_tokens for e in usage),
            cost_usd=sum(e.cost_usd for e in usage),
        )
        if self.on_delta is not None:
            self.on_delta(delta)  # a worker: the parent process keeps the run's progress
        self._add_delta(delta)

    def _add_delta(self, delta: Delta) -> None:
        progress = self.progress
        assert progress is not None
        progress.done += 1
        progress.errored += int(delta.errored)
        progress.prompt_tokens += delta.prompt_tokens
        progress.completion_tokens += delta.completion_tokens
        progress.cost_usd += delta.cost_usd
        self._report()

    def _report(self) -> None:
        if self.on_progress is not None and self.progress is not None:
            self.on_progress(self.progress)
