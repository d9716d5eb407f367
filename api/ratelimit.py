"""Per-client rate limiting (docs/RELIABILITY.md 32): one agent looping on /find must not slow the
others. A token bucket per client address: ``burst`` requests at once, refilled at ``rate`` a
second; past that, 429 ``rate-limited`` with ``Retry-After``. Pure ASGI, so a request costs a
dict lookup and some arithmetic; ``/healthz``, ``/readyz`` and ``/metrics`` are never limited.
Behind a reverse proxy, list it in ACTIONDEX_TRUSTED_PROXIES (api.app then reads the client
address from its X-Forwarded-For) so the client address is the agent's, not the proxy's.

Each server process keeps its own buckets: with N worker processes a client can get up to N
times the rate.
"""

from __future__ import annotations

import math
import time
from typing import Any

from api.errors import ard_error, error_response, under_ard

MAX_CLIENTS = 100_000  # buckets kept; idle ones are forgotten first past this
# The probes: an orchestrator reading a 429 as "unhealthy" would take a healthy replica out.
EXEMPT = frozenset({"/healthz", "/readyz", "/metrics"})


class RateLimit:
    def __init__(self, app: Any, rate: float, burst: int) -> None:
        self.app = app
        self.rate = rate
        self.burst = max(1, burst)
        self.buckets: dict[str, tuple[float, float]] = {}  # client -> (tokens, at)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http" or self.rate <= 0 or scope["path"] in EXEMPT:
            await self.app(scope, receive, send)
            return
        client = (scope.get("client") or ("unknown",))[0]
        wait = self.take(client, time.monotonic())
        if wait <= 0:
            await self.app(scope, receive, send)
            return
        retry = max(1, math.ceil(wait))
        message = f"more than {self.rate:g} requests a second from {client}; retry in {retry} s"
        headers = {"Retry-After": str(retry)}
        response = (
            ard_error(429, message, headers)
            if under_ard(scope["path"])
            else error_response(429, "rate-limited", message, headers=headers)
        )
        await response(scope, receive, send)

    def take(self, client: str, now: float) -> float:
        """Spend one token of ``client``'s bucket: 0 if there was one, else the seconds until
        there will be."""
        tokens, at = self.buckets.get(client, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + (now - at) * self.rate)
        if tokens >= 1:
            self.buckets[client] = (tokens - 1, now)
            if len(self.buckets) > MAX_CLIENTS:
                self._forget(now)
            return 0.0
        self.buckets[client] = (tokens, now)
        return (1 - tokens) / self.rate

    def _forget(self, now: float) -> None:
        """Drop buckets that have refilled (their clients are idle); if none have, the oldest
        half: a flood of new addresses must not grow memory without bound."""
        full = self.burst / self.rate
        self.buckets = {c: b for c, b in self.buckets.items() if now - b[1] < full}
        if len(self.buckets) > MAX_CLIENTS:
            keep = sorted(self.buckets.items(), key=lambda item: item[1][1])[MAX_CLIENTS // 2 :]
            self.buckets = dict(keep)
