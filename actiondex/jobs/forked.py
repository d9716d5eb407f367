"""Crawl children forked from a pre-loaded zygote instead of started from scratch.

A fresh `python -m actiondex crawl` spends most of its few CPU-seconds importing Python, Scrapy,
SQLAlchemy and extruct before its first request; on a busy machine that, not the crawl, bounds a
worker. multiprocessing's forkserver imports them once, in a process that has started nothing
(no reactor, no connection, no thread), and forks a child per job from it. Each child is still a
new process that runs one crawl and exits, so Scrapy's reactor starts once per process and the
memory of a crawl goes back with it; the child runs the very command line `actiondex crawl ...`
would (the program `python -m actiondex`, run by name, so this module never imports the command
line that contains it), its stdout and stderr in files the worker reads when it ends.

Dying with the worker: each child watches the worker itself (a pidfd, ``_die_with``) and kills
itself when the worker ends. PR_SET_PDEATHSIG alone is not enough: a child's parent is the
forkserver, and the forkserver exits only when every holder of its "alive" pipe is gone, which
includes each child (multiprocessing hands them a copy), so a worker killed with -9 left its
children crawling, unsupervised, beside the retries of their jobs. Once the children are gone,
the forkserver follows.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import runpy
import select
import signal
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

from actiondex.jobs.child import TERM_GRACE, ChildFailed, ChildResult, parse_summary

PRELOAD = [
    "actiondex.cli",
    "actiondex.crawling",
    "crawler.spiders.site",
    "crawler.pipelines",
    "scrapy.crawler",
    "scrapy.core.engine",
    "scrapy.downloadermiddlewares.retry",
    "scrapy.core.downloader.handlers.http11",
    "registry.store.promotion",
    # Loaded by a crawl only when an endpoint is due a probe (crawler/probes): once here, so
    # no child that probes pays for them.
    "crawler.probes.ask",
    "crawler.probes.polite",
    "crawler.probes.transport",
    "crawler.preload",  # what a crawl imports only once it starts (Scrapy's components)
]
_context: Any = None


def context() -> Any:
    """The worker's one forkserver context."""
    global _context
    if _context is None:
        _context = multiprocessing.get_context("forkserver")
        _context.set_forkserver_preload(PRELOAD)
    return _context


def warm_up() -> None:
    """Start the forkserver and let it import the crawler now (seconds), before the worker
    takes jobs: a job must never block the worker's event loop, or its heartbeat stops and the
    scheduler takes it for dead."""
    from multiprocessing import forkserver

    context()
    forkserver.ensure_running()
    proc = context().Process(target=_noop)
    proc.start()
    proc.join()


def _noop() -> None:
    pass


def _die_with(worker: int) -> None:
    """SIGKILL this process when ``worker`` ends (now, if it has ended already)."""
    try:
        pidfd = os.pidfd_open(worker)
    except ProcessLookupError:
        os._exit(1)

    def watch() -> None:
        select.select([pidfd], [], [])  # readable once the process has ended
        os.kill(os.getpid(), signal.SIGKILL)

    threading.Thread(target=watch, name="die-with-worker", daemon=True).start()


def _child(worker: int, argv: list[str], out: str, err: str) -> None:
    """In the forked child: die with the worker (and the forkserver), write where the worker
    reads, run the command as `actiondex ARGS` would."""
    import ctypes
    import gc

    # What the forkserver imported is never garbage here: out of the collector's sight, so
    # the child's first full collection does not walk (and copy, page by page) all of it.
    gc.freeze()
    ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG: the forkserver's death
    _die_with(worker)
    for path, fd in ((out, 1), (err, 2)):
        target = os.open(path, os.O_WRONLY | os.O_TRUNC)
        os.dup2(target, fd)
        os.close(target)
    sys.argv = ["actiondex", *argv]
    runpy.run_module("actiondex", run_name="__main__")  # as `python -m actiondex ARGV`


async def run_forked(argv: list[str], timeout: float) -> ChildResult:
    """Run `actiondex ARGV` in a forked child; its stdout must be one JSON object."""
    with tempfile.TemporaryDirectory(prefix="actiondex-job-") as tmp:
        out, err = Path(tmp) / "stdout", Path(tmp) / "stderr"
        out.touch()
        err.touch()
        proc = context().Process(
            target=_child, args=(os.getpid(), argv, str(out), str(err)), daemon=False
        )
        await asyncio.to_thread(proc.start)  # a round trip to the forkserver: off the loop
        try:
            await asyncio.wait_for(_ended(proc), timeout)
        except TimeoutError:
            await _stop(proc)
            raise ChildFailed(f"timed out after {timeout:.0f} s") from None
        except asyncio.CancelledError:
            await _stop(proc)
            raise
        return parse_summary(out.read_bytes(), err.read_bytes(), int(proc.exitcode))


async def _ended(proc: Any) -> None:
    loop = asyncio.get_running_loop()
    done = loop.create_future()
    loop.add_reader(proc.sentinel, lambda: done.done() or done.set_result(None))
    try:
        await done
    finally:
        loop.remove_reader(proc.sentinel)
    proc.join()


async def _stop(proc: Any) -> None:
    """SIGTERM (Scrapy closes the spider and the run is recorded), then SIGKILL."""
    if proc.exitcode is not None:
        return
    proc.terminate()
    try:
        await asyncio.wait_for(_ended(proc), TERM_GRACE)
    except TimeoutError:
        proc.kill()
        await asyncio.to_thread(proc.join)
