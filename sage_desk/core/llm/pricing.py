"""What a call cost: prices you registered, else litellm's price map, else 0.0.

Registered prices win over litellm's map: a team that registers a price for a model it pays a
negotiated rate for (or for a local endpoint litellm has never heard of) means that price.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from sage_desk.core.jsonsafe import JsonObject

PRICE_MAP_FILE = "model_prices_and_context_window_backup.json"  # inside the litellm package


@dataclass(frozen=True)
class Price:
    """USD per input token and per output token."""

    input_per_token: float
    output_per_token: float


_prices: dict[str, Price] = {}
_lock = threading.Lock()


def register_prices(model: str, input_per_token: float, output_per_token: float) -> None:
    """Price a model for every client in this process (`openai/my-model` or `my-model`)."""
    if input_per_token < 0 or output_per_token < 0:
        raise ValueError("prices cannot be negative")
    with _lock:
        _prices[model] = Price(input_per_token, output_per_token)


def unregister_prices(model: str) -> None:
    """Forget a registered price (tests use this to stay independent)."""
    with _lock:
        _prices.pop(model, None)


def registered_price(model: str) -> Price | None:
    """The registered price of `model`, also looked up without its provider prefix."""
    with _lock:
        return _prices.get(model) or (_prices.get(model.split("/", 1)[1]) if "/" in model else None)


def call_cost(litellm: ModuleType, model: str, response: Any, prompt_tokens: int, completion_tokens: int) -> float:
    """USD for one call; 0.0 for a model nobody priced (tokens are reported regardless)."""
    price = registered_price(model)
    if price is not None:
        return prompt_tokens * price.input_per_token + completion_tokens * price.output_per_token
    # litellm prices the call itself while it returns it; pricing it again costs a millisecond
    # of CPU per call, which caps a run's throughput on a small machine.
    hidden = getattr(response, "_hidden_params", None) or {}
    if hidden.get("response_cost") is not None:
        return float(hidden["response_cost"])
    bare = model.split("/", 1)[-1]
    if model not in litellm.model_cost and bare not in litellm.model_cost:
        return 0.0  # nobody priced it: litellm would only raise after a costly lookup
    try:
        return float(litellm.completion_cost(completion_response=response, model=model) or 0.0)
    except Exception:  # litellm raises assorted errors for an unmapped model
        return 0.0


def tokens_cost(model: str, prompt_tokens: int, completion_tokens: int) -> float:
    """USD for a call made without litellm (a direct endpoint): registered price, else litellm's map, else 0.0."""
    price = registered_price(model)
    if price is None:
        price = _map_price(model)
    if price is None:
        return 0.0
    return prompt_tokens * price.input_per_token + completion_tokens * price.output_per_token


_map_prices: dict[str, Price | None] = {}


def _map_price(model: str) -> Price | None:
    """A model's per-token prices from litellm's local price map, looked up once per model."""
    if model not in _map_prices:
        cost_map = _price_map()
        entry = cost_map.get(model) or cost_map.get(model.split("/", 1)[-1]) or {}
        cost_in, cost_out = entry.get("input_cost_per_token"), entry.get("output_cost_per_token")
        found = cost_in is not None or cost_out is not None
        with _lock:
            _map_prices[model] = Price(float(cost_in or 0.0), float(cost_out or 0.0)) if found else None
    return _map_prices[model]


@functools.cache
def _price_map() -> JsonObject:
    """litellm's price map; read from the file litellm ships when litellm itself is not loaded.

    A direct endpoint's run never needs litellm otherwise, and importing it for one dict takes
    3-10 s; the JSON file it reads under LITELLM_LOCAL_MODEL_COST_MAP takes tens of milliseconds.
    """
    litellm = sys.modules.get("litellm")
    if litellm is None:
        spec = importlib.util.find_spec("litellm")  # finds the package without importing (running) it
        folders = list(spec.submodule_search_locations or []) if spec is not None else []
        try:
            prices: JsonObject = json.loads((Path(folders[0]) / PRICE_MAP_FILE).read_bytes())
            return prices
        except (IndexError, OSError, ValueError):
            from sage_desk.core.llm.client import load_litellm  # a litellm that moved the file: ask it

            litellm = load_litellm()
    return dict(litellm.model_cost)
