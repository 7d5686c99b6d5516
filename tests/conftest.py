"""Shared fixtures for the whole test tree.

`tests/` has no `__init__.py`, so pytest puts this folder on `sys.path` and `fakes` imports as a
top-level package.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator

# Tests never read or write the person's own data folder (databases, settings, sample copies).
os.environ["SAGE_DESK_HOME"] = tempfile.mkdtemp(prefix="sage-desk-tests-")

import pytest
from fakes import FakeOpenAIServer
from fakes.memory_keyring import MemoryKeyring


@pytest.fixture
def fake_openai() -> Iterator[FakeOpenAIServer]:
    """A fake OpenAI-compatible server on 127.0.0.1, stopped when the test ends.

    Configure it inside the test: `fake_openai.script = ...`, `.latency = 0.01`,
    `.push_faults("429", "timeout")`, `.fault_rates = {"500": 0.1}`, `.hold_seconds = 1`.
    Point a client at `fake_openai.base_url` with `model="openai/<anything>"`.
    """
    with FakeOpenAIServer(hold_seconds=2.0) as server:
        yield server


@pytest.fixture
def memory_keyring(monkeypatch: pytest.MonkeyPatch) -> Iterator[MemoryKeyring]:
    """A fresh in-memory keyring, with no provider key in the environment."""
    import keyring

    from sage_desk.core.llm import secrets

    for provider in secrets.PROVIDERS:
        monkeypatch.delenv(provider.env_var, raising=False)
    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(previous)


@pytest.fixture(scope="session")
def northline():
    """The shipped Northline domain, loaded once."""
    from sage_desk.core.domain import load_domain

    return load_domain("northline")


@pytest.fixture(scope="session")
def northline_cases(northline):
    """Northline's case suite by id."""
    from sage_desk.core.cases.suite import load_suite

    return {c.id: c for c in load_suite(northline.cases_path)}
