"""Scrapy settings derived from the one registry Settings object (see RELIABILITY.md section 3)."""

from __future__ import annotations

from typing import Any

from crawler.guard import AddressPolicy
from crawler.resolver import POLICY_SETTING
from registry.config import Settings

MIB = 1024 * 1024
REGISTRY_SETTING = "ACTIONDEX_SETTINGS"
MANIFEST_MAXSIZE = 1 * MIB
PAGE_MAXSIZE = 10 * MIB


def scrapy_settings(settings: Settings, policy: AddressPolicy,
                    log_level: str = "ERROR") -> dict[str, Any]:
    """Polite, bounded, guarded defaults; the policy and registry settings ride along."""
    return {
        "BOT_NAME": "actiondex",
        "USER_AGENT": settings.user_agent,
        # The spider applies RFC 9309 itself: 4xx allow all, 5xx or unreachable disallow all.
        "ROBOTSTXT_OBEY": False,
        "CONCURRENT_REQUESTS": 32,
        "CONCURRENT_REQUESTS_PER_DOMAIN": 2,
        "DOWNLOAD_DELAY": 1.0,
        "AUTOTHROTTLE_ENABLED": True,
        "AUTOTHROTTLE_START_DELAY": 1.0,
        "AUTOTHROTTLE_MAX_DELAY": 30.0,
        "AUTOTHROTTLE_TARGET_CONCURRENCY": 1.0,
        "DOWNLOAD_TIMEOUT": settings.request_timeout,
        "DNS_TIMEOUT": min(10.0, settings.request_timeout),
        "DOWNLOAD_MAXSIZE": PAGE_MAXSIZE,
        "DOWNLOAD_WARNSIZE": 2 * MIB,
        "DOWNLOAD_FAIL_ON_DATALOSS": True,
        "RETRY_TIMES": 2,
        # An unreachable site is data for the store (a FetchFailure), not a crawler error.
        "RETRY_GIVE_UP_LOG_LEVEL": "WARNING",
        "REDIRECT_MAX_TIMES": 5,
        # A meta refresh is navigation, not a document move; following it would fetch pages
        # we never asked for.
        "METAREFRESH_ENABLED": False,
        "COOKIES_ENABLED": False,
        "TELNETCONSOLE_ENABLED": False,
        # An http_proxy from the environment would connect somewhere the resolver never vets.
        "HTTPPROXY_ENABLED": False,
        "LOG_LEVEL": log_level,
        "TWISTED_DNS_RESOLVER": "crawler.resolver.GuardedResolver",
        # Last before the download handler, so no later middleware can rewrite a checked URL.
        "DOWNLOADER_MIDDLEWARES": {"crawler.middlewares.AddressGuardMiddleware": 990},
        "ITEM_PIPELINES": {"crawler.pipelines.StorePipeline": 300},
        POLICY_SETTING: policy,
        REGISTRY_SETTING: settings,
    }
