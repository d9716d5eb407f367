"""HTTP for liveness probes: the crawler's address guard on every connection, bounded reads.

Probes are a handful of small requests to endpoints a site lists, outside Scrapy (a crawl's
reactor has stopped by then, and a probe needs a POST whose reply it reads as a stream), so
they go through httpx2 (the MCP SDK's HTTP client, installed with it) with a network backend
that resolves each host itself and connects only to an address ``AddressPolicy.check_address``
allows: the address checked is the address connected to, as with the crawler's resolver.
Every URL (redirects too) passes ``check_url`` first. Bodies are read to ``max_bytes`` and
``deadline`` at most; no proxy or .netrc from the environment is used.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Iterable, Iterator
from typing import Any

import httpcore2
import httpx2

from crawler.guard import AddressPolicy

Response = httpx2.Response


class Refused(Exception):
    """The address guard refused the URL or the address it resolved to."""


class NotAsked(Exception):
    """The probe's manners kept it from asking (crawler/probes/polite.py: robots.txt)."""


class TooLarge(Exception):
    """The answer was larger than a probe reads."""


class Late(Exception):
    """The probe's deadline passed while the answer was still coming."""


class _GuardedBackend(httpcore2.NetworkBackend):
    def __init__(self, policy: AddressPolicy) -> None:
        self.policy = policy
        self.inner = httpcore2.SyncBackend()

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore2.NetworkStream:
        refusal = None
        for ip in self._addresses(host, port):
            refusal = self.policy.check_address(host, port, ip)
            if refusal is None:
                return self.inner.connect_tcp(ip, port, timeout, local_address, socket_options)
        raise Refused(refusal or f"{host} resolves to no address")

    def _addresses(self, host: str, port: int) -> list[str]:
        mapped = self.policy.mapped_address(host, port)
        if mapped is not None:
            return [mapped]
        try:
            infos = socket.getaddrinfo(host.strip("[]"), port, type=socket.SOCK_STREAM)
        except socket.gaierror as exc:
            raise httpcore2.ConnectError(f"{host}: {exc}") from None
        return list(dict.fromkeys(str(info[4][0]) for info in infos))[:8]

    def sleep(self, seconds: float) -> None:
        self.inner.sleep(seconds)


class _GuardedTransport(httpx2.HTTPTransport):
    def __init__(self, policy: AddressPolicy) -> None:
        super().__init__(trust_env=False, retries=0)
        pool = self._pool
        self._pool = httpcore2.ConnectionPool(
            ssl_context=pool._ssl_context,
            max_connections=4,
            http1=True,
            network_backend=_GuardedBackend(policy),
        )


def client(policy: AddressPolicy, user_agent: str, timeout: float) -> httpx2.Client:
    """A client for one host's probes: guarded, no redirects unless asked, no cookies kept
    across hosts (one client per host)."""

    def check(request: httpx2.Request) -> None:
        refusal = policy.check_url(str(request.url))
        if refusal is not None:
            raise Refused(refusal)

    return httpx2.Client(
        transport=_GuardedTransport(policy),
        timeout=httpx2.Timeout(timeout),
        headers={"User-Agent": user_agent},
        follow_redirects=False,
        max_redirects=3,
        trust_env=False,
        event_hooks={"request": [check]},
    )


def read(response: httpx2.Response, max_bytes: int, deadline: float) -> bytes:
    """The whole body, up to ``max_bytes`` and ``deadline`` (time.monotonic())."""
    chunks, size = [], 0
    for chunk in response.iter_bytes():
        size += len(chunk)
        if size > max_bytes:
            raise TooLarge(f"the answer is larger than {max_bytes} bytes")
        chunks.append(chunk)
        if time.monotonic() > deadline:
            raise Late("the answer took longer than the probe waits")
    return b"".join(chunks)


def events(response: httpx2.Response, max_bytes: int, deadline: float) -> Iterator[str]:
    """The ``data`` of each server-sent event, as they come, within the same bounds."""
    size, data, pending = 0, [], ""
    for chunk in response.iter_text():
        size += len(chunk.encode("utf-8", "surrogatepass"))  # bytes, not characters
        if size > max_bytes:
            raise TooLarge(f"the answer is larger than {max_bytes} bytes")
        if time.monotonic() > deadline:
            raise Late("the answer took longer than the probe waits")
        pending += chunk
        *lines, pending = pending.split("\n")
        for line in lines:
            line = line.rstrip("\r")
            if not line:
                if data:
                    yield "\n".join(data)
                data = []
            elif line.startswith("data:"):
                data.append(line[5:].removeprefix(" "))
    if data:
        yield "\n".join(data)
