"""SIGTERM during a crawl: the crawl stops and its run is recorded ``aborted``.

While the spider runs, Scrapy's own handlers turn the signal into a graceful stop (the
spider closes with reason "shutdown"). Around them (Scrapy starting up, or not yet) this
handler takes it: during the crawl it stops the reactor, now or once it runs, and Scrapy
stops its crawls gracefully on the way down; outside the crawl it raises CrawlAborted in the
main thread. Either way the request is remembered and the run's record is written.
"""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

from registry.store.crawl_state import CrawlAborted


class StopRequest:
    """Whether a signal asked this crawl to stop."""

    def __init__(self) -> None:
        self.requested = False
        self.crawling = False  # Scrapy's code runs: raising there would be lost in a Deferred
        self.deferred = False  # asked for before Scrapy's reactor was installed

    @contextmanager
    def scrapy_running(self) -> Iterator[None]:
        self.crawling = True
        try:
            yield
        finally:
            self.crawling = False

    def handle(self, signum: int, _frame: FrameType | None) -> None:
        self.requested = True
        if not self.crawling:
            raise CrawlAborted()
        # Scrapy's code runs: an exception raised here would land in one of its Deferreds (an
        # "Unhandled error in Deferred" on stderr) instead of stopping the crawl.
        reactor = sys.modules.get("twisted.internet.reactor")  # never install one here
        if reactor is None:
            self.deferred = True  # Scrapy is installing it: reactor_ready() stops it then
            return
        # Scrapy stops its crawls gracefully on the reactor's way down.
        if getattr(reactor, "running", False):
            reactor.callFromThread(reactor.stop)
        else:
            reactor.callWhenRunning(reactor.stop)

    def reactor_ready(self) -> None:
        """Scrapy's reactor is installed (not yet running): a stop asked for while Scrapy was
        installing it is carried out as soon as it runs."""
        reactor = sys.modules.get("twisted.internet.reactor")
        if self.deferred and reactor is not None:
            self.deferred = False
            reactor.callWhenRunning(reactor.stop)


@contextmanager
def aborting() -> Iterator[StopRequest]:
    """Within the block SIGTERM stops the crawl (main thread only; elsewhere the request
    object never learns of a signal)."""
    stop = StopRequest()
    if threading.current_thread() is not threading.main_thread():
        yield stop
        return
    before = signal.signal(signal.SIGTERM, stop.handle)
    try:
        yield stop
    finally:
        signal.signal(signal.SIGTERM, before)
