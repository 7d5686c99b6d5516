"""Fixtures for the LLM client tests: a client that backs off in milliseconds."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from sage_desk.core.llm import LlmClient, unregister_prices

FAKE_MODEL = "openai/fake-model"


@pytest.fixture
def client() -> LlmClient:
    """Backoff measured in milliseconds so retry tests stay fast."""
    return LlmClient(backoff_base=0.001, backoff_max=0.01, rng=random.Random(0))


@pytest.fixture(autouse=True)
def _no_leftover_prices() -> Iterator[None]:
    yield
    unregister_prices(FAKE_MODEL)
