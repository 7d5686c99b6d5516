"""Fixtures for the LLM client tests: a client that backs off in milliseconds, over each transport."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from sage_desk.core.llm import LlmClient, unregister_prices

FAKE_MODEL = "openai/fake-model"


@pytest.fixture(params=["auto", "litellm"], ids=["direct", "litellm"])
def client(request: pytest.FixtureRequest) -> LlmClient:
    """Backoff measured in milliseconds so retry tests stay fast; every test runs over both transports.

    "auto" posts `openai/` models at an api_base straight to the endpoint; "litellm" sends them through litellm.
    """
    return LlmClient(backoff_base=0.001, backoff_max=0.01, rng=random.Random(0), transport=request.param)


@pytest.fixture(autouse=True)
def _no_leftover_prices() -> Iterator[None]:
    yield
    unregister_prices(FAKE_MODEL)
