"""One PostgreSQL run played by one `sage-desk run --join` process, then by two (issue 38).

Times, as whole processes (start to exit), one joiner on a run created with `run --create-only`,
then two joiners started together on a second run of the same shape, against the local fake model
server at a fixed latency. Prints the wall-time cut beside its target (at least a third), and
whether any conversation was played twice: the agent is an HTTP agent at the fake server, whose
every request names its conversation, so each conversation's openings (its agent's first request)
are counted. Every conversation must also end finished, with its transcript.

    python benchmarks/bench_join.py [--pg URL] [--conversations 324] [--concurrency 8] [--latency 0.2]

The server is SAGE_DESK_TEST_PG_URL (or --pg, or the URL in /tmp/pgurl); start one with
`.ci/postgres.sh DIR`. The benchmark makes a database of its own there and drops it after.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from fakes import FakeOpenAIServer, FakeReply, FakeToolCall
from helpers import own_pg_database

from sage_desk.core.store import Store

TARGET_CUT = 1 / 3
CASES = 162  # northline's suite


def agent(request: dict) -> object:
    """Two requests per conversation: look the order up and tag it, then close the ticket."""
    if not any(m["role"] == "tool" for m in request["messages"]):
        opening = next(m["content"] for m in request["messages"] if m["role"] == "user")
        order = next((w.strip(".,:;") for w in opening.split() if w.startswith("NL-")), "NL-0")
        return [FakeToolCall("lookup_order", {"order_id": order}), FakeToolCall("tag_ticket", {"intent": "order_status"})]
    return FakeReply(content="Done.", tool_calls=[FakeToolCall("close_ticket", {"outcome": "resolved", "summary": "ok"})])


def openings(requests: list[dict]) -> Counter:
    """How often each conversation was started: its agent's requests without a tool result yet."""
    return Counter(r.get("conversation_id") for r in requests if not any(m["role"] == "tool" for m in r["messages"]))


def server_url(given: str | None) -> str:
    url = given or os.environ.get("SAGE_DESK_TEST_PG_URL")
    if not url and Path("/tmp/pgurl").exists():
        url = Path("/tmp/pgurl").read_text().strip()
    if not url:
        sys.exit("bench_join: no PostgreSQL server: give --pg URL or set SAGE_DESK_TEST_PG_URL (.ci/postgres.sh DIR starts one)")
    return url


def sage_desk(home: Path, *args: str) -> subprocess.Popen:
    env = {**os.environ, "SAGE_DESK_HOME": str(home)}
    return subprocess.Popen(
        [sys.executable, "-m", "sage_desk", "run", *args], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def create(db: str, home: Path, agent_url: str, repeats: int, cases: str | None, concurrency: int) -> str:
    args = [
        "--db",
        db,
        "--domain",
        "northline",
        "--agent",
        agent_url,
        "--agent-param",
        "model=fake-agent",
        "--repeats",
        str(repeats),
        "--concurrency",
        str(concurrency),
        "--create-only",
        "--quiet",
    ]
    proc = sage_desk(home, *args, *(["--cases", cases] if cases else []))
    out, err = proc.communicate(timeout=300)
    if proc.returncode != 0:
        sys.exit(f"bench_join: run --create-only failed: {err.strip()}")
    return out.strip().splitlines()[-1]


def play(db: str, home: Path, run_id: str, joiners: int) -> float:
    """Start `joiners` `run --join` processes at once; the wall time until the last one exits."""
    start = time.perf_counter()
    procs = [sage_desk(home, "--db", db, "--join", run_id, "--quiet") for _ in range(joiners)]
    results = [p.communicate(timeout=1800) for p in procs]
    wall = time.perf_counter() - start
    for proc, (_, err) in zip(procs, results, strict=True):
        if proc.returncode != 0:
            sys.exit(f"bench_join: a joiner failed (exit {proc.returncode}): {err.strip()[-500:]}")
        if os.environ.get("BENCH_JOIN_VERBOSE"):
            print(f"    joiner {proc.pid}: {err.strip().splitlines()[-1]}", file=sys.stderr)
    return wall


def check(db: str, run_id: str, opened: Counter) -> tuple[int, int, int]:
    """(conversations, finished with a transcript, played more than once)."""
    with Store(db) as store:
        rows = store.conversations(run_id)
        events = store.events_many([r.id for r in rows])
        whole = sum(1 for r in rows if r.status.value == "finished" and events[r.id])
    twice = sum(1 for r in rows if opened.get(r.id, 0) > 1)
    return len(rows), whole, twice


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pg", metavar="URL", help="a PostgreSQL server (default: SAGE_DESK_TEST_PG_URL, /tmp/pgurl)")
    parser.add_argument("--conversations", type=int, default=324, help="rounded to whole repeats of northline's 162 cases")
    parser.add_argument("--concurrency", type=int, default=8, help="each joiner's --concurrency (the run's)")
    parser.add_argument("--latency", type=float, default=0.2, help="seconds per completion at the fake server")
    args = parser.parse_args()
    repeats = max(1, round(args.conversations / CASES))
    cases = None if args.conversations >= CASES else ",".join(f"nl-{i:03d}" for i in range(1, args.conversations + 1))
    url = server_url(args.pg)
    home = Path(os.environ.get("TMPDIR", "/tmp")) / f"bench_join_home_{os.getpid()}"
    with FakeOpenAIServer(agent, latency=args.latency) as server, own_pg_database(url, "sage_bench_join_") as db:
        agent_url = f"{server.base_url}/chat/completions"
        walls, checks = {}, {}
        for joiners in (1, 2):
            run_id = create(db, home, agent_url, repeats, cases, args.concurrency)
            before = len(server.requests)
            walls[joiners] = play(db, home, run_id, joiners)
            checks[joiners] = check(db, run_id, openings(server.requests[before:]))
    n = checks[1][0]
    print(
        f"One PostgreSQL run of {n} conversations (HTTP agent at the fake server, {args.latency:g} s per completion, "
        f"--concurrency {args.concurrency} per process; load {os.getloadavg()[0]:.1f}):"
    )
    for joiners in (1, 2):
        total, whole, twice = checks[joiners]
        print(
            f"  {joiners} x run --join: {walls[joiners]:.1f} s wall (whole processes, start to exit); "
            f"{whole}/{total} finished with a transcript, {twice} played twice"
        )
    cut = 1 - walls[2] / walls[1]
    ok = cut >= TARGET_CUT and all(c[2] == 0 and c[1] == c[0] for c in checks.values())
    print(
        f"  wall-time cut with two joiners: {cut:.0%} (target >= {TARGET_CUT:.0%}); no conversation played twice: "
        f"{'yes' if all(c[2] == 0 for c in checks.values()) else 'NO'}  {'ok' if ok else 'MISSED'}"
    )


if __name__ == "__main__":
    main()
