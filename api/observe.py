"""What the server did, request by request: Prometheus counters and latency histograms by route
and status, and one access-log line per request (method, route, status, ms).

Pure ASGI, like api.ratelimit: a request costs a clock read, two metric updates and, when the
access log is on, one log record. The route is the matched template (``/actions/{id}``), never
the raw path, so a crawler of random URLs cannot grow the metrics without bound and the log
holds no query text (an agent's request may say more about its person than it should).
"""

from __future__ import annotations

import logging
import time
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Histogram

ACCESS = logging.getLogger("actiondex.access")
UNMATCHED = "(unmatched)"  # no route: a 404, or a 429 the rate limit answered
PREFLIGHT = "(preflight)"  # a CORS preflight, answered by the CORS middleware
# Seconds; /find answers in 1-10 ms at 1M actions, /validate fetches take seconds.
BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30)


class RequestMetrics:
    """The request series of one app (its own registry: two apps in one process, as in the
    tests, never share counters)."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self.requests = Counter(
            "actiondex_http_requests",
            "HTTP requests answered",
            ("method", "route", "status"),
            registry=registry,
        )
        self.latency = Histogram(
            "actiondex_http_request_duration_seconds",
            "Time from request to the last byte of the answer",
            ("method", "route"),
            buckets=BUCKETS,
            registry=registry,
        )

    def record(self, method: str, route: str, status: int, seconds: float) -> None:
        self.requests.labels(method, route, str(status)).inc()
        self.latency.labels(method, route).observe(seconds)


def route_of(scope: dict[str, Any]) -> str:
    """The template of the route that answered (FastAPI leaves it in the scope), or a mount's
    prefix (``/mcp``), or UNMATCHED."""
    route = scope.get("route")
    path = getattr(route, "path_format", None) or getattr(route, "path", None)
    if path:
        return str(path)
    root = scope.get("root_path") or scope.get("app_root_path")
    if root:
        return str(root)
    if scope["method"] == "OPTIONS" and any(
        name == b"access-control-request-method" for name, _ in scope["headers"]
    ):
        return PREFLIGHT
    return UNMATCHED


class Observe:
    """Outermost middleware: sees every answer, the rate limiter's 429s included."""

    def __init__(self, app: Any, metrics: RequestMetrics, access_log: bool) -> None:
        self.app = app
        self.metrics = metrics
        self.access_log = access_log

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started, method = time.perf_counter(), scope["method"]  # before HeadAsGet turns it
        status = 500  # what the client gets if the app raises before it answers

        async def send_status(message: dict[str, Any]) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, send_status)
        finally:
            seconds = time.perf_counter() - started
            route = route_of(scope)
            self.metrics.record(method, route, status, seconds)
            if self.access_log:
                ACCESS.info("%s %s %d %.1f ms", method, route, status, seconds * 1000)
