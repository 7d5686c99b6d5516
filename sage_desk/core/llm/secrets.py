"""API keys: kept in the system keyring, found for a model at call time, never written anywhere else.

A key is named by the environment variable its provider reads (`OPENAI_API_KEY`,
`ANTHROPIC_API_KEY`, ...) and stored in the system keyring under the service `sage-desk` with
that name as the user name. Nothing here writes a key to the database, settings, logs or a run's
configuration; `RunSpec` has no field for one.

Which key a call gets (`api_key_for`), first match wins:
  1. an `api_key` the caller passes explicitly;
  2. the environment variable (`OPENAI_API_KEY=... sage-desk run ...`): the environment wins over
     the keyring, so a shell or CI job can override a stored key without touching it;
  3. the key stored in the keyring;
  4. with a custom API base (Ollama, vLLM, LM Studio ...) and no key at all, a placeholder:
     local servers ignore it, and the OpenAI SDK refuses to send a request without one.
Otherwise no key is passed and litellm reports the missing credential itself.

With a custom API base the provider's key (2 or 3) is sent to that server, as litellm does
with an environment variable: point `--api-base` only at servers you trust with it.

Where no keyring backend works (a headless machine, CI), reading finds nothing and saving raises
`SecretsError` saying so; environment variables keep working.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from types import ModuleType

from sage_desk.core.errors import SageError

SERVICE = "sage-desk"
LOCAL_SERVER_PLACEHOLDER = "sk-no-key-needed"  # sent only to a custom API base when no key exists


class SecretsError(SageError):
    """A key could not be read, saved or removed."""


@dataclass(frozen=True)
class Provider:
    """A model provider and the environment variable that holds its key."""

    id: str  # litellm's model prefix: openai in openai/gpt-4o-mini
    label: str
    env_var: str


PROVIDERS: tuple[Provider, ...] = (
    Provider("openai", "OpenAI", "OPENAI_API_KEY"),
    Provider("anthropic", "Anthropic", "ANTHROPIC_API_KEY"),
    Provider("gemini", "Google Gemini", "GEMINI_API_KEY"),
    Provider("mistral", "Mistral", "MISTRAL_API_KEY"),
    Provider("groq", "Groq", "GROQ_API_KEY"),
    Provider("deepseek", "DeepSeek", "DEEPSEEK_API_KEY"),
    Provider("openrouter", "OpenRouter", "OPENROUTER_API_KEY"),
    Provider("together_ai", "Together AI", "TOGETHERAI_API_KEY"),
    Provider("xai", "xAI", "XAI_API_KEY"),
    Provider("azure", "Azure OpenAI", "AZURE_API_KEY"),
)
_BY_ID = {p.id: p for p in PROVIDERS}
# Providers that authenticate another way (no key, cloud credentials): never looked up, never missing.
KEYLESS = frozenset({"ollama", "ollama_chat", "lm_studio", "bedrock", "vertex_ai", "sagemaker", "hosted_vllm"})
# Model names litellm accepts without a prefix, by how they start.
_BARE_NAMES = (
    ("gpt-", "openai"),
    ("o1", "openai"),
    ("o3", "openai"),
    ("o4", "openai"),
    ("chatgpt", "openai"),
    ("claude", "anthropic"),
    ("gemini", "gemini"),
    ("mistral", "mistral"),
    ("codestral", "mistral"),
)


def provider_of(model: str) -> str | None:
    """The provider a litellm model string names (`anthropic/claude-3-5` -> anthropic), None if unknown."""
    if "/" in model:
        return model.split("/", 1)[0].strip().lower() or None
    for start, provider in _BARE_NAMES:
        if model.lower().startswith(start):
            return provider
    return None


def env_var_for(provider: str) -> str:
    """The environment variable holding a provider's key: the known name, else `<PROVIDER>_API_KEY`."""
    known = _BY_ID.get(provider)
    return known.env_var if known else f"{provider.upper().replace('-', '_')}_API_KEY"


def is_valid_env_var(name: str) -> bool:
    """Whether `name` can name a key: letters, digits and underscores, not starting with a digit."""
    return bool(name) and name.replace("_", "").isalnum() and name.isascii() and not name[0].isdigit()


# -- the keyring ------------------------------------------------------------------------------

_lock = threading.Lock()
_cache: dict[tuple[object, str], str | None] = {}  # (backend, env var) -> key, so model calls skip D-Bus


def _keyring() -> ModuleType:  # the keyring module, imported when first needed (it probes backends)
    import keyring

    return keyring


def keyring_status() -> tuple[bool, str]:
    """(whether keys can be saved here, a sentence naming the backend or what is missing)."""
    try:
        backend = _keyring().get_keyring()
    except Exception as exc:  # a broken backend is reported, not raised
        return False, f"the system keyring could not be opened: {exc}"
    name = f"{type(backend).__module__.removeprefix('keyring.backends.')}.{type(backend).__name__}"
    if _is_unusable(backend):
        return False, (
            f"no system keyring is available on this machine (backend: {name}); set keys as environment variables instead"
        )
    return True, f"keys are kept in the system keyring (backend: {name})"


def _is_unusable(backend: object) -> bool:
    from keyring.backends import fail

    priority = getattr(backend, "priority", 1)
    return isinstance(backend, fail.Keyring) or (isinstance(priority, int | float) and priority <= 0)


def stored_key(env_var: str) -> str | None:
    """The key saved in the keyring under `env_var`, or None (also when no keyring works)."""
    keyring = _keyring()
    try:
        backend = keyring.get_keyring()
    except Exception:  # no keyring means no stored key; the environment still works
        return None
    slot = (backend, env_var)
    with _lock:
        if slot in _cache:
            return _cache[slot]
    try:
        value = backend.get_password(SERVICE, env_var) or None
    except Exception:  # a locked or absent keyring reads as "no key"
        value = None
    with _lock:
        _cache[slot] = value
    return value


def save_key(env_var: str, value: str) -> None:
    """Save a key in the keyring; SecretsError when no keyring can hold it."""
    if not is_valid_env_var(env_var):
        raise SecretsError(f"{env_var!r} is not an environment variable name (letters, digits, _)")
    value = value.strip()
    if not value:
        raise SecretsError(f"the key for {env_var} is empty; use remove to delete a stored key")
    usable, why = keyring_status()
    if not usable:
        raise SecretsError(f"cannot save {env_var}: {why}")
    keyring = _keyring()
    try:
        keyring.set_password(SERVICE, env_var, value)
    except Exception as exc:  # reported with the variable's name, never the key
        raise SecretsError(f"the keyring refused to save {env_var}: {type(exc).__name__}") from None
    _forget(env_var)


def delete_key(env_var: str) -> bool:
    """Remove a stored key; False when there was none."""
    from keyring.errors import PasswordDeleteError

    try:
        _keyring().delete_password(SERVICE, env_var)
        removed = True
    except PasswordDeleteError:
        removed = False
    except Exception as exc:
        raise SecretsError(f"the keyring refused to remove {env_var}: {type(exc).__name__}") from None
    finally:
        _forget(env_var)
    return removed


def _forget(env_var: str) -> None:
    with _lock:
        for slot in [s for s in _cache if s[1] == env_var]:
            del _cache[slot]


# -- which key a call uses --------------------------------------------------------------------


def key_source(env_var: str) -> str | None:
    """Where the key for `env_var` would come from: "environment", "keyring" or None."""
    if os.environ.get(env_var):
        return "environment"
    if stored_key(env_var):
        return "keyring"
    return None


def api_key_for(model: str, api_base: str | None = None) -> str | None:
    """The key a litellm call for `model` should pass (see the module docstring for the rule)."""
    provider = provider_of(model)
    key = None
    if provider is not None and provider not in KEYLESS:
        env_var = env_var_for(provider)
        key = os.environ.get(env_var) or stored_key(env_var)
    if key is None and api_base:
        return LOCAL_SERVER_PLACEHOLDER
    return key


def missing_key_for(model: str, api_base: str | None = None) -> str | None:
    """The variable to set when `model` is of a known provider, has no API base and no key anywhere; else None."""
    return missing_keys([model], api_base).get(model)


def where_to_set(env_var: str) -> str:
    """The sentence telling a user where a key goes."""
    return (
        f"set {env_var} in the environment, or save it in the system keyring "
        f"(SAGE Desk: Runs > API Keys..., or keyring service {SERVICE!r}, entry {env_var!r})"
    )


def missing_keys(models: list[str], api_base: str | None = None) -> dict[str, str]:
    """Models of a known provider with no key anywhere: model -> the variable to set.

    Empty with a custom API base (the server decides), for baselines, `scripted`, keyless
    and unknown providers (litellm will say what it needs).
    """
    if api_base:
        return {}
    missing = {}
    for model in models:
        provider = provider_of(model)
        if model.startswith("baseline:") or model in ("scripted", "none") or provider not in _BY_ID:
            continue
        env_var = env_var_for(provider)  # type: ignore[arg-type]
        if key_source(env_var) is None:
            missing[model] = env_var
    return missing
