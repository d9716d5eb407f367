"""Scrapy settings derived from the one registry Settings object (docs/RELIABILITY.md, Limits)."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version
from typing import Any

from crawler.guard import AddressPolicy
from crawler.resolver import POLICY_SETTING
from registry.config import Settings

MIB = 1024 * 1024
REGISTRY_SETTING = "ACTIONDEX_SETTINGS"
ENGINE_SETTING = "ACTIONDEX_ENGINE"  # a Shared(Engine): the process's one database engine
RUN_SETTING = "ACTIONDEX_RUN_ID"  # the crawl run's id, for the sites' history entries
MANIFEST_MAXSIZE = 1 * MIB
PAGE_MAXSIZE = 10 * MIB
CONCURRENT_REQUESTS = 100  # in flight in all, across hosts


class Shared:
    """Carries an object through Scrapy's settings by reference. A Crawler deep-copies its
    settings, and a copied database engine would be a second pool on the same database."""

    def __init__(self, value: Any) -> None:
        self.value = value

    def __deepcopy__(self, memo: dict[int, Any]) -> Shared:
        return self


def brotli_is_safe() -> bool:
    """brotli < 1.2 cannot bound its output per chunk, so a small body could decode to GiBs."""
    try:
        release = version("brotli")
    except PackageNotFoundError:
        return False
    parts = [int(p) for p in release.split(".")[:2] if p.isdigit()]
    return tuple(parts) >= (1, 2)


def scrapy_settings(
    settings: Settings, policy: AddressPolicy, log_level: str = "ERROR", delay: float = 1.0
) -> dict[str, Any]:
    """Polite, bounded, guarded defaults; the policy and registry settings ride along."""
    return {
        "BOT_NAME": "actiondex",
        "USER_AGENT": settings.user_agent,
        # The spider applies RFC 9309 itself: 4xx allow all, 5xx or unreachable disallow all.
        "ROBOTSTXT_OBEY": False,
        # Broad-crawl settings (Scrapy's "Broad Crawls" page; issue 23.1): a request waiting
        # out its host's delay holds one of CONCURRENT_REQUESTS, so 32 left most hosts idle
        # while a few hosts' queues filled it; the downloader-aware queue hands out requests
        # of the hosts with the fewest in flight first, looking at a few hosts a request, not
        # all of them as Scrapy's own does (crawler/queue.py: at 10,000 sites Scrapy's spent
        # two thirds of the crawl's time there). Per host: still DOWNLOAD_DELAY and 2.
        "CONCURRENT_REQUESTS": CONCURRENT_REQUESTS,
        "SCHEDULER_PRIORITY_QUEUE": "crawler.queue.RingPriorityQueue",
        "REACTOR_THREADPOOL_MAXSIZE": 20,  # getaddrinfo and the store's promotions
        "CONCURRENT_REQUESTS_PER_DOMAIN": 2,
        # Per response, Scrapy starts CONCURRENT_ITEMS asyncio tasks to take its callback's
        # output, however little it yields (100 by default: a fifth of the reactor's time at
        # 150 sites). Ours yield requests (scheduled at once) and at most one SiteResult, whose
        # store waits for its turn anyway: one task does the same work.
        "CONCURRENT_ITEMS": 1,
        # Scrapy checks each callback for `return value` by reading and parsing its source,
        # for every response when the callback is a bound method (its cache holds it weakly):
        # a tenth of the crawl's CPU. The spiders' tests cover what the warning would catch.
        "WARN_ON_GENERATOR_RETURN_VALUE": False,
        # The minimum gap between requests to one host; AutoThrottle only ever widens it.
        "DOWNLOAD_DELAY": delay,
        "AUTOTHROTTLE_ENABLED": True,
        "AUTOTHROTTLE_START_DELAY": delay,
        "AUTOTHROTTLE_MAX_DELAY": 30.0,
        "AUTOTHROTTLE_TARGET_CONCURRENCY": 1.0,
        "DOWNLOAD_TIMEOUT": settings.request_timeout,
        "DNS_TIMEOUT": min(10.0, settings.request_timeout),
        "DOWNLOAD_MAXSIZE": PAGE_MAXSIZE,
        "DOWNLOAD_WARNSIZE": 2 * MIB,
        "DOWNLOAD_FAIL_ON_DATALOSS": True,
        # Scrapy accepts any certificate by default; a manifest from a host whose certificate
        # does not verify could be anyone's (docs/RELIABILITY.md 21): it is refused as tls-invalid.
        # Trust comes from the system store; SSL_CERT_FILE / SSL_CERT_DIR add a private CA.
        "DOWNLOAD_VERIFY_CERTIFICATES": True,
        "RETRY_TIMES": 2,
        # An unreachable site is data for the store (a FetchFailure), not a crawler error.
        "RETRY_GIVE_UP_LOG_LEVEL": "WARNING",
        "REDIRECT_MAX_TIMES": 5,
        # A meta refresh is navigation, not a document move; following it would fetch pages
        # we never asked for.
        "METAREFRESH_ENABLED": False,
        "COOKIES_ENABLED": False,
        # Without a safe brotli, ``br`` must not be offered (docs/RELIABILITY.md 2).
        "DEFAULT_REQUEST_HEADERS": {
            "Accept": "text/html,application/xhtml+xml,application/json;q=0.9,*/*;q=0.8",
            "Accept-Encoding": "gzip, deflate, br" if brotli_is_safe() else "gzip, deflate",
        },
        "TELNETCONSOLE_ENABLED": False,
        # Scrapy 2.19's RemoteControl (on by default) serves an HTTP endpoint on localhost that
        # runs the Python a request carries, its token in a file under ~/.local/state: no
        # process that reads hostile pages carries one (docs/RELIABILITY.md 61). Off, and out
        # of the extensions with the telnet console, so neither module (nor aiohttp's web
        # server) is even imported.
        "REMOTE_CONTROL_ENABLED": False,
        "EXTENSIONS": {
            "scrapy.extensions.remote_control.RemoteControl": None,
            "scrapy.extensions.telnet.TelnetConsole": None,
        },
        # An http_proxy from the environment would connect somewhere the resolver never vets.
        "HTTPPROXY_ENABLED": False,
        "LOG_LEVEL": log_level,
        "TWISTED_DNS_RESOLVER": "crawler.resolver.GuardedResolver",
        # Last before the download handler, so no later middleware can rewrite a checked URL.
        "DOWNLOADER_MIDDLEWARES": {
            "crawler.middlewares.AddressGuardMiddleware": 990,
            "scrapy.downloadermiddlewares.retry.RetryMiddleware": None,
            "crawler.retry.BackoffRetryMiddleware": 550,
            # After every middleware that sets headers, before the guard (off: SIGN_REQUESTS).
            "crawler.signing.SigningMiddleware": 980,
        },
        # Each spider middleware wraps every callback's output in one more async generator.
        # Depth only counts (no DEPTH_LIMIT, and the spider follows its own sitemap depth);
        # MetaCopyDetection warns of a spider that copies response.meta (ours builds its own).
        "SPIDER_MIDDLEWARES": {
            "scrapy.spidermiddlewares.depth.DepthMiddleware": None,
            "scrapy.spidermiddlewares.metacopy.MetaCopyDetectionMiddleware": None,
        },
        "RETRY_HTTP_CODES": [429, 500, 502, 503, 504, 522, 524, 408],
        "ITEM_PIPELINES": {"crawler.pipelines.StorePipeline": 300},
        POLICY_SETTING: policy,
        REGISTRY_SETTING: settings,
    }
