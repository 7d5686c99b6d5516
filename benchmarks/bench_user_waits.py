"""What a user waits for, timed as whole processes (issue 38), each figure beside its target.

- `sage-desk report` as typed, on a run of 50,000 conversations: the process from start to exit
  (target < 2 s);
- Review opened cold in a fresh process on a run of 100,000 conversations: from the moment the
  app would build the screen (the Qt application exists; the store, the Review modules and the
  first page of the list are all paid for in the figure) until the list shows rows and has
  painted (target < 500 ms);
- the first window of `sage-desk` when the saved state reopens Review on that 100,000-conversation
  run, since its process started (target < 1.5 s);
- `sage-desk run` with an LLM agent and an LLM customer against the fake model server (in another
  process, 200 ms a completion), 500 conversations at concurrency 64, start to exit: the ideal
  time (completions x latency / concurrency) over the wall (target >= 0.85; the process's start,
  the run's creation and its last conversations' tail are in it).

Each is run --runs times (after one warm-up for the disk cache) and the median is printed with the
machine's load average and the processes' CPU time beside it: on a shared machine the wall-clock
figures move with the load, the CPU far less (on an idle machine the wall is about the CPU).
The databases are built as benchmarks/bench_review.py builds its own (copies of the shipped
sample run); --keep-dir keeps them for the next time (50k: about a minute, 100k: about two).

    python benchmarks/bench_user_waits.py [--runs 3] [--keep-dir DIR] [--only report|review|window|run]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SAGE_DESK = ROOT / ".venv" / "bin" / "sage-desk"
RUN_ID = "r-bench-review"  # bench_review.py's run id
REPORT_TARGET_S, REVIEW_TARGET_MS, WINDOW_TARGET_S, RUN_TARGET = 2.0, 500.0, 1.5, 0.85


def _load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.1f} (5 min {five:.1f}) on {os.cpu_count()} CPUs"


def _as_installed(**extra: str) -> dict[str, str]:
    """The environment of a child process, minus PYTHONDONTWRITEBYTECODE: an installed app has its bytecode
    (pip compiles it), and the warm-up run writes what is missing instead of every process recompiling it."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return {**env, **extra}


def database(folder: Path, conversations: int) -> Path:
    """The benchmark database of `conversations` conversations in `folder`, built once."""
    path = folder / f"review-{conversations}.db"
    if not path.is_file():
        sys.path.insert(0, str(HERE))
        import bench_review

        started = time.perf_counter()
        bench_review.build(path, conversations)
        print(f"built {path} ({conversations:,} conversations) in {time.perf_counter() - started:.0f} s", flush=True)
    return path


def _median_of(runs: int, once) -> tuple[float, list[float], float]:
    """The median of `once()` over `runs` runs (after a warm-up: the disk cache, as a user's second start has
    it), its figures, and the median CPU seconds of the child processes (what the load does not inflate)."""
    once()
    figures, cpus = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        figures.append(once())
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return statistics.median(figures), figures, statistics.median(cpus)


def time_report(db: Path, runs: int) -> None:
    """`sage-desk report --db DB --run RUN` as a process, start to exit."""

    def once() -> float:
        started = time.perf_counter()
        done = subprocess.run(
            [str(SAGE_DESK), "report", "--db", f"sqlite:///{db}", "--run", RUN_ID],
            capture_output=True,
            text=True,
            timeout=300,
            env=_as_installed(),
        )
        wall = time.perf_counter() - started
        if done.returncode != 0:
            sys.exit(f"sage-desk report failed (exit {done.returncode}):\n{done.stderr[-2000:]}")
        return wall

    median, figures, cpu = _median_of(runs, once)
    verdict = "ok" if median < REPORT_TARGET_S else "OVER TARGET"
    print(
        f"sage-desk report on 50,000 conversations, whole process: {median:.2f} s median of {runs} "
        f"(target < {REPORT_TARGET_S:g} s): {verdict}  [{', '.join(f'{f:.2f}' for f in figures)}; "
        f"CPU {cpu:.2f} s; {_load()}]",
        flush=True,
    )


def time_review_cold(db: Path, runs: int) -> None:
    """A fresh process opens Review on the run: ms until the list shows rows (the child prints them)."""

    def once() -> float:
        env = _as_installed(QT_QPA_PLATFORM="offscreen", LITELLM_LOCAL_MODEL_COST_MAP="True")
        done = subprocess.run(
            [sys.executable, __file__, "--child-review", str(db)], capture_output=True, text=True, timeout=300, env=env
        )
        line = next((ln for ln in done.stdout.splitlines() if ln.startswith("review usable ")), None)
        if done.returncode != 0 or line is None:
            sys.exit(f"the Review child failed (exit {done.returncode}):\n{done.stdout}{done.stderr[-2000:]}")
        print(f"  {line}", flush=True)
        return float(line.split()[2])

    median, figures, _ = _median_of(runs, once)  # the child prints its own CPU from the clock's start
    verdict = "ok" if median < REVIEW_TARGET_MS else "OVER TARGET"
    print(
        f"Review opened cold in a fresh process on 100,000 conversations, to a usable list: {median:.0f} ms median "
        f"of {runs} (target < {REVIEW_TARGET_MS:g} ms): {verdict}  [{', '.join(f'{f:.0f}' for f in figures)}; {_load()}]",
        flush=True,
    )


def child_review(db: Path) -> None:
    """In the fresh process: the app's QApplication, then Review on the run, timed to its first painted rows."""
    from PySide6.QtWidgets import QApplication

    from sage_desk.gui.app import create_application, seconds_since_process_start

    app = QApplication.instance() or create_application()
    started, cpu = time.perf_counter(), time.process_time()
    marks = []
    from sage_desk.core.store import Store
    from sage_desk.gui.common.workspace import Workspace
    from sage_desk.gui.review import ReviewScreen

    marks.append(("imports", time.perf_counter()))
    store = Store(f"sqlite:///{db}")
    marks.append(("store", time.perf_counter()))
    screen = ReviewScreen(workspace=Workspace(store=store))
    screen.resize(1280, 720)
    screen.show()
    marks.append(("screen", time.perf_counter()))
    while screen.list_model.rowCount() == 0:
        app.processEvents()
        if time.perf_counter() - started > 60:
            sys.exit("the list showed no rows within 60 s")
    screen.list.viewport().repaint()  # the rows drawn, as the user sees them
    marks.append(("rows", time.perf_counter()))
    usable = (time.perf_counter() - started) * 1000
    steps, last = [], started
    for name, at in marks:
        steps.append(f"{name} {(at - last) * 1000:.0f}")
        last = at
    print(
        f"review usable {usable:.1f} ms ({', '.join(steps)} ms; CPU {(time.process_time() - cpu) * 1000:.0f} ms; "
        f"{screen.list_model.rowCount():,} rows shown first; process started {seconds_since_process_start() or 0:.2f} s ago)",
        flush=True,
    )


def time_first_window(db: Path, runs: int) -> None:
    """`sage-desk --db DB` whose saved state is Review on the run: its first window, since the process started."""
    from PySide6.QtCore import QSettings

    def once() -> float:
        with tempfile.TemporaryDirectory(prefix="sage-desk-bench-") as home:
            settings = QSettings(str(Path(home) / "settings.ini"), QSettings.Format.IniFormat)  # gui/common/settings.py
            settings.setValue("window/screen", "review")
            settings.setValue("review/run", RUN_ID)
            settings.sync()
            env = _as_installed(QT_QPA_PLATFORM="offscreen", SAGE_DESK_HOME=home, SAGE_DESK_EXIT_AFTER_FIRST_WINDOW="1")
            done = subprocess.run(
                [str(SAGE_DESK), "--db", f"sqlite:///{db}"], env=env, capture_output=True, text=True, timeout=300
            )
        line = next((ln for ln in done.stdout.splitlines() if ln.startswith("first window ")), None)
        if done.returncode != 0 or line is None:
            sys.exit(f"sage-desk did not report its first window (exit {done.returncode}):\n{done.stdout}{done.stderr[-2000:]}")
        return float(line.split()[2])

    median, figures, cpu = _median_of(runs, once)
    verdict = "ok" if median < WINDOW_TARGET_S else "OVER TARGET"
    print(
        f"first window, the saved state reopening Review on 100,000 conversations: {median:.2f} s median of {runs} "
        f"(target < {WINDOW_TARGET_S:g} s): {verdict}  [{', '.join(f'{f:.2f}' for f in figures)}; CPU {cpu:.2f} s "
        f"to the process's exit; {_load()}]",
        flush=True,
    )


def time_llm_run(runs: int, conversations: int = 500, concurrency: int = 64, latency: float = 0.2) -> None:
    """`sage-desk run` with an LLM agent and an LLM customer against the fake model server (another process),
    start to exit: its wall beside the ideal (completions x latency / concurrency)."""
    import multiprocessing

    sys.path.insert(0, str(HERE))
    import bench_harness

    cases = ",".join(f"nl-{i:03d}" for i in range(1, 51))  # 50 cases x 10 repeats = 500 conversations

    def once() -> float:
        ctx = multiprocessing.get_context("fork")
        port_out, stop = ctx.Queue(), ctx.Event()
        server = ctx.Process(target=bench_harness.serve, args=(latency, port_out, stop), daemon=True)
        server.start()
        base_url, _, _ = port_out.get(timeout=30)
        with tempfile.TemporaryDirectory() as tmp:
            started = time.perf_counter()
            done = subprocess.run(
                [
                    str(SAGE_DESK),
                    "run",
                    "--db",
                    f"sqlite:///{tmp}/run.db",
                    "--domain",
                    "northline",
                    "--cases",
                    cases,
                    "--repeats",
                    str(conversations // 50),
                    "--agent",
                    "openai/fake-agent-with-customer",
                    "--user",
                    "openai/fake-user",
                    "--api-base",
                    base_url,
                    "--concurrency",
                    str(concurrency),
                    "--quiet",
                ],
                capture_output=True,
                text=True,
                timeout=600,
                env=_as_installed(),
            )
            wall = time.perf_counter() - started
        stop.set()
        _, served, _ = port_out.get(timeout=30)
        server.join(timeout=10)
        if done.returncode != 0:
            sys.exit(f"sage-desk run failed (exit {done.returncode}):\n{done.stderr[-2000:]}")
        ideal = served * latency / concurrency
        print(f"  {served} completions, wall {wall:.2f} s, ideal {ideal:.2f} s: efficiency {ideal / wall:.2f}", flush=True)
        return ideal / wall

    median, figures, cpu = _median_of(runs, once)
    verdict = "ok" if median >= RUN_TARGET else "UNDER TARGET"
    print(
        f"sage-desk run, an LLM agent and an LLM customer, {conversations} conversations at concurrency {concurrency}, "
        f"{latency * 1000:.0f} ms a completion, whole process: efficiency {median:.2f} median of {runs} "
        f"(target >= {RUN_TARGET:g}): {verdict}  [{', '.join(f'{f:.2f}' for f in figures)}; CPU {cpu:.2f} s; {_load()}]",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--keep-dir", type=Path, help="build (or reuse) the databases in this folder")
    parser.add_argument("--only", choices=["report", "review", "window", "run"])
    parser.add_argument("--child-review", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child_review:
        child_review(args.child_review)
        return
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.keep_dir or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        if args.only in (None, "report"):
            time_report(database(folder, 50_000), args.runs)
        if args.only in (None, "review"):
            time_review_cold(database(folder, 100_000), args.runs)
        if args.only in (None, "window"):
            time_first_window(database(folder, 100_000), args.runs)
        if args.only in (None, "run"):
            time_llm_run(args.runs)


if __name__ == "__main__":
    main()
