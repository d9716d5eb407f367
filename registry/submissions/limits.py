"""The limits on new submissions (POST /submissions), counted in the database so they hold
across API replicas: per client address and per registrable domain within a sliding window,
and a cap on the queue. Functions take a Session and at most flush()."""

from __future__ import annotations

import hashlib
import hmac
import math
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import lru_cache

from publicsuffixlist import PublicSuffixList
from sqlalchemy import func, select, text
from sqlalchemy.orm import InstrumentedAttribute, Session

from registry.config import Settings
from registry.db.tables import Submission

QUEUE_FULL_RETRY = 60  # seconds: the queue drains as crawls run
# One advisory lock key for every new submission on PostgreSQL, so two replicas checking the
# same limit at once cannot both pass it (SQLite's BEGIN IMMEDIATE serialises writers anyway).
_LOCK_KEY = 0x5B3175B1


class Limited(Exception):
    """A submission refused by a limit: ``code``, a message and the seconds to wait."""

    def __init__(self, code: str, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.code = code
        self.retry_after = retry_after


@dataclass(frozen=True)
class Limits:
    per_client: int = 20  # 0: no limit
    per_domain: int = 5
    window: float = 3600.0  # seconds
    max_queued: int = 1000

    @classmethod
    def from_settings(cls, settings: Settings) -> Limits:
        return cls(
            settings.submit_per_client,
            settings.submit_per_domain,
            settings.submit_window,
            settings.submit_max_queued,
        )


def registrable_domain(host: str) -> str:
    """The registrable domain of ``host`` by the Public Suffix List (``a.b.example.co.uk`` ->
    ``example.co.uk``); an IP address, a public suffix or a bare name is its own."""
    if ":" in host or host.replace(".", "").isdigit():
        return host
    return _suffixes().privatesuffix(host) or host


@lru_cache(maxsize=1)
def _suffixes() -> PublicSuffixList:
    """The list bundled in the wheel (nothing is downloaded), parsed once, when first needed:
    0.2 s that a crawl or a search never pays."""
    return PublicSuffixList()


def client_hash(address: str, key: str) -> str:
    """What is stored of a client address: an HMAC-SHA256 under ``key``, hex."""
    return hmac.new(key.encode(), address.encode(), hashlib.sha256).hexdigest()


def check_limits(
    session: Session, client: str | None, domain: str, limits: Limits, now: datetime
) -> None:
    """Raise Limited when one more submission from ``client`` for ``domain`` is too many."""
    if session.get_bind().dialect.name == "postgresql":
        session.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _LOCK_KEY})
    queued = (
        session.scalar(
            select(func.count()).select_from(Submission).where(Submission.status == "queued")
        )
        or 0
    )
    if queued >= limits.max_queued:
        raise Limited(
            "queue-full",
            f"{queued} submissions are waiting to be crawled; retry in {QUEUE_FULL_RETRY} s",
            QUEUE_FULL_RETRY,
        )
    if client is not None and limits.per_client:
        wait = _wait(session, Submission.client, client, limits.per_client, limits.window, now)
        if wait:
            raise Limited(
                "rate-limited",
                f"more than {limits.per_client} submissions from "
                f"this client in {limits.window:g} s; retry in {wait} s",
                wait,
            )
    if limits.per_domain:
        wait = _wait(session, Submission.domain, domain, limits.per_domain, limits.window, now)
        if wait:
            raise Limited(
                "rate-limited",
                f"more than {limits.per_domain} submissions for "
                f"{domain} in {limits.window:g} s; retry in {wait} s",
                wait,
            )


def _wait(
    session: Session,
    column: InstrumentedAttribute[str | None] | InstrumentedAttribute[str],
    value: str,
    cap: int,
    window: float,
    now: datetime,
) -> int:
    """Seconds until one more is allowed (0: now): when the cap-th latest leaves the window."""
    since = now - timedelta(seconds=window)
    latest = list(
        session.scalars(
            select(Submission.created_at)
            .where(column == value, Submission.created_at > since)
            .order_by(Submission.created_at.desc())
            .limit(cap)
        )
    )
    if len(latest) < cap:
        return 0
    frees = latest[-1] + timedelta(seconds=window)
    return max(1, math.ceil((frees - now).total_seconds()))
