"""Downloader middleware applying the AddressPolicy to every request and every redirect hop.

Scrapy's RedirectMiddleware answers a 3xx with a new Request that goes back through the
scheduler and so through ``process_request`` here again: each hop is checked before it connects.
Names the resolver refused come back as DNS errors; they are turned into BlockedAddress here,
before RetryMiddleware would retry them.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from scrapy import Request
from scrapy.exceptions import CannotResolveHostError, IgnoreRequest

from crawler.guard import AddressPolicy
from crawler.resolver import POLICY_SETTING, refusal_for


class BlockedAddress(IgnoreRequest):
    """The policy refused a URL; the message is the one-line reason."""


class AddressGuardMiddleware:
    def __init__(self, policy: AddressPolicy, stats: Any) -> None:
        self.policy = policy
        self.stats = stats

    @classmethod
    def from_crawler(cls, crawler: Any) -> AddressGuardMiddleware:
        return cls(crawler.settings.get(POLICY_SETTING) or AddressPolicy(), crawler.stats)

    def process_request(self, request: Request) -> None:
        reason = self.policy.check_url(request.url)
        if reason is not None:
            self.stats.inc_value("guard/refused")
            # The request's errback receives this and records FetchFailure "blocked-address".
            raise BlockedAddress(reason)

    def process_exception(self, request: Request, exception: Exception) -> None:
        if isinstance(exception, CannotResolveHostError):
            reason = refusal_for(urlsplit(request.url).hostname or "")
            if reason is not None:
                self.stats.inc_value("guard/refused")
                raise BlockedAddress(reason) from exception
