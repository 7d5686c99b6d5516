"""Several endpoints behind one API base: least-busy choice, a per-endpoint cap, take-outs and figures.

A team serving its model on several vLLM/TGI replicas gives them all: `--api-base A --api-base B`
becomes the API base "A,B" (one string, so a run's config, stamp and every role's options carry
it unchanged). Each attempt of a call goes to the endpoint of that list that is up and has the
fewest requests in flight (ties: the one sent fewest so far, so a quiet run still spreads its
work), waiting while every one is at its cap (`set_endpoint_concurrency`). An endpoint that fails
a call transiently (5xx, 429, a timeout, a lost connection) is taken out for a back-off that
doubles with each failure in a row; the call's retry goes to another endpoint at once, and waits
only when all are out. Back from a take-out, an endpoint gets one call at a time until one succeeds,
so a replica that is still down costs one failed call per back-off, not a burst. A single endpoint is never taken out: its calls back off one by one, as before.

The in-flight counts live per event loop and per endpoint URL, shared by every client of the
process, so an agent and a customer on the same replicas count each other's requests. What each
endpoint did (requests, errors, take-outs, a latency histogram) is summed process-wide until
`take_stats` hands it over; the runner adds it to the run (store: runs.config["endpoints"]).
"""

from __future__ import annotations

import asyncio
import math
import time
import weakref
from collections import deque
from dataclasses import dataclass, field

from sage_desk.core.jsonsafe import JsonObject

SEPARATOR = ","
_STEP = math.log(1.02)  # latency histogram buckets 2 % wide: medians and p95 within 2 %


def split_bases(api_base: str | None) -> list[str]:
    """The endpoint URLs an API base names ("A,B" -> [A, B]), without trailing slashes or duplicates."""
    if not api_base:
        return []
    return list(dict.fromkeys(b.strip().rstrip("/") for b in api_base.split(SEPARATOR) if b.strip()))


def join_bases(bases: list[str] | tuple[str, ...] | None) -> str | None:
    """One API base string for several URLs (each may itself be a comma-separated list); None for none."""
    urls = split_bases(SEPARATOR.join(bases or []))
    return SEPARATOR.join(urls) or None


@dataclass
class EndpointStats:
    """What one endpoint did: attempts sent, attempts failed, times taken out, latency of the answered ones."""

    requests: int = 0
    errors: int = 0
    taken_out: int = 0
    latency_sum_ms: float = 0.0
    buckets: dict[int, int] = field(default_factory=dict)  # log-scale latency bucket -> answered attempts

    def answered(self, latency_ms: float) -> None:
        """Count an attempt that got a completion back after `latency_ms`."""
        self.requests += 1
        self.latency_sum_ms += latency_ms
        bucket = int(math.log(max(latency_ms, 0.01)) / _STEP)
        self.buckets[bucket] = self.buckets.get(bucket, 0) + 1

    def to_json(self) -> JsonObject:
        """Plain JSON (bucket keys as text), as stored with the run."""
        return {
            "requests": self.requests,
            "errors": self.errors,
            "taken_out": self.taken_out,
            "latency_sum_ms": round(self.latency_sum_ms, 3),
            "buckets": {str(k): v for k, v in self.buckets.items()},
        }

    @classmethod
    def from_json(cls, data: JsonObject) -> EndpointStats:
        """Back from `to_json` (missing keys are zero)."""
        return cls(
            int(data.get("requests", 0)),
            int(data.get("errors", 0)),
            int(data.get("taken_out", 0)),
            float(data.get("latency_sum_ms", 0.0)),
            {int(k): int(v) for k, v in (data.get("buckets") or {}).items()},
        )

    def add(self, other: EndpointStats) -> None:
        """Fold another process's (or another period's) figures into these."""
        self.requests += other.requests
        self.errors += other.errors
        self.taken_out += other.taken_out
        self.latency_sum_ms += other.latency_sum_ms
        for k, v in other.buckets.items():
            self.buckets[k] = self.buckets.get(k, 0) + v

    def summary(self) -> JsonObject:
        """requests, errors, taken_out and latency mean/median/p95 in ms (None with nothing answered)."""
        answered = sum(self.buckets.values())
        figures: JsonObject = {"requests": self.requests, "errors": self.errors, "taken_out": self.taken_out}
        figures["latency_ms"] = (
            None
            if not answered
            else {
                "mean": round(self.latency_sum_ms / answered, 1),
                "median": round(self._quantile(0.5, answered), 1),
                "p95": round(self._quantile(0.95, answered), 1),
            }
        )
        return figures

    def _quantile(self, q: float, answered: int) -> float:
        seen, rank = 0, q * answered
        for bucket in sorted(self.buckets):
            seen += self.buckets[bucket]
            if seen >= rank:
                return math.exp((bucket + 0.5) * _STEP)
        return math.exp((max(self.buckets) + 0.5) * _STEP)


def merge_stats(stored: JsonObject | None, new: dict[str, EndpointStats]) -> JsonObject:
    """`stored` (URL -> to_json, as kept with a run) plus `new`, as JSON again."""
    merged = {url: EndpointStats.from_json(data) for url, data in (stored or {}).items()}
    for url, stats in new.items():
        merged.setdefault(url, EndpointStats()).add(stats)
    return {url: stats.to_json() for url, stats in merged.items()}


def summarize(stored: JsonObject | None) -> dict[str, JsonObject]:
    """A run's stored figures as the report shows them: URL -> `EndpointStats.summary`."""
    return {url: EndpointStats.from_json(data).summary() for url, data in sorted((stored or {}).items())}


_stats: dict[str, EndpointStats] = {}
_cap: int | None = None


def stats_for(url: str) -> EndpointStats:
    """This process's running figures for `url`."""
    stats = _stats.get(url)
    if stats is None:
        stats = _stats[url] = EndpointStats()
    return stats


def take_stats() -> dict[str, EndpointStats]:
    """What every endpoint did since the last call, handed over and reset."""
    taken = dict(_stats)
    _stats.clear()
    return taken


def set_endpoint_concurrency(cap: int | None) -> None:
    """At most `cap` requests in flight to any one endpoint from this process (None: no cap of its own)."""
    global _cap
    if cap is not None and cap < 1:
        raise ValueError("the endpoint concurrency must be at least 1")
    _cap = cap
    for balancer in list(_balancers.values()):
        balancer.wake_all()


def endpoint_concurrency() -> int | None:
    """The cap `set_endpoint_concurrency` set, if any."""
    return _cap


@dataclass(eq=False)
class Endpoint:
    """One endpoint's state in one event loop."""

    url: str
    in_flight: int = 0
    sent: int = 0
    down_until: float = 0.0
    failures: int = 0  # take-outs in a row; a success resets it (each take-out is longer than the last)


class Balancer:
    """The endpoints of one event loop: which is least busy and up, and who waits for room."""

    def __init__(self) -> None:
        self.endpoints: dict[str, Endpoint] = {}
        self._waiters: dict[tuple[str, ...], deque[asyncio.Future[None]]] = {}

    def endpoint(self, url: str) -> Endpoint:
        """The state of `url` (created on first use)."""
        found = self.endpoints.get(url)
        if found is None:
            found = self.endpoints[url] = Endpoint(url)
        return found

    def _pick(self, urls: tuple[str, ...], now: float) -> Endpoint | None:
        best: Endpoint | None = None
        cap = _cap
        for url in urls:
            ep = self.endpoint(url)
            if ep.down_until > now or (cap is not None and ep.in_flight >= cap):
                continue
            if ep.failures and ep.in_flight:  # back from a take-out: one call tries it before the rest follow
                continue
            if best is None or (ep.in_flight, ep.sent) < (best.in_flight, best.sent):
                best = ep
        return best

    async def acquire(self, urls: tuple[str, ...]) -> Endpoint:
        """The least busy endpoint of `urls` that is up and under the cap, waiting for one if need be."""
        while True:
            now = time.monotonic()
            ep = self._pick(urls, now)
            if ep is not None:
                ep.in_flight += 1
                ep.sent += 1
                return ep
            back = [self.endpoint(u).down_until for u in urls if self.endpoint(u).down_until > now]
            waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            queue = self._waiters.setdefault(urls, deque())
            queue.append(waiter)
            try:  # woken by a release, or when the first endpoint taken out is due back
                await asyncio.wait_for(waiter, min(back) - now + 0.001 if back else None)
            except TimeoutError:
                pass
            finally:
                if not waiter.done():
                    waiter.cancel()
                if waiter in queue:
                    queue.remove(waiter)

    def release(self, ep: Endpoint, ok: bool | None, take_out_s: float | None = None) -> None:
        """`ep` answered (`ok`), failed, or neither (None: cancelled); a failure with `take_out_s` takes it out that long."""
        ep.in_flight -= 1
        if ok:
            ep.failures = 0
        elif ok is False and take_out_s is not None:
            now = time.monotonic()
            if ep.down_until <= now:  # calls that were in flight when it went out fail too: they take it out once
                ep.failures += 1
                ep.down_until = now + take_out_s
                stats_for(ep.url).taken_out += 1
        self._wake(ep.url)

    def up_besides(self, urls: tuple[str, ...], ep: Endpoint) -> bool:
        """Whether another endpoint of `urls` is up now (a retry can go there at once)."""
        now = time.monotonic()
        return any(self.endpoint(u).down_until <= now for u in urls if u != ep.url)

    def _wake(self, url: str) -> None:
        for urls, queue in self._waiters.items():
            if url in urls:
                while queue:
                    waiter = queue.popleft()
                    if not waiter.done():
                        waiter.set_result(None)
                        break

    def wake_all(self) -> None:
        """Let every waiter look again (the cap changed)."""
        for queue in self._waiters.values():
            for waiter in queue:
                if not waiter.done():
                    try:
                        waiter.get_loop().call_soon_threadsafe(_settle, waiter)
                    except RuntimeError:  # its loop has closed: nobody waits there any more
                        pass


def _settle(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_result(None)


_balancers: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Balancer] = weakref.WeakKeyDictionary()


def balancer() -> Balancer:
    """The running event loop's balancer."""
    loop = asyncio.get_running_loop()
    found = _balancers.get(loop)
    if found is None:
        found = _balancers[loop] = Balancer()
    return found
