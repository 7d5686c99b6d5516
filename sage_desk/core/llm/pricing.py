"""What a call cost: prices you registered, else litellm's price map, else 0.0.

Registered prices win over litellm's map: a team that registers a price for a model it pays a
negotiated rate for (or for a local endpoint litellm has never heard of) means that price.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any


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


def call_cost(litellm: Any, model: str, response: Any, prompt_tokens: int, completion_tokens: int) -> float:
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
    except Exception:  # noqa: BLE001 - litellm raises assorted errors for an unmapped model
        return 0.0
