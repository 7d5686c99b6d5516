"""A big offline run's memory, and what other readers see while it plays (issue 22).

Plays Northline with the three offline baselines (oracle, complier, escalator) and the scripted
customer, rules as verdicts, through `sage-desk run` in a subprocess against a temporary SQLite
file: 162 cases x 3 agents x 42 repeats = 20,412 conversations by default. While it plays, a
second `Store` opened on the same file counts finished conversations; the child's peak resident
memory is read from /proc (VmHWM) and, once it has ended, from its rusage. A reference run of
one repeat (486 conversations) first shows that the peak does not grow with the run. Prints,
each figure beside its target:
- peak RSS of the big run (target < 400 MB) and of the reference run;
- finished conversations another reader saw while the run played (target > 0);
- throughput in conversations a second (the run's own clock, as `sage-desk run` prints it).

    python benchmarks/bench_memory.py [--conversations 20412] [--concurrency 8] [--keep DB_FILE]
    python benchmarks/bench_memory.py --conversations 2000      # a quick run
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from sage_desk.core.store import Store

AGENTS = ["baseline:oracle", "baseline:complier", "baseline:escalator"]
SUITE = 162  # Northline's cases
PEAK_RSS_MB = 400
"""Issue 22's target for a 20,412-conversation offline run."""
POLL_S = 0.05


def shape(conversations: int) -> tuple[int, list[str] | None]:
    """Repeats, and the case ids when fewer than the whole suite, for about `conversations` conversations."""
    per_repeat = SUITE * len(AGENTS)
    if conversations >= per_repeat:
        return max(1, round(conversations / per_repeat)), None
    return 1, [f"nl-{i:03d}" for i in range(1, max(1, conversations // len(AGENTS)) + 1)]


def _hwm_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as handle:
            return next((int(line.split()[1]) for line in handle if line.startswith("VmHWM")), 0)
    except OSError:
        return 0


def _finished(reader: Store) -> tuple[int, int] | None:
    """(finished, total) of the newest run, as another reader of the database sees it."""
    runs = reader.list_runs()
    return (runs[0].counts.get("finished", 0), runs[0].total) if runs else None


def play(db: Path, conversations: int, concurrency: int) -> dict[str, float]:
    """One `sage-desk run` in a subprocess: its peak RSS, what a second reader saw mid-run, its throughput."""
    repeats, cases = shape(conversations)
    command = [
        sys.executable,
        "-m",
        "sage_desk",
        "run",
        "--db",
        str(db),
        "--domain",
        "northline",
        "--quiet",
        *[part for agent in AGENTS for part in ("--agent", agent)],
        "--repeats",
        str(repeats),
        "--concurrency",
        str(concurrency),
        *(["--cases", ",".join(cases)] if cases else []),
    ]
    env = {**os.environ, "SAGE_DESK_HOME": str(db.parent)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    started = time.perf_counter()
    child = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    hwm, seen, first, reader = 0, 0, 0, None
    while child.poll() is None:
        hwm = max(hwm, _hwm_kb(child.pid))
        if reader is None and db.exists():
            reader = Store(f"sqlite:///{db}")
        counts = _finished(reader) if reader is not None else None
        if counts and child.poll() is None and counts[0] < counts[1]:
            seen = max(seen, counts[0])  # still playing: these were committed while it ran
            first = first or counts[0]
        time.sleep(POLL_S)
    out, err = child.communicate()
    wall = time.perf_counter() - started
    if child.returncode != 0:
        raise SystemExit(f"sage-desk run failed ({child.returncode}):\n{err}")
    rusage = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # KB on Linux; the largest child so far
    played = re.search(r"(\d+) conversations, .* ([\d.]+)s", err)
    done, run_s = (int(played.group(1)), float(played.group(2))) if played else (0, wall)
    if reader is not None:
        reader.close()
    return {
        "conversations": done,
        "peak_mb": max(hwm, rusage if rusage > before else 0) / 1024,
        "seen": seen,
        "first": first,
        "run_s": run_s,
        "wall_s": wall,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--conversations", type=int, default=20_412, help="about how many conversations (default 20,412)")
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--keep", metavar="DB_FILE", help="play into this SQLite file and keep it")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        print(
            f"Offline run: northline x {', '.join(AGENTS)} x scripted customer, rules as verdicts, "
            f"concurrency {args.concurrency}, `sage-desk run` in a subprocess"
        )
        small = play(Path(tmp) / "reference.db", SUITE * len(AGENTS), args.concurrency)
        db = Path(args.keep).resolve() if args.keep else Path(tmp) / "bench.db"
        big = play(db, args.conversations, args.concurrency)
    target = f"(target < {PEAK_RSS_MB} MB)" if big["conversations"] >= 20_000 else f"(target < {PEAK_RSS_MB} MB at 20,412)"
    print(
        f"  peak RSS {big['peak_mb']:.0f} MB {target} for {big['conversations']:,} conversations; "
        f"{small['peak_mb']:.0f} MB for {small['conversations']:,} (flat: the peak does not grow with the run)"
    )
    print(
        f"  seen mid-run by another reader: {big['seen']:,} finished (target > 0); the first it saw: "
        f"{big['first']:,} of {big['conversations']:,}"
    )
    print(
        f"  throughput {big['conversations'] / big['run_s']:.0f} conversations/s "
        f"({big['run_s']:.1f} s of play, {big['wall_s']:.1f} s with start-up and the run's creation)"
    )


if __name__ == "__main__":
    main()
