"""Retries with exponential back-off that honour ``Retry-After`` (RFC 9110 10.2.3).

Scrapy's RetryMiddleware retries at once, which hammers a site that just said it is busy. Here
a retry waits ``BACKOFF_BASE * 2**n`` seconds, or longer when the site asks; a site asking for
more than MAX_RETRY_AFTER gets no retry (the request fails as ``rate-limited``/``http-error``,
and the next crawl tries again) so one site cannot hold a crawl's concurrency slots.
"""

from __future__ import annotations

from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

from scrapy import Request
from scrapy.downloadermiddlewares.retry import RetryMiddleware
from scrapy.http import Response
from scrapy.utils.defer import maybe_deferred_to_future
from scrapy.utils.response import response_status_message
from twisted.internet.task import deferLater

from crawler.responses import tls_error

BACKOFF_BASE = 1.0
MAX_RETRY_AFTER = 30.0


def retry_after(value: bytes | None, now: datetime | None = None) -> float | None:
    """Seconds a ``Retry-After`` header asks for (delta-seconds or an HTTP date), or None."""
    if not value:
        return None
    text = value.decode("latin-1").strip()
    if text.isdigit():
        return float(text)
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


class BackoffRetryMiddleware(RetryMiddleware):
    async def process_response(
        self,
        request: Request,
        response: Response,  # type: ignore[override]
        spider: object = None,
    ) -> Request | Response:
        if request.meta.get("dont_retry") or response.status not in self.retry_http_codes:
            return response
        asked = retry_after(response.headers.get("Retry-After"))
        if asked is not None and asked > MAX_RETRY_AFTER:
            return response
        retry = self._retry(request, response_status_message(response.status))
        if retry is None:
            return response
        await self._wait(max(asked or 0.0, self._backoff(retry)))
        return retry

    async def process_exception(
        self,
        request: Request,
        exception: Exception,  # type: ignore[override]
        spider: object = None,
    ) -> Request | Response | None:
        if tls_error(exception) is not None:
            return None  # a certificate that does not verify will not verify a second later
        retry = super().process_exception(request, exception)
        if isinstance(retry, Request):
            await self._wait(self._backoff(retry))
        return retry

    @staticmethod
    def _backoff(retry: Request) -> float:
        return BACKOFF_BASE * 2 ** (int(retry.meta.get("retry_times", 1)) - 1)

    @staticmethod
    async def _wait(seconds: float) -> None:
        from twisted.internet import reactor  # the running one; importing early installs one

        await maybe_deferred_to_future(deferLater(reactor, seconds, lambda: None))
