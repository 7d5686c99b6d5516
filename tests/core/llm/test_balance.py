"""Several endpoints behind one API base (core/llm/balance.py): spread, cap, take-outs and their figures,
against real local fake servers over both transports."""

from __future__ import annotations

import asyncio
import math

import pytest
from fakes import FakeOpenAIServer

from sage_desk.core.llm import LlmClient, balance
from sage_desk.core.llm.balance import EndpointStats, join_bases, merge_stats, split_bases, summarize

MODEL = "openai/fake-model"
USER = [{"role": "user", "content": "hi"}]


@pytest.fixture(autouse=True)
def _fresh_figures():
    balance.take_stats()
    yield
    balance.set_endpoint_concurrency(None)
    balance.take_stats()


async def _many(client: LlmClient, api_base: str, n: int) -> list[str | None]:
    replies = await asyncio.gather(*(client.complete(MODEL, USER, api_base=api_base, api_key="x") for _ in range(n)))
    return [r.content for r in replies]


def test_an_api_base_names_one_or_several_endpoints():
    assert split_bases("http://a:1/v1/, http://b:2/v1,http://a:1/v1") == ["http://a:1/v1", "http://b:2/v1"]
    assert split_bases(None) == [] and split_bases("") == []
    assert join_bases(["http://a:1/v1", "http://b:2/v1,http://c:3/v1"]) == "http://a:1/v1,http://b:2/v1,http://c:3/v1"
    assert join_bases(None) is None and join_bases([]) is None


def test_latency_figures_of_a_known_sample():
    # Worked by hand: 19 answers at 100 ms and one at 1000 ms: mean 145, median 100, p95 (the 19th of 20) 100.
    stats = EndpointStats()
    for ms in [100.0] * 19 + [1000.0]:
        stats.answered(ms)
    stats.errors, stats.requests = 2, stats.requests + 2
    figures = stats.summary()
    assert figures["requests"] == 22 and figures["errors"] == 2 and figures["taken_out"] == 0
    assert figures["latency_ms"]["mean"] == 145.0
    assert math.isclose(figures["latency_ms"]["median"], 100, rel_tol=0.02)
    assert math.isclose(figures["latency_ms"]["p95"], 100, rel_tol=0.02)
    assert EndpointStats().summary()["latency_ms"] is None  # nothing answered: no latency, not zero


def test_two_processes_figures_add_up():
    one, two = EndpointStats(), EndpointStats()
    one.answered(50.0)
    two.answered(150.0)
    two.taken_out = 1
    stored = merge_stats(None, {"http://a/v1": one})
    stored = merge_stats(stored, {"http://a/v1": two, "http://b/v1": EndpointStats(requests=3, errors=3)})
    figures = summarize(stored)
    assert figures["http://a/v1"]["requests"] == 2 and figures["http://a/v1"]["taken_out"] == 1
    assert figures["http://a/v1"]["latency_ms"]["mean"] == 100.0
    assert figures["http://b/v1"] == {"requests": 3, "errors": 3, "taken_out": 0, "latency_ms": None}


def test_calls_spread_over_two_endpoints(client: LlmClient):
    with FakeOpenAIServer(latency=0.05) as a, FakeOpenAIServer(latency=0.05) as b:
        replies = asyncio.run(_many(client, f"{a.base_url},{b.base_url}", 40))
        assert replies == ["echo: hi"] * 40
        assert len(a.requests) + len(b.requests) == 40
        assert len(a.requests) >= 13 and len(b.requests) >= 13  # least busy first: each takes about half
    figures = balance.take_stats()
    assert {url: f.requests for url, f in figures.items()} == {a.base_url: len(a.requests), b.base_url: len(b.requests)}


def test_calls_one_after_another_still_spread():
    # Nothing in flight when each call starts: ties go to the endpoint sent fewest, not always the first.
    client = LlmClient()
    with FakeOpenAIServer() as a, FakeOpenAIServer() as b:

        async def one_by_one() -> None:
            for _ in range(6):
                await client.complete(MODEL, USER, api_base=f"{a.base_url},{b.base_url}", api_key="x")

        asyncio.run(one_by_one())
        assert (len(a.requests), len(b.requests)) == (3, 3)


def test_a_failing_endpoint_is_taken_out_and_its_calls_finish_on_the_other(client: LlmClient):
    with FakeOpenAIServer(faults=["503"] * 4, latency=0.02) as bad, FakeOpenAIServer(latency=0.02) as good:
        replies = asyncio.run(_many(client, f"{bad.base_url},{good.base_url}", 30))
        assert replies == ["echo: hi"] * 30  # no call gave up, though every one of `bad`'s first answers failed
    figures = balance.take_stats()
    assert figures[bad.base_url].errors >= 1 and figures[bad.base_url].taken_out >= 1
    assert figures[good.base_url].errors == 0 and figures[good.base_url].taken_out == 0
    assert figures[good.base_url].requests >= 15


def test_an_unreachable_endpoint_loses_nothing(client: LlmClient):
    dead = FakeOpenAIServer()
    dead_url = dead.base_url  # bound, never started: the connection is refused
    dead.stop()
    with FakeOpenAIServer() as good:
        replies = asyncio.run(_many(client, f"{dead_url},{good.base_url}", 10))
        assert replies == ["echo: hi"] * 10 and len(good.requests) == 10
    figures = balance.take_stats()
    assert figures[dead_url].errors >= 1 and figures[dead_url].taken_out >= 1


def test_the_endpoint_cap_holds(client: LlmClient):
    balance.set_endpoint_concurrency(2)
    with FakeOpenAIServer(latency=0.05) as a, FakeOpenAIServer(latency=0.05) as b:
        assert asyncio.run(_many(client, f"{a.base_url},{b.base_url}", 12)) == ["echo: hi"] * 12
        assert a.max_in_flight <= 2 and b.max_in_flight <= 2
        assert len(a.requests) + len(b.requests) == 12


def test_one_endpoint_is_never_taken_out(client: LlmClient):
    # A single endpoint backs off call by call, as before: nothing to send the retries to instead.
    with FakeOpenAIServer(faults=["503", "503"]) as only:
        assert asyncio.run(_many(client, only.base_url, 4)) == ["echo: hi"] * 4
    figures = balance.take_stats()[only.base_url]
    assert (figures.requests, figures.errors, figures.taken_out) == (6, 2, 0)


def test_an_endpoint_back_from_a_take_out_gets_one_call_until_it_answers():
    async def scenario() -> list[str]:
        pool = balance.Balancer()
        a, b = pool.endpoint("http://a/v1"), pool.endpoint("http://b/v1")
        b.in_flight = 5  # busy, but up
        first = await pool.acquire(("http://a/v1",))
        pool.release(first, ok=False, take_out_s=0.01)  # a fails: out for 10 ms
        assert a.failures == 1 and stats_of("http://a/v1").taken_out == 1
        await asyncio.sleep(0.02)  # back
        picks = [(await pool.acquire(("http://a/v1", "http://b/v1"))).url for _ in range(3)]
        pool.release(a, ok=True)  # the trial call answered: a takes its share again
        picks.append((await pool.acquire(("http://a/v1", "http://b/v1"))).url)
        return picks

    assert asyncio.run(scenario()) == ["http://a/v1", "http://b/v1", "http://b/v1", "http://a/v1"]


def stats_of(url: str) -> EndpointStats:
    return balance.stats_for(url)
