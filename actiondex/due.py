"""`actiondex crawl --due`: crawl every site that is due once, then exit (a cron line or a
systemd timer is all an embedded deployment needs to stay fresh).

``crawl_selection`` is the one place that decides what such a run crawls.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from actiondex.crawling import CrawlOptions, crawl_and_index
from actiondex.policy import make_policy
from actiondex.runtime import UserError, open_index, open_store
from crawler.probes import probe_due
from crawler.targets import site_origin
from registry.config import Settings
from registry.db.engine import transaction
from registry.db.tables import Site
from registry.store.rows import utcnow
from registry.store.schedule import due_work

DEFAULT_LIMIT = 1000  # sites one `crawl --due` takes at most; the rest wait for the next


def crawl_selection(session: Session, limit: int, only: list[str] | None = None) -> list[str]:
    """The targets one `crawl --due` run crawls, in order: pending submissions first, oldest
    first (their submitted URLs: a new host has no stored origin yet), then the sites due now
    (stored origins), most overdue first; with ``only`` (hosts), just those of them."""
    work = due_work(session, utcnow(), limit, only)  # what is due is decided there, once
    hosts = [host for host, url in work if url is None]
    query = select(Site.host, Site.origin).where(Site.host.in_(hosts))
    origins = {host: origin for host, origin in session.execute(query)}
    return [url or origins[host] for host, url in work if url or host in origins]


def target_hosts(targets: list[str]) -> list[str]:
    """The hosts TARGETs name (domains or URLs); a malformed one is one clear line."""
    hosts = []
    for target in targets:
        try:
            hosts.append(site_origin(target)[0])
        except ValueError as exc:
            raise UserError(f"{target}: {exc}") from None
    return hosts


def crawl_due(
    settings: Settings,
    targets: list[str],
    limit: int,
    resolve: list[str],
    allow_private: bool | None,
    quiet: bool = False,
    options: CrawlOptions | None = None,
) -> dict[str, Any]:
    """Crawl the sites that are due (of ``targets``, when given) and bring the index up to
    date. Nothing due: an empty summary with ``due: 0``, not an error."""
    only = target_hosts(targets) if targets else None
    engine: Engine = open_store(settings)
    with transaction(engine) as session:
        selected = crawl_selection(session, limit, only)
    summary = _crawl(settings, selected, resolve, allow_private, quiet, options, engine)
    probed = probes_due(settings, only, limit, resolve, allow_private, engine, options)
    if probed is not None:
        summary["probes_due"] = probed
    return summary


def probes_due(
    settings: Settings,
    only: list[str] | None,
    limit: int,
    resolve: list[str],
    allow_private: bool | None,
    engine: Engine,
    options: CrawlOptions | None,
) -> dict[str, Any] | None:
    """The liveness probes that are due, beside the crawls (crawler/probes): what they found,
    the index brought up to date when a status changed. None when probes are off."""
    if not settings.probes:
        return None
    policy = make_policy(settings, resolve, allow_private)
    delay = (options or CrawlOptions()).delay
    probed = probe_due(engine, settings, policy, limit, only, delay).as_dict()
    if probed["changed_sites"] and (options is None or options.index):
        open_index(settings, engine)
    return probed


def _crawl(
    settings: Settings,
    selected: list[str],
    resolve: list[str],
    allow_private: bool | None,
    quiet: bool,
    options: CrawlOptions | None,
    engine: Engine,
) -> dict[str, Any]:
    if not selected:
        return {
            "kind": "crawl",
            "due": 0,
            "sites": 0,
            "documents": 0,
            "actions": 0,
            "flows": 0,
            "errors": 0,
            "changed_sites": [],
            "per_site": [],
        }
    summary = crawl_and_index(
        settings, selected, resolve, allow_private, quiet=quiet, options=options, engine=engine
    )
    return {**summary, "due": len(selected)}
