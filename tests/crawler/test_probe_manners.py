"""Liveness probes mind the crawler's manners (issue 22 item 1; docs/RELIABILITY.md 56): they
read robots.txt of the endpoint's host (once per host per run, the crawler's user agent token)
and ask nothing it disallows, and every request they send carries the crawler's Web Bot Auth
signature, which a site verifies with http-message-signatures' verifier."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest
from http_message_signatures import HTTPMessageVerifier, algorithms
from sqlalchemy import select
from sqlalchemy.orm import Session

from crawler.guard import policy_from
from crawler.probes import probe_all
from harness.mcp_web import CARD, ProbeWeb
from registry.config import Settings
from registry.db.tables import EndpointLiveness
from registry.identity import load_or_create
from registry.model.liveness import ProbeOutcome, ProbeTarget
from registry.store.liveness import record
from registry.store.rows import get_or_create_site, utcnow
from tests.helpers.signatures import Directory, Message

pytestmark = pytest.mark.timeout(120)
REGISTRY = "http://registry.test:8000"
LIVE, OLD, AUTH = "live.mcp.test", "old.mcp.test", "auth.mcp.test"


@pytest.fixture
def web() -> Iterator[ProbeWeb]:
    served = ProbeWeb().start()
    yield served
    served.stop()


def _settings(web: ProbeWeb, data: Path) -> Settings:
    return Settings(data_dir=data, public_url=REGISTRY, resolve=web.resolve_args(), probe_timeout=3)


def _mcp(web: ProbeWeb, host: str) -> ProbeTarget:
    url = web.url(host, "/mcp")
    return ProbeTarget(host, url, url, "mcp", "handshake")


def _probe(web: ProbeWeb, settings: Settings, targets: list[ProbeTarget]) -> list[ProbeOutcome]:
    return probe_all(targets, policy_from(settings), settings, 0)  # one run: one Polite


def test_a_probe_asks_nothing_robots_txt_disallows(web: ProbeWeb, tmp_path: Path) -> None:
    web.robots = {
        LIVE: "User-agent: actiondex\nDisallow: /mcp\n",  # our token: the endpoint is not asked
        OLD: "User-agent: someone-else\nDisallow: /\n",  # another crawler's rule
    }
    card = ProbeTarget(LIVE, web.url(LIVE, "/mcp"), web.url(LIVE, CARD), "mcp", "card")
    outcomes = _probe(web, _settings(web, tmp_path), [_mcp(web, LIVE), card, _mcp(web, OLD)])
    verdicts = {(o.target.host, o.target.kind): (o.disallowed, o.status) for o in outcomes}
    assert verdicts[(LIVE, "handshake")][0] is True
    assert verdicts[(LIVE, "card")] == (False, "live")  # the card's path is allowed
    assert verdicts[(OLD, "handshake")] == (False, "live")
    asked = [(host, path) for host, path, _ in web.seen]
    assert (LIVE, "/mcp") not in asked
    assert asked.count((LIVE, "/robots.txt")) == 1  # once per host per run
    assert asked.count((OLD, "/robots.txt")) == 1


def test_a_host_whose_robots_txt_has_no_answer_is_unreachable(
    web: ProbeWeb, tmp_path: Path
) -> None:
    """No answer for robots.txt: the host is unreachable, and the endpoint never asked."""
    web.robots = {}
    settings = _settings(web, tmp_path)
    dead = _mcp(web, "dead.mcp.test")  # its port is closed: robots.txt has no answer
    (outcome,) = _probe(web, settings, [dead])
    assert outcome.status == "unreachable" and not outcome.disallowed
    assert outcome.detail["reason"].startswith("robots.txt")


@pytest.mark.parametrize(("status", "disallowed"), [(503, True), (429, True), (403, False)])
def test_a_robots_txt_error_is_read_as_rfc_9309_says(
    web: ProbeWeb, tmp_path: Path, status: int, disallowed: bool
) -> None:
    """A 5xx or 429 robots.txt disallows all (the endpoint is not asked); another 4xx allows
    all (RFC 9309 2.3.1.3-4), as the crawler reads it."""
    web.robots = {LIVE: status}
    (outcome,) = _probe(web, _settings(web, tmp_path), [_mcp(web, LIVE)])
    asked = [(host, path) for host, path, _ in web.seen]
    assert asked.count((LIVE, "/robots.txt")) == 1
    assert outcome.disallowed is disallowed
    assert ((LIVE, "/mcp") in asked) is not disallowed
    if not disallowed:
        assert outcome.status == "live"


def test_every_probe_request_is_signed_as_the_crawlers_are(web: ProbeWeb, tmp_path: Path) -> None:
    settings = _settings(web, tmp_path)
    outcomes = _probe(web, settings, [_mcp(web, h) for h in (LIVE, OLD, AUTH)])
    assert {o.status for o in outcomes} == {"live", "auth-required"}
    directory = Directory(load_or_create(settings).directory())
    verifier = HTTPMessageVerifier(signature_algorithm=algorithms.ED25519, key_resolver=directory)
    for _, path, headers in web.seen:
        assert headers["user-agent"] == settings.user_agent
        assert headers.get("signature-agent") == f'"{REGISTRY}"', path
        message = Message("POST", f"http://{headers['host']}{path}", httpx2.Headers(headers))
        (result,) = verifier.verify(
            message, expect_tag="web-bot-auth", require_components=("@authority", "signature-agent")
        )
        assert result.parameters["keyid"] == load_or_create(settings).thumbprint
    paths = {path for _, path, _ in web.seen}
    assert {"/robots.txt", "/mcp", "/.well-known/oauth-protected-resource"} <= paths


def test_a_disallowed_endpoints_verdict_is_forgotten(session: Session) -> None:
    host = "robots.example"
    get_or_create_site(session, host, f"https://{host}", utcnow())
    target = ProbeTarget(host, f"https://{host}/mcp", f"https://{host}/mcp", "mcp", "handshake")
    record(session, [ProbeOutcome(target, "live", utcnow())])
    assert record(session, [], forget=[target]) == [host]
    assert session.scalars(select(EndpointLiveness)).all() == []
