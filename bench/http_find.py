"""GET /find over HTTP for the relevance benches: a real ``actiondex serve`` and one keep-alive
client, as an agent framework asks it.

``Finder.sites`` ranks sites: with ``group=site`` when the server offers it (its /openapi.json
lists the parameter: one entry per site), else each site where its first action appears. A
request the server refuses (4xx, e.g. 422 for a request of 48 words or more before issue 13)
ranks nothing, a miss, and is counted.
"""

from __future__ import annotations

import http.client
import json
import time
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode, urlsplit

from harness import procs

READY_TIMEOUT_S = 120


def serving(data_dir: Path, database_url: str = "", **env: str) -> AbstractContextManager[str]:
    """``actiondex serve`` over the store in ``data_dir`` (harness.procs), once /readyz says
    it can serve, with ``env`` set (e.g. ACTIONDEX_MEANING_SITES); yields its base URL and
    stops the server on exit."""
    return procs.serving(
        data_dir,
        ready="/readyz",
        seconds=READY_TIMEOUT_S,
        ACTIONDEX_DATABASE_URL=database_url,
        **env,
    )


@dataclass
class Finder:
    """Asks GET /find of the server at ``base``; keeps the times and the refusals of every
    request."""

    base: str
    times_ms: list[float] = field(default_factory=list)
    refused: int = 0

    def __post_init__(self) -> None:
        where = urlsplit(self.base)
        self._connection = http.client.HTTPConnection(
            where.hostname or "127.0.0.1", where.port, timeout=60
        )
        spec = self._get("/openapi.json")[1]
        parameters = spec["paths"]["/find"]["get"]["parameters"]
        self.limits = {p["name"]: p["schema"].get("maximum") for p in parameters}
        self.grouped = "group" in self.limits

    @property
    def mode(self) -> str:
        return "group=site" if self.grouped else "sites derived from action results"

    def _get(self, path: str) -> tuple[int, dict]:
        try:
            self._connection.request("GET", path)
            response = self._connection.getresponse()
        except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
            # The server closes a connection idle past its keep-alive timeout (uvicorn: 5 s),
            # e.g. while a baseline is scored; a new one is opened, as any client does.
            self._connection.close()
            self._connection.request("GET", path)
            response = self._connection.getresponse()
        body = response.read()
        return response.status, json.loads(body) if body else {}

    def results(self, query: str, limit: int, **params: str) -> list[dict] | None:
        """/find's results, or None when the request was refused (4xx)."""
        start = time.perf_counter()
        status, body = self._get(f"/find?{urlencode({'q': query, 'limit': limit, **params})}")
        self.times_ms.append((time.perf_counter() - start) * 1000)
        if 400 <= status < 500:
            self.refused += 1
            return None
        if status != 200:
            raise RuntimeError(f"/find answered {status} for {query!r}: {body}")
        # group=site answers its entries in "sites" (each with "site"), "results" empty.
        return list(body["sites"] if params.get("group") == "site" else body["results"])

    def sites(self, query: str, k: int = 10) -> list[str]:
        """The first ``k`` distinct sites /find ranks for ``query``. Without group=site, the
        most actions one page holds, so that ``k`` sites show even when one site has many."""
        if self.grouped:
            found = self.results(query, k, group="site")
        else:
            found = self.results(query, self.limits.get("limit") or 50)
        ranked: list[str] = []
        for result in found or []:
            if result["site"] not in ranked:
                ranked.append(result["site"])
        return ranked[:k]

    def close(self) -> None:
        self._connection.close()
