"""CPU of the LLM client per completion, direct and through litellm (issue 22).

Sends N agent-sized completions (the Northline domain's tool schemas, a short conversation) at
concurrency C to the local fake OpenAI server, which runs in another process so its CPU is not
counted, and prints this process's CPU per completion for each transport: the direct path
(`openai/` at an api_base, posted with aiohttp; target < 1 ms) and litellm (what every provider
without the direct path takes). The harness around the client (engine, store, rules) is
benchmarks/bench_harness.py's business; this is the client alone.

    python benchmarks/bench_llm.py [--completions 1000] [--concurrency 64] [--latency 0.05] [--profile [tottime]]
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import multiprocessing
import os
import pstats
import resource
import sys
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from fakes import FakeOpenAIServer, FakeReply, FakeToolCall

from sage_desk.core.domain import load_domain
from sage_desk.core.llm import LlmClient

DIRECT_TARGET_MS = 1.0
PROFILE_LINES = 40
MESSAGES = [
    {"role": "system", "content": "You are Northline's support agent. Follow the procedure; use the tools."},
    {"role": "user", "content": "Hello, my order NL-11725 has not arrived. Can you check where it is?"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "call_0", "type": "function", "function": {"name": "lookup_order", "arguments": '{"order_id": "NL-11725"}'}}
        ],
    },
    {"role": "tool", "tool_call_id": "call_0", "content": '{"order_id": "NL-11725", "status": "shipped", "carrier": "DHL"}'},
]


def agent_script(request: dict) -> object:
    """A tool call and a line of text: what an agent's turn usually gets back."""
    return FakeReply(
        content="It left the warehouse yesterday.", tool_calls=[FakeToolCall("tag_ticket", {"intent": "order_status"})]
    )


def serve(latency: float, port_out: Any, stop: Any) -> None:
    """The fake server in its own process, so its CPU is not counted as the client's."""
    with FakeOpenAIServer(latency=latency) as server:
        server.script = agent_script
        port_out.put(server.base_url)
        stop.wait()
        port_out.put(len(server.requests))


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    return own.ru_utime + own.ru_stime


async def _completions(client: LlmClient, model: str, base_url: str, tools: list[dict[str, Any]], count: int) -> None:
    await asyncio.gather(
        *(client.complete(model, MESSAGES, tools=tools, api_base=base_url, api_key="bench") for _ in range(count))
    )


def measure(
    transport: str, model: str, base_url: str, tools: list[dict[str, Any]], count: int, concurrency: int, profile: str | None
) -> float:
    """CPU milliseconds per completion over `count` completions, after a warm-up of the same kind."""
    client = LlmClient(concurrency=concurrency, transport=transport)
    asyncio.run(_completions(client, model, base_url, tools, min(count, 50)))  # imports, caches, pools
    profiler = cProfile.Profile() if profile else None
    cpu0, wall0 = _cpu(), time.perf_counter()
    if profiler:
        profiler.enable()
    asyncio.run(_completions(client, model, base_url, tools, count))
    if profiler:
        profiler.disable()
    cpu, wall = _cpu() - cpu0, time.perf_counter() - wall0
    per_call = cpu / count * 1000
    print(f"{transport:>7}: {count} completions in {wall:.2f} s wall, {cpu:.2f} s CPU: {per_call:.2f} ms CPU per completion")
    if profiler:
        pstats.Stats(profiler).sort_stats(profile).print_stats(PROFILE_LINES)
    return per_call


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--completions", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--latency", type=float, default=0.05, help="seconds the fake server takes per completion")
    parser.add_argument("--model", default="openai/fake-agent")
    parser.add_argument("--transport", choices=("both", "auto", "litellm"), default="both")
    parser.add_argument(
        "--profile",
        nargs="?",
        const="cumulative",
        choices=("cumulative", "tottime"),
        help=f"print the {PROFILE_LINES} costliest calls of each transport (by cumulative or own time)",
    )
    args = parser.parse_args()
    tools = load_domain("northline").tool_schemas()
    ctx = multiprocessing.get_context("spawn")
    port_out, stop = ctx.Queue(), ctx.Event()
    server = ctx.Process(target=serve, args=(args.latency, port_out, stop), daemon=True)
    server.start()
    base_url = port_out.get(timeout=60)
    print(
        f"{args.model}, {len(tools)} tool schemas, {len(MESSAGES)} messages, concurrency {args.concurrency}, "
        f"fake server at {args.latency * 1000:.0f} ms in another process"
    )
    try:
        figures = {
            t: measure(t, args.model, base_url, tools, args.completions, args.concurrency, args.profile)
            for t in (("auto", "litellm") if args.transport == "both" else (args.transport,))
        }
    finally:
        stop.set()
        served = port_out.get(timeout=30)
        server.join(timeout=10)
    warm_ups = min(args.completions, 50) * len(figures)
    print(
        f"the fake server answered {served - warm_ups} requests for {args.completions * len(figures)} completions (warm-ups aside)"
    )
    if "auto" in figures:
        verdict = "ok" if figures["auto"] < DIRECT_TARGET_MS else "OVER TARGET"
        print(f"direct path {figures['auto']:.2f} ms CPU per completion (target < {DIRECT_TARGET_MS:g} ms): {verdict}")
    if "litellm" in figures:
        print(f"litellm path {figures['litellm']:.2f} ms CPU per completion")
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()
