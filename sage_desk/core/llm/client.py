"""`LlmClient`: the one way SAGE Desk calls a model.

litellm is imported on the first call, never at module import (it takes seconds and, without
`LITELLM_LOCAL_MODEL_COST_MAP`, goes to the network). Transient failures (429, 5xx, timeouts,
lost connections) are retried here with exponential backoff and jitter; litellm's and the
OpenAI SDK's own retries are switched off so one policy governs. Concurrency is limited per
provider (the `api_base`, else the model's provider prefix) with one semaphore per event loop.

`openai/` and `hosted_vllm/` models at an explicit `api_base` (vLLM, Ollama, LM Studio ...) are
posted straight to the endpoint with aiohttp instead (endpoint.py says why); the reply, errors,
retries and cost are the same either way: a 200 whose body is not a completion is retried by both.

Authentication is never retried: a model of a known provider with no key anywhere fails before
any request, and a refused key (401, 403, "missing credentials", which litellm reports as a 500)
fails at once; both name the variable or keyring entry to set. The key a call sends is masked
in whatever comes back, replies included, since some providers echo it.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import random
import time
import weakref
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from types import ModuleType
from typing import Any

from sage_desk.core.jsonsafe import JsonObject
from sage_desk.core.llm.balance import balancer, split_bases, stats_for
from sage_desk.core.llm.endpoint import (
    EndpointBadReply,
    Endpoints,
    ReplyTooLarge,
    is_direct,
    max_reply_bytes,
    request_body,
    too_large,
)
from sage_desk.core.llm.pricing import call_cost, tokens_cost
from sage_desk.core.llm.redact import MASK, redact
from sage_desk.core.llm.secrets import api_key_for, env_var_for, missing_key_for, provider_of, where_to_set
from sage_desk.core.llm.types import LlmError, LlmReply, ToolCallRequest, Usage

log = logging.getLogger(__name__)

RETRYABLE_STATUS = frozenset({408, 409, 425, 429})  # plus every 5xx
AUTH_STATUS = frozenset({401, 403})
_AUTH_TEXT = ("missing credentials", "api_key client option must be set", "incorrect api key provided", "invalid_api_key")
DEFAULT_CONCURRENCY = 16
TRANSPORTS = ("auto", "litellm")  # auto: direct HTTP for OpenAI-compatible endpoints, litellm for the rest


def load_litellm() -> ModuleType:
    """litellm, imported on first use with its price map read locally (no network)."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    # Its "Give Feedback / Get Help" banner goes to stdout on every exception and would corrupt
    # CLI output; our LlmError carries what the user needs.
    litellm.suppress_debug_info = True
    return litellm


def provider_key(model: str, api_base: str | None = None) -> str:
    """What a concurrency limit applies to: the endpoint, else the provider prefix of the model."""
    if api_base:
        return api_base.rstrip("/")
    return model.split("/", 1)[0] if "/" in model else "openai"


def is_auth_error(exc: BaseException, litellm: ModuleType | None = None) -> bool:
    """Whether a failure is the provider refusing (or missing) the credentials: never worth a retry."""
    status = getattr(exc, "status_code", None)
    if status in AUTH_STATUS:
        return True
    if litellm is not None and isinstance(exc, (litellm.AuthenticationError, litellm.PermissionDeniedError)):
        return True
    text = str(exc).lower()
    return any(part in text for part in _AUTH_TEXT)


def is_retryable(exc: BaseException, litellm: ModuleType | None = None) -> tuple[bool, int | None]:
    """Whether a failure is transient, and its HTTP status when it has one (litellm's classes too, if given)."""
    status = getattr(exc, "status_code", None)
    status = status if isinstance(status, int) else None
    if is_auth_error(exc, litellm):
        return False, status if status in AUTH_STATUS else 401
    if isinstance(exc, ReplyTooLarge):
        return False, status  # the same question gets the same huge answer: one line, not minutes of retries
    if isinstance(exc, EndpointBadReply):
        return True, status
    transient: tuple[type[BaseException], ...] = ()
    if litellm is not None:
        transient = (
            litellm.Timeout,
            litellm.APIConnectionError,
            litellm.RateLimitError,
            litellm.InternalServerError,
            litellm.ServiceUnavailableError,
        )
    if isinstance(exc, (*transient, TimeoutError, ConnectionError)):
        return True, status
    if status is not None:
        return status in RETRYABLE_STATUS or status >= 500, status
    return False, None


def parse_tool_call(call_id: str, name: str, raw: str | None) -> ToolCallRequest:
    """A tool call with its arguments parsed; unparseable arguments give `parse_error`, not an exception."""
    raw = raw or ""
    if not raw.strip():
        return ToolCallRequest(id=call_id, name=name, arguments_raw=raw, arguments={})  # some models send "" for no arguments
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        return ToolCallRequest(
            id=call_id, name=name, arguments_raw=raw, parse_error=f"arguments are not valid JSON: {exc.msg} (char {exc.pos})"
        )
    if not isinstance(value, dict):
        return ToolCallRequest(
            id=call_id, name=name, arguments_raw=raw, parse_error=f"arguments are a JSON {type(value).__name__}, not an object"
        )
    return ToolCallRequest(id=call_id, name=name, arguments_raw=raw, arguments=value)


class LlmClient:
    """Completions with retries, per-provider concurrency limits, usage and cost.

    `transport="litellm"` (or `SAGE_DESK_LLM_TRANSPORT=litellm`) sends every call through litellm,
    OpenAI-compatible endpoints included; the default posts to those directly.
    """

    def __init__(
        self,
        concurrency: int = DEFAULT_CONCURRENCY,
        limits: dict[str, int] | None = None,
        backoff_base: float = 1.0,
        backoff_max: float = 30.0,
        rng: random.Random | None = None,
        transport: str | None = None,
    ) -> None:
        transport = transport or os.environ.get("SAGE_DESK_LLM_TRANSPORT") or "auto"
        if transport not in TRANSPORTS:
            raise ValueError(f"transport must be one of {', '.join(TRANSPORTS)}, not {transport!r}")
        self.transport = transport
        self.concurrency = concurrency
        self.limits = dict(limits or {})  # provider key (see provider_key) -> max calls in flight
        self.backoff_base = backoff_base
        self.backoff_max = backoff_max
        self._rng = rng or random.Random()
        self._semaphores: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, asyncio.Semaphore]] = (
            weakref.WeakKeyDictionary()
        )
        self._endpoints = Endpoints()

    async def complete(
        self,
        model: str,
        messages: list[JsonObject],
        tools: list[JsonObject] | None = None,
        api_base: str | None = None,
        api_key: str | None = None,
        temperature: float | None = None,
        timeout: float = 60,
        max_retries: int = 4,
        mock_response: str | None = None,
        seed: int | None = None,
        **params: Any,
    ) -> LlmReply:
        """One chat completion, retried on transient failures; raises `LlmError` when it gives up.

        Extra keyword `params` (max_tokens, response_format ...) go to the provider unchanged.
        """
        direct = self.transport == "auto" and mock_response is None and is_direct(model, api_base)
        litellm = None if direct else load_litellm()
        if api_key is None and mock_response is None:
            api_key = api_key_for(model, api_base)  # environment, else keyring (core/llm/secrets.py)
            missing = missing_key_for(model, api_base) if api_key is None else None
            if missing:
                raise LlmError(f"{model}: no API key: {where_to_set(missing)}", status=401, model=model, attempts=0)
        key = provider_key(model, api_base)
        if direct:
            body = request_body(model, messages, tools, temperature, seed, params)
        else:
            request = self._request(model, messages, tools, api_base, api_key, temperature, timeout, mock_response, seed, params)

        urls = tuple(split_bases(api_base))

        async def call(base: str | None) -> Any:
            if direct:
                return await self._endpoints.post(base or "", body, api_key, timeout, self.limits.get(key, self.concurrency))
            assert litellm is not None
            # A guard beyond litellm's own timeout, in case a provider hangs past it.
            response = await asyncio.wait_for(
                litellm.acompletion(**({**request, "api_base": base} if base else request)), timeout + 5
            )
            if not getattr(response, "choices", None):  # as the direct transport: a reply to retry, not a crash
                raise EndpointBadReply(f"{model} answered without any choices")
            _check_size(response, base or provider_of(model) or model)
            return response

        for attempt in range(max_retries + 1):
            started = time.perf_counter()
            try:
                async with self._semaphore(key):
                    response = await (self._on_endpoint(urls, call, litellm) if urls else call(None))
            except Exception as exc:  # classified below; nothing is swallowed
                retryable, status = is_retryable(exc, litellm)
                if not retryable or attempt == max_retries:
                    raise self._error(exc, model, api_key, retryable, status, attempt + 1) from None
                if len(urls) > 1:  # the failing endpoint is out: the balancer sends the retry elsewhere (balance.py)
                    log.info(
                        "%s: %s (status %s); retry %d/%d on another endpoint",
                        model,
                        type(exc).__name__,
                        status,
                        attempt + 1,
                        max_retries,
                    )
                    continue
                await self._back_off(exc, model, attempt, max_retries, status)
                continue
            latency_ms = (time.perf_counter() - started) * 1000
            if direct:
                reply = self._reply_from_json(model, response, latency_ms, attempt + 1)
            else:
                assert litellm is not None  # loaded for every call not on the direct path
                reply = self._reply(litellm, model, response, latency_ms, attempt + 1)
            return _without_key(reply, api_key)
        raise AssertionError("unreachable: the loop returns or raises")

    def complete_sync(self, model: str, messages: list[JsonObject], **kwargs: Any) -> LlmReply:
        """`complete` for one-shot callers (CLI); safe to call from inside a running event loop too."""
        coroutine_args = (model, messages)
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(self.complete(*coroutine_args, **kwargs))
        # Already inside a loop (a notebook, a Qt-asyncio bridge): run on a private loop in a thread.
        with ThreadPoolExecutor(max_workers=1) as pool:
            return pool.submit(asyncio.run, self.complete(*coroutine_args, **kwargs)).result()

    @staticmethod
    def _request(
        model: str,
        messages: list[JsonObject],
        tools: list[JsonObject] | None,
        api_base: str | None,
        api_key: str | None,
        temperature: float | None,
        timeout: float,
        mock_response: str | None,
        seed: int | None,
        params: JsonObject,
    ) -> JsonObject:
        # num_retries/max_retries=0: litellm and the OpenAI SDK would otherwise retry underneath us.
        request: JsonObject = {
            "model": model,
            "messages": messages,
            "timeout": timeout,
            "num_retries": 0,
            "max_retries": 0,
            **params,
        }
        optional = {
            "tools": tools,
            "api_base": api_base,
            "api_key": api_key,
            "temperature": temperature,
            "mock_response": mock_response,
            "seed": seed,
        }
        request.update({k: v for k, v in optional.items() if v is not None})
        return request

    async def _on_endpoint(
        self, urls: tuple[str, ...], call: Callable[[str | None], Awaitable[Any]], litellm: ModuleType | None
    ) -> Any:
        """One attempt on the least busy endpoint of `urls` that is up (balance.py), counted in its figures;
        with several, a transient failure takes that endpoint out for a back-off."""
        pool = balancer()
        endpoint = await pool.acquire(urls)
        started = time.perf_counter()
        try:
            response = await call(endpoint.url)
        except Exception as exc:
            stats = stats_for(endpoint.url)
            stats.requests += 1
            stats.errors += 1
            take_out = None
            if len(urls) > 1 and is_retryable(exc, litellm)[0]:
                take_out = self.backoff_delay(endpoint.failures, _retry_after(exc))
            pool.release(endpoint, ok=False, take_out_s=take_out)
            raise
        except BaseException:  # cancelled: neither a success nor the endpoint's failure
            pool.release(endpoint, ok=None)
            raise
        stats_for(endpoint.url).answered((time.perf_counter() - started) * 1000)
        pool.release(endpoint, ok=True)
        return response

    def _semaphore(self, key: str) -> asyncio.Semaphore:
        per_loop = self._semaphores.setdefault(asyncio.get_running_loop(), {})
        if key not in per_loop:
            per_loop[key] = asyncio.Semaphore(self.limits.get(key, self.concurrency))
        return per_loop[key]

    def backoff_delay(self, attempt: int, retry_after: float | None = None) -> float:
        """Seconds before retry `attempt + 1`: exponential, capped, with jitter in its upper half."""
        ceiling: float = min(self.backoff_max, self.backoff_base * 2**attempt)
        delay = ceiling / 2 + self._rng.uniform(0, ceiling / 2)
        return min(self.backoff_max, max(delay, retry_after or 0.0))

    async def _back_off(self, exc: Exception, model: str, attempt: int, max_retries: int, status: int | None) -> None:
        delay = self.backoff_delay(attempt, _retry_after(exc))
        log.warning(
            "%s: %s (status %s); retry %d/%d in %.2fs", model, type(exc).__name__, status, attempt + 1, max_retries, delay
        )
        await asyncio.sleep(delay)

    @staticmethod
    def _error(exc: Exception, model: str, api_key: str | None, retryable: bool, status: int | None, attempts: int) -> LlmError:
        detail = redact(f"{type(exc).__name__}: {exc}", [api_key])
        if status in AUTH_STATUS:
            provider = provider_of(model)
            hint = where_to_set(env_var_for(provider)) if provider else "check the key this provider expects"
            return LlmError(
                f"{model}: the provider refused the API key (HTTP {status}): {hint}. {detail}",
                retryable=False,
                status=status,
                model=model,
                attempts=attempts,
            )
        if retryable:
            message = f"{model}: gave up after {attempts} attempt(s): {detail}"
        else:
            message = f"{model}: {detail}"
        return LlmError(message, retryable=retryable, status=status, model=model, attempts=attempts)

    @staticmethod
    def _reply(litellm: ModuleType, model: str, response: Any, latency_ms: float, attempts: int) -> LlmReply:
        choice = response.choices[0]
        message = choice.message
        calls = [
            parse_tool_call(c.id or f"call_{i}", c.function.name, c.function.arguments)
            for i, c in enumerate(message.tool_calls or [])
        ]
        usage = getattr(response, "usage", None)
        prompt = int(getattr(usage, "prompt_tokens", 0) or 0)
        completion = int(getattr(usage, "completion_tokens", 0) or 0)
        cost = call_cost(litellm, model, response, prompt, completion)
        return LlmReply(
            content=message.content,
            tool_calls=calls,
            usage=Usage(prompt_tokens=prompt, completion_tokens=completion, cost_usd=cost, latency_ms=latency_ms, model=model),
            finish_reason=choice.finish_reason,
            attempts=attempts,
        )

    @staticmethod
    def _reply_from_json(model: str, response: JsonObject, latency_ms: float, attempts: int) -> LlmReply:
        """An OpenAI-format completion as posted back by a direct endpoint."""
        choice = response["choices"][0]
        message = choice.get("message") or {}
        usage = response.get("usage") or {}
        prompt = int(usage.get("prompt_tokens") or 0)
        completion = int(usage.get("completion_tokens") or 0)
        return LlmReply(
            content=message.get("content"),
            tool_calls=_reply_message_calls(message),
            usage=Usage(
                prompt_tokens=prompt,
                completion_tokens=completion,
                cost_usd=tokens_cost(model, prompt, completion),
                latency_ms=latency_ms,
                model=model,
            ),
            finish_reason=choice.get("finish_reason"),
            attempts=attempts,
        )


def _check_size(response: Any, where: str) -> None:
    """litellm reads a reply whole; at least one over the cap goes no further (not stored, not sent back)."""
    cap = max_reply_bytes()
    message = response.choices[0].message
    size = len((message.content or "").encode("utf-8", "replace"))
    for call in message.tool_calls or []:
        size += len((call.function.arguments or "").encode("utf-8", "replace"))
    if size > cap:
        raise too_large(size, cap, where)


def _without_key(reply: LlmReply, api_key: str | None) -> LlmReply:
    """The reply with the key the call sent masked in its text and tool arguments (a provider may echo it)."""
    if not api_key or len(api_key) < 8:
        return reply  # a placeholder or no key at all: nothing of the user's to hide
    texts = [reply.content or "", *(c.arguments_raw for c in reply.tool_calls)]
    if not any(api_key in t for t in texts):
        return reply
    calls = [parse_tool_call(c.id, c.name, c.arguments_raw.replace(api_key, MASK)) for c in reply.tool_calls]
    content = reply.content.replace(api_key, MASK) if reply.content is not None else None
    return reply.model_copy(update={"content": content, "tool_calls": calls})


def _reply_message_calls(message: JsonObject) -> list[ToolCallRequest]:
    calls = []
    for i, call in enumerate(message.get("tool_calls") or []):
        function = call.get("function") or {}
        arguments = function.get("arguments")
        if arguments is not None and not isinstance(arguments, str):
            arguments = json.dumps(arguments)  # some servers send the object itself, not its JSON text
        calls.append(parse_tool_call(call.get("id") or f"call_{i}", function.get("name") or "", arguments))
    return calls


def _retry_after(exc: Exception) -> float | None:
    headers = getattr(exc, "headers", None) or getattr(getattr(exc, "response", None), "headers", None) or {}
    value = headers.get("retry-after")
    try:
        return float(str(value)) if value else None
    except ValueError:
        return None  # an HTTP date: rare enough to fall back to our own backoff
