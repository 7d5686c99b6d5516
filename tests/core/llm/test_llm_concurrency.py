"""Many conversations at once: the fake keeps up, the per-provider limit holds."""

from __future__ import annotations

import asyncio
import time

from fakes import FakeOpenAIServer

from sage_desk.core.llm import LlmClient

MODEL = "openai/fake-model"


async def _many(client: LlmClient, server: FakeOpenAIServer, n: int) -> list[str | None]:
    calls = [
        client.complete(MODEL, [{"role": "user", "content": f"m{i}"}], api_base=server.base_url, api_key="x") for i in range(n)
    ]
    return [r.content for r in await asyncio.gather(*calls)]


def test_64_concurrent_calls(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.latency = 0.5  # wide enough that all 64 are in flight together even on a loaded machine
    client = LlmClient(concurrency=100)
    started = time.perf_counter()
    contents = asyncio.run(_many(client, fake_openai, 64))
    elapsed = time.perf_counter() - started
    assert contents == [f"echo: m{i}" for i in range(64)]
    assert fake_openai.max_in_flight >= 48  # they really overlapped (64 x 0.5 s serially would be 32 s)
    assert elapsed < 5.0


def test_the_per_provider_limit_holds(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.latency = 0.02
    client = LlmClient(concurrency=100, limits={fake_openai.base_url: 4})
    asyncio.run(_many(client, fake_openai, 24))
    assert fake_openai.max_in_flight == 4
