"""One probe of one endpoint: its protocol's read-only question, and the verdict
(registry.model.liveness): ``live``, ``auth-required`` (with RFC 9728 metadata when the 401
names it), ``not-protocol`` (HTTP answered, the protocol did not), ``unreachable`` (no HTTP
answer in time, or the address guard refused it: nothing was sent); or none, when robots.txt
disallows it (crawler/probes/polite.py)."""

from __future__ import annotations

import json
import time
from datetime import timedelta

import httpx2

from crawler.probes.auth import metadata_url, protected_resource
from crawler.probes.handshake import AuthRequired, NotProtocol, Session, handshake, list_tools
from crawler.probes.polite import Disallowed, Unanswered
from crawler.probes.transport import Late, Refused, TooLarge, read
from registry.formats import reads_as
from registry.model.liveness import ProbeOutcome, ProbeTarget
from registry.store.rows import utcnow

CARD_REDIRECTS = 3


def probe(
    target: ProbeTarget, client: httpx2.Client, timeout: float, max_bytes: int
) -> ProbeOutcome:
    """Ask ``target`` its protocol's handshake within ``timeout`` seconds; never raises for
    anything the endpoint does."""
    outcome = ProbeOutcome(target, "unreachable", utcnow())
    started = time.monotonic()
    session = Session(client, target.probe_url, max_bytes, started + timeout)
    try:
        if target.kind == "handshake":
            _mcp(session, outcome)
        else:
            _document(session, outcome)
        outcome.status = "live"
    except AuthRequired as exc:
        outcome.status, outcome.http_status = "auth-required", exc.response.status_code
        url = metadata_url(exc.response)
        found = protected_resource(client, url, session.deadline) if url else None
        if found is not None:
            outcome.detail["protected_resource"] = found
    except (NotProtocol, TooLarge) as exc:
        outcome.status, outcome.detail["reason"] = "not-protocol", str(exc)[:300]
        outcome.http_status = getattr(exc, "status", None) or session.last_status
    except Disallowed as exc:
        outcome.disallowed, outcome.detail["reason"] = True, str(exc)[:300]
    except Unanswered as exc:  # its host did not answer for robots.txt: nothing else was sent
        outcome.detail["reason"] = str(exc)
    except (Late, httpx2.TimeoutException):
        outcome.detail["reason"] = "timeout"
    except Refused as exc:
        outcome.detail["reason"] = f"refused: {exc}"[:300]
    except httpx2.HTTPError as exc:
        outcome.detail["reason"] = f"{type(exc).__name__}: {exc}"[:300]
    outcome.latency_ms = round((time.monotonic() - started) * 1000)
    outcome.requests = session.requests
    return outcome


def _mcp(session: Session, outcome: ProbeOutcome) -> None:
    said = handshake(session)
    outcome.detail["era"] = said["era"]
    if not isinstance(said.get("capabilities"), dict) or "tools" not in said["capabilities"]:
        return
    try:
        tools, ttl = list_tools(session, said["era"])
    except AuthRequired:
        outcome.detail["tools"] = "auth-required"
        return
    except (NotProtocol, TooLarge) as exc:
        outcome.detail["tools"] = f"unreadable: {exc}"[:300]
        return
    outcome.detail["tools"] = len(tools)
    if ttl is not None and ttl > 0:
        outcome.ttl = timedelta(milliseconds=ttl)
    # The endpoint's tools as an MCP document of their own (registry/formats: a bare list of
    # tools, no server named), promoted with the site's other documents.
    outcome.tools = {"endpoint": outcome.target.endpoint, "protocolVersion": said["era"]}
    outcome.tools["tools"] = tools


def _document(session: Session, outcome: ProbeOutcome) -> None:
    """A card or a catalog: GET it (a few redirects, each through the guard) and read it as
    its format."""
    session.requests += 1
    headers = {"Accept": "application/json"}
    with session.client.stream(
        "GET",
        session.url,
        headers=headers,
        follow_redirects=True,
        timeout=max(0.1, session.deadline - time.monotonic()),
    ) as response:
        session.last_status = response.status_code
        session.requests += len(response.history)
        if response.status_code in (401, 403):
            raise AuthRequired(response)
        if response.status_code != 200:
            raise NotProtocol(f"HTTP {response.status_code}", response.status_code)
        body = read(response, session.max_bytes, session.deadline)
    if not reads_as(outcome.target.format, body):
        raise NotProtocol(f"the answer is no {outcome.target.format} document", 200)
    outcome.detail["bytes"] = len(body)


def tools_body(outcome: ProbeOutcome) -> bytes:
    return json.dumps(outcome.tools, separators=(",", ":")).encode()
