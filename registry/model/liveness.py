"""Liveness: whether an endpoint a site lists answers its protocol's read-only handshake.

A probe (crawler/probes) asks an MCP server ``server/discover`` (2026-07-28), else
``initialize``, then ``tools/list``; an A2A agent or an ARD registry for its card or catalog.
It never calls an action. ``ProbeTarget`` is what to ask, ``ProbeOutcome`` what it answered;
``Liveness`` is what every door shows of it (registry.model.public ActionFields.liveness).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, Literal, get_args

from pydantic import Field

from registry.model.schemas import StrictModel

Status = Literal["live", "auth-required", "not-protocol", "unreachable"]
STATUSES: tuple[str, ...] = get_args(Status)
# How a format's endpoints are probed (registry.formats.probe_kind): a JSON-RPC handshake at
# the actions' endpoint; a GET of the card that lists the actions' endpoint; a GET of the
# catalog itself (its entries point elsewhere). A card or catalog must still read as its format.
Kind = Literal["handshake", "card", "catalog"]

# When to probe again, by what the last probe found; a live MCP server's ttlMs hint is kept
# within these bounds.
NEXT_PROBE = {
    "live": timedelta(hours=6),
    "auth-required": timedelta(hours=24),
    "not-protocol": timedelta(hours=24),
    "unreachable": timedelta(hours=1),
}
TTL_BOUNDS = (timedelta(minutes=10), timedelta(hours=24))


class Liveness(StrictModel):
    """What the last probe of an action's endpoint found."""

    status: Status = Field(
        description="live: the protocol's handshake answered; auth-required: 401/403; "
        "not-protocol: HTTP answers, the protocol does not; unreachable: no HTTP answer"
    )
    checked_at: str = Field(description="When it was probed, ISO 8601, UTC")
    latency_ms: int | None = Field(description="How long the handshake took")


class ProbedEndpoint(Liveness):
    """One endpoint of a site as GET /sites/{host} lists it, with what its probe found."""

    endpoint: str = Field(description="The endpoint its actions name")
    probe_url: str = Field(description="What was asked: the endpoint, or the card listing it")
    format: str = Field(description="The format of the document that listed it")
    http_status: int | None
    found: dict[str, Any] = Field(
        description="era (MCP protocol version), tools (how many, or auth-required), reason "
        "(why not live), protected_resource (RFC 9728 metadata of an auth-required one)"
    )


@dataclass(frozen=True)
class ProbeTarget:
    """One endpoint to probe: ``endpoint`` is what its actions name, ``probe_url`` what is
    asked, ``format`` the format of the document that listed it."""

    host: str
    endpoint: str
    probe_url: str
    format: str
    kind: Kind


@dataclass
class ProbeOutcome:
    target: ProbeTarget
    status: Status
    checked_at: datetime
    latency_ms: int | None = None
    http_status: int | None = None
    requests: int = 0
    detail: dict[str, Any] = field(default_factory=dict)  # era, reason, auth metadata, tools
    tools: dict[str, Any] | None = None  # an MCP server's tools/list, answered without auth
    ttl: timedelta | None = None  # the server's own hint (ttlMs) of how long its answer holds
    # robots.txt of its host disallowed it: not asked, no verdict (its stored one is forgotten)
    disallowed: bool = False

    def next_probe(self) -> datetime:
        wait = NEXT_PROBE[self.status]
        if self.status == "live" and self.ttl is not None:
            wait = min(max(self.ttl, TTL_BOUNDS[0]), TTL_BOUNDS[1])
        return self.checked_at + wait


def iso(moment: datetime) -> str:
    """ISO 8601 in UTC, as GET /sites says its times."""
    return moment.replace(tzinfo=UTC, microsecond=0).isoformat()
