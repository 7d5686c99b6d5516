"""Worker processes: one run's conversations spread over several processes.

A run against a fast local server (vLLM, Ollama, a fake) can be CPU-bound in one process: one
event loop does every conversation's engine, client and rule work, 1.1-1.4 ms of CPU per
completion on the direct path and 8-12 ms through litellm (benchmarks/bench_harness.py), so it
tops out at some hundreds of completions a second whatever the concurrency. `Runner(workers=N)` gives each of N processes its
own event loop, LLM client and database connection, and a share of the concurrency. Each worker
claims its conversations in the database a few at a time under the run owner's id, as every process
that plays a run does (store/owners.py), so workers, and other processes joining the run, never
play one twice; `runner.shard_of` (a hash of the ids) is left for a share played without an owner.

The database is the only thing the processes share, which is what makes this safe: every
conversation row is written by exactly one process, SQLite in WAL mode (or PostgreSQL) takes
the concurrent writers, and a killed worker leaves its conversations unfinished, so
`run --resume` finishes them like any interrupted run. Progress comes back as per-conversation
deltas over one pipe per worker; cancel is a shared flag every worker watches.

Workers never start as a fork of a process with the database open: a forked child inherits SQLite's
per-process lock bookkeeping for files the parent has open, believes it holds the shared-memory
lock it does not, and once the parent died the next process to open the database took itself
for the only one and reset the WAL under the workers, losing every write they made after. They
come from a `forkserver` (Linux: a fresh process that imported the engine once, so starting a
worker costs milliseconds, not the 2-4 s of imports) or are spawned elsewhere; a frozen bundle,
which has no fresh Python to start, forks once the runner has closed its connections. Either way
a worker opens its own connections once started. They end with the process that started them: on Linux the kernel
kills them when their parent dies (PR_SET_PDEATHSIG, the forkserver itself exiting when the
run's process dies), and everywhere a watchdog thread ends a worker whose run process is gone,
so no orphan keeps calling a provider while a resume plays the same conversations.

Nothing the processes share takes a lock: a worker killed while holding a shared queue's lock
(or an Event's) would block every other worker, and the parent with them, for good. A pipe has
one writer, so a killed worker only ends its own pipe, which the parent reads as end-of-file.

Everything a worker needs is pickled: the store's link (engine/ports.py `StoreLink`: the database
URL, never an in-memory one, with which the worker opens its own store and batched recorder), the
options of the agents and customer (plain values, API keys included, which stay in memory), and
a *factory* for the post-hook (`PostFactory`), since a hook bound to the parent's store cannot
cross a process boundary. The forkserver preloads the modules those two come from.
"""

from __future__ import annotations

import asyncio
import ctypes
import logging
import multiprocessing
import os
import signal
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import wait
from typing import Any

from sage_desk.core.engine.status import RESUMED
from sage_desk.core.errors import RunError
from sage_desk.core.pids import pid_alive

log = logging.getLogger(__name__)

POLL_S = 0.1  # how often a worker looks at the cancel flag, and the parent at the pipes
ORPHAN_POLL_S = 0.5  # how often a worker checks that its run's process is still alive
PRELOAD = ["sage_desk.core.engine.forkserver_guard", "sage_desk.core.engine.runner"]
"""Imported once by the forkserver (the guard first: it ends the forkserver with the run, forkserver_guard.py),
then the modules of the jobs' store link and post-hook factory."""


@dataclass(frozen=True)
class Delta:
    """What one finished conversation adds to a run's progress."""

    errored: bool
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0


@dataclass
class WorkerJob:
    """One worker's share of a run (pickled into the worker process)."""

    link: Any  # engine/ports.py StoreLink: how this worker opens its own store
    run_id: str
    share: int  # this worker plays the conversations `runner.shard_of` gives `share` of `shares`
    shares: int
    concurrency: int
    agent_options: dict[str, Any]
    user_options: dict[str, Any]
    post_factory: Callable[[Any], Any] | None
    owner_pid: int = 0  # the run's process: a worker outliving it ends itself
    owner_id: int | None = None  # the run's owner row (store/owners.py): workers claim and write under it
    statuses: tuple[str, ...] = ()  # the conversation statuses the run plays (runner.execute); (): RESUMED


def context(preload: list[str] | None = None) -> Any:
    """`forkserver` on Linux (clean children, started fast from a process that imported the engine
    once), else `spawn`. A frozen desktop bundle cannot start a fresh Python (its executable is the
    app), so it forks, after the runner has closed its database connections (`forks`)."""
    if getattr(sys, "frozen", False) and sys.platform.startswith("linux"):
        return multiprocessing.get_context("fork")
    if sys.platform.startswith("linux"):
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(preload or PRELOAD)
        return ctx
    return multiprocessing.get_context("spawn")


def preload(jobs: list[WorkerJob]) -> list[str]:
    """What the forkserver imports: the engine, and where the jobs' link and post-hook factory come from."""
    extra = [type(part).__module__ for job in jobs for part in (job.link, job.post_factory) if part is not None]
    return list(dict.fromkeys([*PRELOAD, *(m for m in extra if m.startswith("sage_desk."))]))


def _die_with(owner_pid: int) -> None:
    """End this worker when the run's process dies: at once by the kernel on Linux, else within ORPHAN_POLL_S."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle: it sets the cancel flag
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG: when the parent dies
        except (OSError, AttributeError):
            log.debug("PR_SET_PDEATHSIG unavailable; the watchdog alone ends orphans")

    def watch() -> None:
        while pid_alive(owner_pid):
            threading.Event().wait(ORPHAN_POLL_S)
        os._exit(70)  # an orphan: its conversations stay unfinished, for --resume

    if owner_pid:
        if not pid_alive(owner_pid):
            os._exit(70)  # the run's process died before this worker got going
        threading.Thread(target=watch, daemon=True, name="sage-desk-orphan-watch").start()


def worker_main(job: WorkerJob, deltas: Any, cancel: Any) -> None:
    """A worker process: play its conversations, send a `Delta` per conversation down `deltas` (its
    pipe), then `None`; `cancel` is a shared byte the parent sets to 1."""
    _die_with(job.owner_pid)
    from sage_desk.core.engine.runner import Runner

    store = job.link.open_store()  # this process's own connections, opened after it started
    try:
        runner = Runner(
            store, post_factory=job.post_factory, agent_options=job.agent_options, user_options=job.user_options, link=job.link
        )
        runner.on_delta = deltas.send
        runner.owner_id = job.owner_id
        asyncio.run(_play_share(runner, job, cancel))
    finally:
        store.close()
        deltas.send(None)
        deltas.close()


async def _play_share(runner: Any, job: WorkerJob, cancel: Any) -> None:
    async def watch() -> None:
        while not cancel.value:
            await asyncio.sleep(POLL_S)
        runner.cancel()

    watcher = asyncio.ensure_future(watch())
    try:
        await runner.play_share(job.run_id, job.share, job.shares, job.concurrency, job.statuses or RESUMED)
    finally:
        watcher.cancel()


class WorkerPool:
    """The parent's side: start the workers, fold their deltas into progress, cancel, wait."""

    def __init__(self, jobs: list[WorkerJob], on_delta: Callable[[Delta], None]):
        self.ctx = context(preload(jobs))
        self.jobs = jobs
        self.on_delta = on_delta
        self.cancel_flag = self.ctx.RawValue("b", 0)  # lock-free on purpose (module docstring)
        self.processes: list[Any] = []

    @property
    def forks(self) -> bool:
        """Whether workers are forks of this process (which must then have no database connection open)."""
        return bool(self.ctx.get_start_method() == "fork")

    @property
    def cancelled(self) -> bool:
        return bool(self.cancel_flag.value)

    def cancel(self) -> None:
        """Ask every worker to stop (thread-safe)."""
        self.cancel_flag.value = 1

    async def run(self) -> None:
        """Start the workers and wait for all of them; raises RunError if one died abnormally."""
        pipes: dict[Any, Any] = {}  # the parent's read end -> its worker
        for job in self.jobs:
            reader, writer = self.ctx.Pipe(duplex=False)
            proc = self.ctx.Process(
                target=worker_main,
                args=(job, writer, self.cancel_flag),
                daemon=True,
                name=f"sage-desk-worker-{len(self.processes) + 1}",
            )
            proc.start()
            writer.close()  # the worker now holds the only write end: its death reads as end-of-file here
            self.processes.append(proc)
            pipes[reader] = proc
        loop = asyncio.get_running_loop()
        try:
            while pipes:
                ready: list[Any] = await loop.run_in_executor(None, wait, list(pipes), POLL_S)
                for reader in ready:
                    try:
                        item = reader.recv()
                    except Exception as exc:  # EOF, or a message cut off by a kill
                        log.debug("%s ended without saying goodbye: %r", pipes[reader].name, exc)
                        item = None  # its unfinished rows stay unfinished, for --resume
                    if item is None:
                        pipes.pop(reader)
                        reader.close()
                    else:
                        self.on_delta(item)
        except asyncio.CancelledError:
            self.cancel()
            raise
        finally:
            for proc in self.processes:
                proc.join(timeout=30)
            for reader in pipes:
                reader.close()
        failed = [p for p in self.processes if p.exitcode not in (0, None)]
        if failed and not self.cancelled:
            codes = ", ".join(f"{p.name} exit {p.exitcode}" for p in failed)
            raise RunError(f"a worker process failed ({codes}); finish the run with --resume")
