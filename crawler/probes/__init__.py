"""Liveness probes of the endpoints sites list (docs/RELIABILITY.md 54).

A crawl probes the endpoints it found (``probe_sites``); ``crawl --due`` and the workers probe
those whose next probe is due (``probe_due``). Each probe asks only its protocol's read-only
handshake (crawler/probes/ask.py): an MCP server ``server/discover`` or ``initialize`` and
``tools/list``, an A2A agent its card, an ARD registry its catalog; a plain HTTP action is
never called. Politeness: one client per host, that host's probes one after another with the
crawl delay (or robots.txt's Crawl-delay) between them, the crawler's User-Agent, robots.txt
and Web Bot Auth signature (crawler/probes/polite.py), the address guard on every connection;
hosts are probed ``Settings.probe_concurrency`` at once.

What they found goes to the store (registry/store/liveness.py), and a live MCP server's tools
become actions: its ``tools/list`` is promoted as a document of the site at the endpoint's URL.
"""

from __future__ import annotations

import logging
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from sqlalchemy import Engine

from crawler.guard import AddressPolicy
from registry.config import Settings
from registry.db.engine import DB_AWAY, first_line, transaction
from registry.model.liveness import ProbeOutcome, ProbeTarget
from registry.model.schemas import RawDocument, SiteCrawl
from registry.normalising import normalise_site
from registry.store.liveness import due_targets, probe_targets, record, site_origins
from registry.store.promotion import promote_site
from registry.store.rows import utcnow

if TYPE_CHECKING:
    from crawler.probes.polite import Polite

logger = logging.getLogger(__name__)
DUE_LIMIT = 1000  # endpoints one `crawl --due` probes at most


@dataclass
class ProbeSummary:
    endpoints: int = 0
    statuses: dict[str, int] = field(default_factory=dict)
    requests: int = 0
    seconds: float = 0.0  # the probes' latencies added up (they run several hosts at once)
    tools: int = 0  # tools of live MCP servers now stored as actions
    disallowed: int = 0  # endpoints robots.txt of their host disallows: not asked
    changed_sites: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def probe_all(
    targets: Sequence[ProbeTarget],
    policy: AddressPolicy,
    settings: Settings,
    delay: float = 1.0,
    polite: Polite | None = None,
) -> list[ProbeOutcome]:
    """Probe every target: hosts at once, each host's targets one after another, robots.txt
    read before the first (``polite``: one run's rules and signer)."""
    # The HTTP client's modules (httpx2, anyio, mcp_types: ~0.2 s to load) only when probing.
    from crawler.probes.ask import probe
    from crawler.probes.polite import Polite
    from crawler.probes.transport import client

    polite = polite or Polite(settings)
    by_host: dict[str, list[ProbeTarget]] = defaultdict(list)
    for target in targets:
        by_host[urlsplit(target.probe_url).netloc.lower()].append(target)

    def one_host(group: list[ProbeTarget]) -> list[ProbeOutcome]:
        found = []
        with polite.attach(client(policy, settings.user_agent, settings.probe_timeout)) as http:
            for i, target in enumerate(group):
                polite.rules(http, target.probe_url)  # fetched before the probe's clock starts
                if i:
                    time.sleep(max(delay, polite.crawl_delay(target.probe_url)))
                found.append(probe(target, http, settings.probe_timeout, settings.probe_max_bytes))
        return found

    if not by_host:
        return []
    workers = min(settings.probe_concurrency, len(by_host))
    with ThreadPoolExecutor(workers, thread_name_prefix="probe") as pool:
        return [o for group in pool.map(one_host, by_host.values()) for o in group]


def probe_sites(
    engine: Engine, settings: Settings, policy: AddressPolicy, hosts: Sequence[str], delay: float
) -> ProbeSummary:
    """After a crawl of ``hosts``: probe every endpoint they list now, forget the rest."""
    try:
        with transaction(engine) as session:
            targets = probe_targets(session, hosts)
    except DB_AWAY as exc:  # the crawl is stored or spooled; its probes wait until due
        logger.warning("no probes after the crawl, database unavailable: %s", first_line(exc))
        return ProbeSummary()
    outcomes, requests = _probe(targets, policy, settings, delay)
    return _store(engine, settings, outcomes, hosts, requests)


def probe_due(
    engine: Engine,
    settings: Settings,
    policy: AddressPolicy,
    limit: int = DUE_LIMIT,
    only: Sequence[str] | None = None,
    delay: float = 1.0,
) -> ProbeSummary:
    """Probe the endpoints whose next probe is due (of the hosts ``only``, when given)."""
    with transaction(engine) as session:
        targets = due_targets(session, utcnow(), limit, only)
    outcomes, requests = _probe(targets, policy, settings, delay)
    return _store(engine, settings, outcomes, (), requests)


def _probe(
    targets: Sequence[ProbeTarget], policy: AddressPolicy, settings: Settings, delay: float
) -> tuple[list[ProbeOutcome], int]:
    """The outcomes and the robots.txt requests asked for them; with no target, no client
    is made (nor its modules loaded: most crawls list no endpoint)."""
    if not targets:
        return [], 0
    from crawler.probes.polite import Polite

    polite = Polite(settings)
    return probe_all(targets, policy, settings, delay, polite), polite.requests


def _store(
    engine: Engine,
    settings: Settings,
    outcomes: list[ProbeOutcome],
    complete: Sequence[str],
    robots_requests: int = 0,
) -> ProbeSummary:
    """Store the verdicts; an endpoint robots.txt now disallows has none, and its stored one
    is forgotten (the owner's word, as for a document: docs/RELIABILITY.md 56)."""
    asked = [o for o in outcomes if not o.disallowed]
    summary = ProbeSummary(
        endpoints=len(asked),
        statuses=dict(Counter(o.status for o in asked)),
        requests=sum(o.requests for o in outcomes) + robots_requests,
        seconds=round(sum((o.latency_ms or 0) for o in asked) / 1000, 3),
        disallowed=len(outcomes) - len(asked),
    )
    forget = [o.target for o in outcomes if o.disallowed]
    try:
        changed = set(_promote_tools(engine, settings, asked, summary))
        with transaction(engine) as session:
            changed |= set(record(session, asked, complete, forget))
    except DB_AWAY as exc:  # probes are redone when due; nothing else depends on them
        logger.warning("probe outcomes not stored, database unavailable: %s", first_line(exc))
        return summary
    summary.changed_sites = sorted(changed)
    return summary


def _promote_tools(
    engine: Engine, settings: Settings, outcomes: list[ProbeOutcome], summary: ProbeSummary
) -> list[str]:
    """Each live MCP server's tools/list, promoted as a document of its site (normalised
    outside the transaction, one transaction per site)."""
    live = [o for o in outcomes if o.tools is not None]
    if not live:
        return []
    from crawler.probes.ask import tools_body

    with transaction(engine) as session:
        origins = site_origins(session, {o.target.host for o in live})
    changed = []
    for outcome in live:
        host = outcome.target.host
        if host not in origins:
            continue
        raw = RawDocument(
            url=outcome.target.endpoint,
            body=tools_body(outcome),
            content_type="application/json",
            fetched_at=outcome.checked_at,
        )
        update = normalise_site(SiteCrawl(host=host, origin=origins[host], documents=[raw]))
        with transaction(engine) as session:
            result = promote_site(
                session, update, max_actions=settings.max_actions_per_site, reason="probe"
            )
        summary.tools += sum(len(d.manifest.actions) for d in update.documents)
        if result.changed:
            changed.append(host)
    return changed
