"""API keys: the keyring round trip, which key a call gets, and that the client really sends it."""

from __future__ import annotations

import asyncio

import keyring
import pytest
from keyring.backends import fail

from sage_desk.core.llm import LlmClient
from sage_desk.core.llm import secrets as sec

KEY = "sk-test-keyring-0123456789"


def test_provider_and_variable_of_a_model():
    assert sec.provider_of("openai/gpt-4o-mini") == "openai"
    assert sec.provider_of("anthropic/claude-3-5-haiku") == "anthropic"
    assert sec.provider_of("gpt-4o") == "openai" and sec.provider_of("claude-3-opus") == "anthropic"
    assert sec.provider_of("some-local-thing") is None
    assert sec.env_var_for("openai") == "OPENAI_API_KEY"
    assert sec.env_var_for("together_ai") == "TOGETHERAI_API_KEY"
    assert sec.env_var_for("perplexity") == "PERPLEXITY_API_KEY"


def test_save_read_delete_in_the_keyring(memory_keyring):
    sec.save_key("OPENAI_API_KEY", f"  {KEY}\n")
    assert memory_keyring.passwords[(sec.SERVICE, "OPENAI_API_KEY")] == KEY
    assert sec.stored_key("OPENAI_API_KEY") == KEY and sec.key_source("OPENAI_API_KEY") == "keyring"
    assert sec.delete_key("OPENAI_API_KEY") is True
    assert sec.stored_key("OPENAI_API_KEY") is None and sec.key_source("OPENAI_API_KEY") is None
    assert sec.delete_key("OPENAI_API_KEY") is False


def test_bad_names_and_empty_keys_are_refused(memory_keyring):
    with pytest.raises(sec.SecretsError, match="not an environment variable"):
        sec.save_key("MY KEY", KEY)
    with pytest.raises(sec.SecretsError, match="empty"):
        sec.save_key("OPENAI_API_KEY", "  ")
    assert memory_keyring.passwords == {}


def test_the_environment_wins_over_the_keyring(memory_keyring, monkeypatch):
    sec.save_key("ANTHROPIC_API_KEY", KEY)
    assert sec.api_key_for("anthropic/claude-3-5-haiku") == KEY
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-from-env-123")
    assert sec.api_key_for("anthropic/claude-3-5-haiku") == "sk-from-env-123"
    assert sec.key_source("ANTHROPIC_API_KEY") == "environment"


def test_custom_api_base_gets_a_placeholder_only_when_no_key_exists(memory_keyring):
    assert sec.api_key_for("openai/llama3", "http://127.0.0.1:11434/v1") == sec.LOCAL_SERVER_PLACEHOLDER
    assert sec.api_key_for("openai/gpt-4o-mini") is None
    assert sec.api_key_for("ollama/llama3") is None
    sec.save_key("OPENAI_API_KEY", KEY)
    assert sec.api_key_for("openai/llama3", "http://127.0.0.1:11434/v1") == KEY


def test_missing_keys_names_the_variable_to_set(memory_keyring):
    models = ["baseline:oracle", "scripted", "openai/gpt-4o-mini", "ollama/llama3", "anthropic/claude-3-5-haiku"]
    assert sec.missing_keys(models) == {"openai/gpt-4o-mini": "OPENAI_API_KEY", "anthropic/claude-3-5-haiku": "ANTHROPIC_API_KEY"}
    assert sec.missing_keys(models, api_base="http://127.0.0.1:8000/v1") == {}
    sec.save_key("OPENAI_API_KEY", KEY)
    assert sec.missing_keys(models) == {"anthropic/claude-3-5-haiku": "ANTHROPIC_API_KEY"}


def test_without_a_keyring_saving_says_so_and_reading_finds_nothing(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    previous = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())
    try:
        usable, why = sec.keyring_status()
        assert not usable and "no system keyring" in why and "environment variables" in why
        with pytest.raises(sec.SecretsError, match="cannot save OPENAI_API_KEY: no system keyring"):
            sec.save_key("OPENAI_API_KEY", KEY)
        assert sec.stored_key("OPENAI_API_KEY") is None
        monkeypatch.setenv("OPENAI_API_KEY", KEY)
        assert sec.api_key_for("openai/gpt-4o-mini") == KEY
    finally:
        keyring.set_keyring(previous)


def test_the_client_sends_the_stored_key(memory_keyring, fake_openai):
    sec.save_key("OPENAI_API_KEY", KEY)
    reply = asyncio.run(
        LlmClient().complete("openai/fake", [{"role": "user", "content": "hi"}], api_base=fake_openai.base_url, max_retries=0)
    )
    assert reply.content == "echo: hi"
    assert fake_openai.headers[-1]["authorization"] == f"Bearer {KEY}"


def test_the_client_sends_a_placeholder_to_a_local_server_without_a_key(memory_keyring, fake_openai):
    asyncio.run(
        LlmClient().complete("openai/fake", [{"role": "user", "content": "hi"}], api_base=fake_openai.base_url, max_retries=0)
    )
    assert fake_openai.headers[-1]["authorization"] == f"Bearer {sec.LOCAL_SERVER_PLACEHOLDER}"
