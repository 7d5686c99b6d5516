"""The background run: a child process (`RunProcess`) that plays one stored run, or, for a database only
this process can see (in memory) or a frozen bundle, a QThread (`RunThread`) on its own asyncio loop.

A run played in a thread of the app held the GIL for seconds at a time (keystrokes took a second to
show, screen switches up to 6 s), whatever its size; in a child process (gui/run_child.py) nothing of
it runs here: the GUI thread only reads a JSON line of figures every 0.1 s. `start_run` picks one.
Both have the same face: `progressed`, `ended`, `run_id`, `start`, `cancel`, `wait`.

The worker never touches a widget. It reports through signals, which Qt queues to the GUI
thread: `progressed(RunProgress)` at most every `PROGRESS_EVERY_S` (and at the end) and
`ended(RunOutcome)` once. The runner and its verdict hook (rule engine, then the spec's judges)
are built exactly as `sage-desk run` builds them (`session.build_runner`), so a run started here
stores the same verdicts, writes the same batches and stamps the same hashes.

An offline run (baselines, the scripted customer, baseline judges) never waits on anything: in
a thread of this process it would hold the GIL for seconds at a time and starve the GUI (screen
switches took seconds, Cancel was not even drawn). A big one is played in worker processes, as
`sage-desk run --workers` does; this thread then only adds up their figures. A run in the thread
hands the GIL over after every conversation.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import sys
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QDeadlineTimer, QObject, QProcess, QProcessEnvironment, QThread, Signal

from sage_desk.core.engine.runner import Progress, Runner, RunSpec
from sage_desk.core.session import build_runner
from sage_desk.core.store import new_run_id
from sage_desk.core.store.records import RunStatus
from sage_desk.gui.common.async_thread import AsyncThread, Outcome

if TYPE_CHECKING:
    from sage_desk.core.store import Store

PROGRESS_EVERY_S = 0.1
"""Progress reaches the GUI at most this often: a fast run finishes hundreds of conversations a second."""
WORKER_PROCESSES = 2
OFFLINE_IN_PROCESSES_FROM = 2000
"""An offline run of at least this many conversations is played in worker processes."""


@dataclass(frozen=True)
class RunProgress:
    """A snapshot of a run's figures, safe to hand to the GUI thread (the runner keeps mutating its own)."""

    run_id: str
    progress: Progress


@dataclass(frozen=True)
class RunOutcome:
    """How a background run ended: finished, cancelled (resumable) or failed with an error."""

    run_id: str
    progress: Progress | None
    cancelled: bool = False
    error: BaseException | None = None


def plays_offline(spec: RunSpec) -> bool:
    """Whether every participant of the run is a built-in baseline (nothing waits on a network)."""
    return (
        all(a.startswith("baseline:") for a in spec.agents)
        and spec.user == "scripted"
        and all(j.startswith("baseline:") for j in spec.judges)
    )


def worker_processes(store: Store, spec: RunSpec, conversations: int) -> int:
    """How many processes play the run: WORKER_PROCESSES for a big offline run, else 1 (this process)."""
    url = store.url
    in_memory = url.drivername.startswith("sqlite") and url.database in (None, "", ":memory:")
    # a frozen bundle has no Python to spawn workers with (it would start another app)
    frozen = getattr(sys, "frozen", False)
    big = conversations >= OFFLINE_IN_PROCESSES_FROM
    return WORKER_PROCESSES if big and plays_offline(spec) and not in_memory and not frozen else 1


class RunThread(QThread):
    """Executes the unfinished conversations of one run in the background."""

    progressed = Signal(object)  # RunProgress
    ended = Signal(object)  # RunOutcome

    def __init__(self, store: Store, spec: RunSpec, run_id: str | None = None, parent: Any = None):
        """Prepare to play `run_id`, or create a new run from `spec` (SageError when core refuses it)."""
        super().__init__(parent)
        self.store = store
        self.spec = spec
        # Built here, on the GUI thread, so a bad spec fails before any thread starts and
        # `cancel` works even before the loop does.
        self.runner = build_runner(store, spec, on_progress=self._on_progress)
        self.run_id = run_id or self.runner.create(spec)
        self.runner.workers = worker_processes(store, spec, store.get_run(self.run_id).total)
        self.setObjectName(f"run-{self.run_id}")
        self._last_emit = 0.0

    def cancel(self) -> None:
        """Stop starting conversations and cancel those in flight; safe from the GUI thread."""
        self.runner.cancel()

    def run(self) -> None:  # the thread's body
        try:
            progress = asyncio.run(self.runner.execute(self.run_id))
        except BaseException as exc:  # handed to the GUI, which reports it
            self._mark_failed()
            self.ended.emit(RunOutcome(self.run_id, self._snapshot(), error=exc))
            return
        cancelled = self.store.get_run(self.run_id).status == RunStatus.CANCELLED
        self.ended.emit(RunOutcome(self.run_id, dataclasses.replace(progress), cancelled=cancelled))

    def _on_progress(self, progress: Progress) -> None:
        now = time.monotonic()
        if now - self._last_emit >= PROGRESS_EVERY_S or progress.done >= progress.total:
            self._last_emit = now
            self.progressed.emit(RunProgress(self.run_id, dataclasses.replace(progress)))
        time.sleep(0)  # hand the GIL to the GUI thread between conversations

    def _snapshot(self) -> Progress | None:
        progress = self.runner.progress
        return dataclasses.replace(progress) if progress is not None else None

    def _mark_failed(self) -> None:
        try:
            self.store.set_run_status(self.run_id, RunStatus.FAILED)
        except Exception:  # the original error is the one worth reporting
            pass


def plays_in_a_process(store: Store) -> bool:
    """Whether a run of `store` can be played by a child process: a database it can open too, and a Python to run it."""
    url = store.url
    in_memory = url.drivername.startswith("sqlite") and url.database in (None, "", ":memory:")
    return not in_memory and not getattr(sys, "frozen", False)


def start_run(store: Store, spec: RunSpec, run_id: str | None = None, parent: Any = None) -> RunThread | RunProcess:
    """A RunProcess where a child process can play the run, else a RunThread (not started yet)."""
    if plays_in_a_process(store):
        return RunProcess(store, spec, run_id=run_id, parent=parent)
    return RunThread(store, spec, run_id=run_id, parent=parent)


def child_environment(store: Store, spec: RunSpec) -> QProcessEnvironment:
    """The child's environment: ours, the database URL, and the API keys the run's models need (from the keyring
    too: a key saved there in this session reaches the child without the child asking the keyring)."""
    from sage_desk.core.llm.secrets import api_key_for, env_var_for, provider_of
    from sage_desk.gui.run_child import DB_ENV

    env = QProcessEnvironment.systemEnvironment()
    env.insert(DB_ENV, store.url.render_as_string(hide_password=False))
    env.insert("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    # a python: agent imports in the child as it would here (a folder the app put on its path included)
    env.insert("PYTHONPATH", os.pathsep.join(p for p in sys.path if p))
    for model in [*spec.agents, spec.user, *spec.judges]:
        provider = provider_of(model)
        key = api_key_for(model) if provider else None
        if provider and key and not os.environ.get(env_var_for(provider)):
            env.insert(env_var_for(provider), key)
    return env


class CreateRun(AsyncThread):
    """Writes a new run's rows off the GUI thread: loading the domain and suite and inserting ~2,000
    conversation rows took 430-650 ms, a frozen window after Start. Its outcome is also kept on it, so
    `RunProcess.wait` can finish the start without waiting for the queued signal."""

    def __init__(self, store: Store, runner: Runner, spec: RunSpec, run_id: str, parent: Any = None):
        super().__init__(parent)
        self.store, self.runner, self.spec, self.run_id = store, runner, spec, run_id
        self.outcome: Outcome | None = None
        self.ended.connect(lambda outcome: setattr(self, "outcome", outcome))

    async def work(self) -> int:
        created = self.runner.create(self.spec, run_id=self.run_id)
        return self.store.get_run(created).total


class RunProcess(QObject):
    """Plays one run in a child process (gui/run_child.py); its figures arrive as lines on a pipe.

    A new run is checked here (a bad spec refused at once), and its rows are written by `CreateRun` in a
    thread once `start` is called; the child process starts when they are. `run_id` is known from the start.
    """

    progressed = Signal(object)  # RunProgress
    ended = Signal(object)  # RunOutcome
    created = Signal(str)  # run id: its rows are in the database (at once for a resumed run)

    def __init__(self, store: Store, spec: RunSpec, run_id: str | None = None, parent: Any = None):
        """Prepare to play `run_id`, or a new run from `spec` (SageError when core refuses it)."""
        super().__init__(parent)
        self.store = store
        self.spec = spec
        self.runner = build_runner(store, spec)  # refuses a bad spec here, before any process starts
        self.is_new = run_id is None
        self.run_id = run_id or new_run_id()
        self.workers = 1 if self.is_new else worker_processes(store, spec, store.get_run(self.run_id).total)
        self.progress: Progress | None = None
        self.creator: CreateRun | None = None
        self._buffer = b""
        self._errors = b""
        self._done = False
        self._cancelled = False
        self.process = QProcess(self)
        self.process.setProcessEnvironment(child_environment(store, spec))
        self.process.readyReadStandardOutput.connect(self._read)
        self.process.readyReadStandardError.connect(self._read_errors)
        self.process.finished.connect(self._on_finished)
        self.process.errorOccurred.connect(self._on_error)

    def start(self) -> None:
        """Write a new run's rows in a thread, then start the child process (at once for a resumed run)."""
        if not self.is_new:
            self.created.emit(self.run_id)
            self._start_process()
            return
        self.creator = CreateRun(self.store, self.runner, self.spec, self.run_id, parent=self)
        self.creator.ended.connect(self._on_created)
        self.creator.start()

    def _on_created(self, outcome: Outcome) -> None:
        if self._done or self.creator is None or self.creator.outcome is None:
            return
        creator, self.creator = self.creator, None
        creator.wait()
        creator.deleteLater()
        if outcome.error is not None:  # e.g. the suite changed on disk since the check
            self._done = True
            self.ended.emit(RunOutcome(self.run_id, None, error=outcome.error))
            return
        self.workers = worker_processes(self.store, self.spec, int(outcome.result))
        self.created.emit(self.run_id)
        if self._cancelled:  # cancelled while its rows were written: nothing played, all resumable
            self.store.set_run_status(self.run_id, RunStatus.CANCELLED)
            self._finish(None)
            return
        self._start_process()

    def _start_process(self) -> None:
        self.process.start(sys.executable, ["-m", "sage_desk.gui.run_child", self.run_id, str(self.workers)])

    def cancel(self) -> None:
        """Ask the child to stop starting conversations and cancel those in flight (resumable)."""
        self._cancelled = True
        if self.process.state() != QProcess.ProcessState.NotRunning:
            self.process.write(b"cancel\n")

    def isRunning(self) -> bool:  # QThread's name, which the screen also calls
        """Whether the run's rows are being written or the child still plays."""
        return self.creator is not None or self.process.state() != QProcess.ProcessState.NotRunning

    def wait(self, msecs: int = -1) -> bool:
        """Block until the child has ended (at most `msecs`; -1: no limit); True when it has."""
        creator = self.creator
        if creator is not None:  # still writing the rows: wait for them, then wind up here (a cancel) or play
            if not creator.wait(msecs if msecs >= 0 else QDeadlineTimer.Forever):
                return False
            creator.outcome = creator.outcome or self._outcome_of(creator)
            self._on_created(creator.outcome)
        if self.process.state() == QProcess.ProcessState.NotRunning:
            return True
        ended = self.process.waitForFinished(msecs)
        return ended or self.process.state() == QProcess.ProcessState.NotRunning

    def _outcome_of(self, creator: CreateRun) -> Outcome:
        """A finished CreateRun's outcome read from the database, when its signal has not arrived yet."""
        try:
            return Outcome(result=self.store.get_run(creator.run_id).total)
        except Exception as exc:  # no run: its creation failed
            return Outcome(error=exc)

    def _read(self) -> None:
        self._buffer += bytes(self.process.readAllStandardOutput().data())
        *lines, self._buffer = self._buffer.split(b"\n")
        latest = None
        for line in lines:
            if line.startswith(b"{"):
                try:
                    latest = json.loads(line)["progress"]
                except (ValueError, KeyError, TypeError):
                    continue
        if latest is not None:  # only the newest figures matter: a slow GUI skips the older ones
            known = {f.name for f in dataclasses.fields(Progress)}
            self.progress = Progress(**{k: v for k, v in latest.items() if k in known})
            self.progressed.emit(RunProgress(self.run_id, dataclasses.replace(self.progress)))

    def _read_errors(self) -> None:
        self._errors = (self._errors + bytes(self.process.readAllStandardError().data()))[-4000:]

    def _on_error(self, error: QProcess.ProcessError) -> None:
        if error == QProcess.ProcessError.FailedToStart:
            self._finish(RuntimeError(f"could not start the run's process: {self.process.errorString()}"))

    def _on_finished(self, code: int, status: QProcess.ExitStatus) -> None:
        self._read()
        self._read_errors()
        error = None
        if status != QProcess.ExitStatus.NormalExit or code != 0:
            lines = [line for line in self._errors.decode(errors="replace").splitlines() if line.strip()]
            error = RuntimeError(lines[-1] if lines else f"the run's process ended with code {code}")
        self._finish(error)

    def _finish(self, error: BaseException | None) -> None:
        if self._done:
            return
        self._done = True
        if error is not None:
            self._mark_failed()
            self.ended.emit(RunOutcome(self.run_id, self.progress, error=error))
            return
        cancelled = self.store.get_run(self.run_id).status == RunStatus.CANCELLED
        self.ended.emit(RunOutcome(self.run_id, self.progress, cancelled=cancelled))

    def _mark_failed(self) -> None:
        try:
            if self.store.get_run(self.run_id).status == RunStatus.RUNNING:
                self.store.set_run_status(self.run_id, RunStatus.FAILED)
        except Exception:  # the original error is the one worth reporting
            pass
