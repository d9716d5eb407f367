"""Workers and the scheduler wait out a database outage instead of dying (issue 25.3).

Every call the queue makes (procrastinate's connector) and every store call of a job waits
while PostgreSQL is unreachable: it tries again after 1 s, 2 s, 4 s ... 30 s at most, for as long
as it takes. The process logs one line when the database goes away ("database unreachable,
waiting") and one when it is back ("database back after N s"), however many of its tasks
were waiting. Only an unreachable database is waited out: any other error is raised as before.

The scheduler does not judge heartbeats right after an outage (``settled``): a worker's and a
crawl's heartbeats stopped with the database, not because they died.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Iterator
from typing import TypeVar

import psycopg

log = logging.getLogger("actiondex.jobs")
T = TypeVar("T")

BACKOFF_FIRST = 1.0  # seconds before the first new attempt
BACKOFF_CAP = 30.0  # the longest wait between attempts
# SQLSTATE classes of a lost server: 08 connection exception, 57P admin/crash shutdown,
# cannot connect now (starting up or shutting down).
LOST = ("08", "57P")


def backoff(first: float = BACKOFF_FIRST, cap: float = BACKOFF_CAP) -> Iterator[float]:
    """Waits between attempts: ``first``, doubling, at most ``cap``."""
    delay = first
    while True:
        yield delay
        delay = min(delay * 2, cap)


def driver_error(exc: BaseException) -> psycopg.Error | None:
    """The psycopg error under ``exc`` (procrastinate's or SQLAlchemy's wrapper), if any."""
    seen: BaseException | None = exc
    for _ in range(8):
        if seen is None or isinstance(seen, psycopg.Error):
            return seen
        seen = getattr(seen, "orig", None) or seen.__cause__ or seen.__context__
    return None


def unreachable(exc: BaseException) -> bool:
    """Whether ``exc`` says the server cannot be reached, rather than that a statement
    failed."""
    error = driver_error(exc)
    if isinstance(error, psycopg.InterfaceError):
        return True
    if isinstance(error, psycopg.OperationalError):
        state = error.sqlstate  # None: failed on the client side (refused, closed, pool)
        return state is None or state.startswith(LOST)
    return False


class Outage:
    """Whether this process finds the database reachable; logs each change once."""

    def __init__(
        self, logger: logging.Logger = log, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.logger, self.clock = logger, clock
        self.down_since: float | None = None
        self.back_at: float | None = None

    @property
    def down(self) -> bool:
        return self.down_since is not None

    def failed(self, exc: BaseException) -> None:
        if self.down_since is None:
            self.down_since = self.clock()
            cause = driver_error(exc) or exc
            reason = (str(cause).strip().splitlines() or [type(cause).__name__])[0][:200]
            self.logger.warning("database unreachable, waiting (%s)", reason)

    def reached(self) -> None:
        if self.down_since is not None:
            self.back_at = self.clock()
            self.logger.warning("database back after %.0f s", self.back_at - self.down_since)
            self.down_since = None

    def settled(self, seconds: float) -> bool:
        """The database is reachable and was for the last ``seconds`` at least (or always)."""
        if self.down_since is not None:
            return False
        return self.back_at is None or self.clock() - self.back_at >= seconds


OUTAGE = Outage()  # the process's one view of the database


async def wait_out(
    call: Callable[[], Awaitable[T]],
    outage: Outage = OUTAGE,
    first: float = BACKOFF_FIRST,
    cap: float = BACKOFF_CAP,
) -> T:
    """``await call()``, again and again with backoff while the database is unreachable."""
    delays = backoff(first, cap)
    while True:
        try:
            result = await call()
        except Exception as exc:
            if not unreachable(exc):
                raise
            outage.failed(exc)
            await asyncio.sleep(next(delays))
            continue
        outage.reached()
        return result


async def wait_out_sync(call: Callable[[], T], outage: Outage = OUTAGE) -> T:
    """A blocking store call (SQLAlchemy), in a thread, waited out as ``wait_out`` does."""
    return await wait_out(lambda: asyncio.to_thread(call), outage)
