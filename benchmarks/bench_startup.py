"""Time to the first window of the installed app (issue 22: target < 1.5 s).

Starts `sage-desk` from the virtualenv beside this checkout (or --command) offscreen, each time with
a fresh SAGE_DESK_HOME, once to warm the disk cache and then --runs times. The app, started with
SAGE_DESK_EXIT_AFTER_FIRST_WINDOW=1, prints the seconds since its process started when the main
window first paints, and the heavy libraries loaded by then; this prints the median beside the
target, each run's wall and CPU time, and the heavy libraries, so a regression shows.

    python benchmarks/bench_startup.py [--runs 3] [--command PATH/TO/sage-desk]
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

TARGET_S = 1.5
DEFAULT_COMMAND = Path(__file__).resolve().parents[1] / ".venv" / "bin" / "sage-desk"


def start_once(command: str) -> tuple[float, float, float, str]:
    """One start: (seconds to the first window as the app measured it, wall seconds to exit, CPU seconds, heavy modules)."""
    with tempfile.TemporaryDirectory(prefix="sage-desk-bench-") as home:
        env = dict(os.environ, QT_QPA_PLATFORM="offscreen", SAGE_DESK_HOME=home, SAGE_DESK_EXIT_AFTER_FIRST_WINDOW="1")
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        began = time.perf_counter()
        done = subprocess.run([command], env=env, capture_output=True, text=True, timeout=120)
        wall = time.perf_counter() - began
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    line = next((ln for ln in done.stdout.splitlines() if ln.startswith("first window ")), None)
    if done.returncode != 0 or line is None:
        sys.exit(f"{command} did not report its first window (exit {done.returncode}):\n{done.stdout}{done.stderr}")
    # "first window 1.234 s; heavy modules loaded: none"
    seconds = float(line.split()[2])
    heavy = line.split("heavy modules loaded:", 1)[1].strip()
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return seconds, wall, cpu, heavy


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--command", default=str(DEFAULT_COMMAND), help="the installed sage-desk to start")
    args = parser.parse_args()
    start_once(args.command)  # warm-up: the disk cache, bytecode written if it was missing
    results = [start_once(args.command) for _ in range(args.runs)]
    for number, (seconds, wall, cpu, heavy) in enumerate(results, start=1):
        print(f"run {number}: first window {seconds:.2f} s, process {wall:.2f} s wall, {cpu:.2f} s CPU; heavy modules: {heavy}")
    median = statistics.median(r[0] for r in results)
    verdict = "ok" if median < TARGET_S else "OVER TARGET"
    print(f"first window {median:.2f} s median of {args.runs} (target < {TARGET_S} s): {verdict}")
    print(f"CPU {statistics.median(r[2] for r in results):.2f} s median of {args.runs} per start (the process to its exit)")
    heavy_seen = sorted({name for r in results for name in r[3].split() if name != "none"})
    print(f"heavy modules before the first window: {' '.join(heavy_seen) or 'none'}")
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs (a busy machine slows every figure)")


if __name__ == "__main__":
    main()
