"""Worker processes: one run's conversations spread over several processes.

A run against a fast local server (vLLM, Ollama, a fake) is CPU-bound in one process: litellm
and the OpenAI SDK spend 5-7 ms of CPU per completion, so one event loop tops out near 150-200
completions a second whatever the concurrency. `Runner(workers=N)` gives each of N processes its
own event loop, LLM client and database connection, and a share of the unfinished conversations
(round robin, so each gets a mix of agents and cases) and of the concurrency.

The database is the only thing the processes share, which is what makes this safe: every
conversation row is written by exactly one process, SQLite in WAL mode (or PostgreSQL) takes
the concurrent writers, and a killed worker leaves its conversations unfinished, so
`run --resume` finishes them like any interrupted run. Progress comes back over a queue as
per-conversation deltas; cancel is an event every worker watches.

Everything a worker needs is pickled: the database URL (never an in-memory one), the options
of the agents and customer (plain values, API keys included, which stay in memory), and a
*factory* for the post-hook (`PostFactory`), since a hook bound to the parent's store cannot
cross a process boundary.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import queue
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sage_desk.core.errors import RunError

POLL_S = 0.1  # how often a worker looks at the cancel event, and the parent at the queue


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

    url: str
    run_id: str
    conversation_ids: list[str]
    concurrency: int
    agent_options: dict[str, Any]
    user_options: dict[str, Any]
    post_factory: Callable[[Any], Any] | None


def context() -> Any:
    """`fork` where it is safe (Linux, no Qt loaded: forking a process with Qt's threads is not),
    else `spawn`, which costs each worker its imports (seconds for litellm) but works everywhere."""
    if sys.platform.startswith("linux") and "PySide6.QtCore" not in sys.modules:
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("spawn")


def split(ids: list[str], workers: int) -> list[list[str]]:
    """Round-robin shares, dropping empty ones."""
    shares = [ids[i::workers] for i in range(workers)]
    return [s for s in shares if s]


def worker_main(job: WorkerJob, deltas: Any, cancel: Any) -> None:
    """A worker process: play its conversations, send a `Delta` per conversation, then `None`."""
    from sage_desk.core.engine.runner import Runner
    from sage_desk.core.store import Store

    store = Store(job.url)
    try:
        post = job.post_factory(store) if job.post_factory is not None else None
        runner = Runner(store, post=post, agent_options=job.agent_options, user_options=job.user_options)
        runner.on_delta = deltas.put
        asyncio.run(_play_share(runner, job, cancel))
    finally:
        store.close()
        deltas.put(None)


async def _play_share(runner: Any, job: WorkerJob, cancel: Any) -> None:
    async def watch() -> None:
        while not cancel.is_set():
            await asyncio.sleep(POLL_S)
        runner.cancel()

    watcher = asyncio.ensure_future(watch())
    try:
        await runner.play_share(job.run_id, set(job.conversation_ids), job.concurrency)
    finally:
        watcher.cancel()


class WorkerPool:
    """The parent's side: start the workers, fold their deltas into progress, cancel, wait."""

    def __init__(self, jobs: list[WorkerJob], on_delta: Callable[[Delta], None]):
        self.ctx = context()
        self.jobs = jobs
        self.on_delta = on_delta
        self.deltas = self.ctx.Queue()
        self.cancel_event = self.ctx.Event()
        self.processes: list[Any] = []

    def cancel(self) -> None:
        """Ask every worker to stop (thread-safe)."""
        self.cancel_event.set()

    async def run(self) -> None:
        """Start the workers and wait for all of them; raises RunError if one died abnormally."""
        for job in self.jobs:
            proc = self.ctx.Process(target=worker_main, args=(job, self.deltas, self.cancel_event), daemon=True,
                                    name=f"sage-desk-worker-{len(self.processes) + 1}")
            proc.start()
            self.processes.append(proc)
        loop = asyncio.get_running_loop()
        running = len(self.processes)
        try:
            while running:
                try:
                    item = await loop.run_in_executor(None, self.deltas.get, True, POLL_S)
                except queue.Empty:
                    if not any(p.is_alive() for p in self.processes):
                        break  # a worker died without saying goodbye (killed); its rows stay unfinished
                    continue
                if item is None:
                    running -= 1
                else:
                    self.on_delta(item)
        except asyncio.CancelledError:
            self.cancel()
            raise
        finally:
            for proc in self.processes:
                proc.join(timeout=30)
        failed = [p for p in self.processes if p.exitcode not in (0, None)]
        if failed and not self.cancel_event.is_set():
            codes = ", ".join(f"{p.name} exit {p.exitcode}" for p in failed)
            raise RunError(f"a worker process failed ({codes}); finish the run with --resume")
