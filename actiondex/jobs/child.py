"""A crawl job runs `actiondex crawl ... --json` in a child process the worker supervises.

Why a child and not the worker's own reactor: Scrapy's Twisted reactor cannot be restarted in
a process, and a long-lived reactor shared by concurrent jobs would keep every crawl's memory
(Scrapy's caches, lxml trees, the store's objects) in one process for its lifetime. A child per
job starts clean and gives all of it back when it exits; the worker stays a small asyncio
process that only talks to the queue. The cost is the child's start-up (~1 s), small beside a
polite crawl of one site.

The child dies with its worker (PR_SET_PDEATHSIG on Linux), so a worker killed with -9 leaves
no crawl running that nobody supervises; its run row is swept as aborted by the scheduler.
"""

from __future__ import annotations

import asyncio
import ctypes
import json
import os
import signal
import sys
from dataclasses import dataclass
from typing import Any

PR_SET_PDEATHSIG = 1
TERM_GRACE = 10.0  # seconds a child has to end after SIGTERM before it is killed


class ChildFailed(Exception):
    """The child ended without a summary (crashed, killed, timed out)."""


@dataclass
class ChildResult:
    returncode: int
    summary: dict[str, Any]
    stderr: str


def crawl_args(targets: list[str], due: bool, delay: float, max_pages: int) -> list[str]:
    """`actiondex` arguments of a child crawling the sites of a batch of jobs
    (actiondex.jobs.batch): `crawl --due TARGET...` re-checks and updates the schedule in the
    child; submitted sites (perhaps not stored yet) are a plain `crawl TARGET...`. No index: a
    worker serves no searches (the API replicas keep theirs from the store), and an index per
    worker would cost every crawl a sync."""
    return [
        "crawl",
        *(["--due"] if due else []),
        *targets,
        "--json",
        "--no-index",
        "--delay",
        f"{delay:g}",
        "--max-pages",
        str(max_pages),
    ]


def interpreter(args: list[str]) -> list[str]:
    """`actiondex ARGS` as a fresh interpreter."""
    return [sys.executable, "-m", "actiondex", *args]


def _die_with_parent(parent: int) -> None:
    """Runs in the child between fork and exec: ask the kernel for SIGKILL when the worker
    dies; if it died already (before the prctl), go now."""
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:
        os._exit(1)


async def run_child(
    command: list[str], timeout: float, env: dict[str, str] | None = None
) -> ChildResult:
    """Run ``command``; its stdout must be one JSON object (the crawl summary)."""
    parent = os.getpid()
    proc = await asyncio.create_subprocess_exec(
        *command,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=env,
        preexec_fn=lambda: _die_with_parent(parent),
    )  # safe: no threads fork here
    try:
        out, err = await asyncio.wait_for(proc.communicate(), timeout)
    except TimeoutError:
        await _stop(proc)
        raise ChildFailed(f"timed out after {timeout:.0f} s") from None
    except asyncio.CancelledError:  # the worker is shutting down: end the crawl cleanly
        await _stop(proc)
        raise
    return parse_summary(out, err, proc.returncode or 0)


def parse_summary(out: bytes, err: bytes, returncode: int) -> ChildResult:
    """The child's result: its stdout is one JSON object, else it failed."""
    stderr = err.decode("utf-8", "replace")
    try:
        summary = json.loads(out)
    except ValueError:
        tail = stderr.strip().splitlines()[-1:] or [f"exit {returncode}"]
        raise ChildFailed(f"exit {returncode} without a summary: {tail[0]}") from None
    if not isinstance(summary, dict):
        raise ChildFailed(f"exit {returncode}: not a JSON object")
    return ChildResult(returncode, summary, stderr)


async def _stop(proc: asyncio.subprocess.Process) -> None:
    """SIGTERM (Scrapy closes the spider and the run is recorded), then SIGKILL."""
    if proc.returncode is not None:
        return
    proc.terminate()
    try:
        await asyncio.wait_for(proc.wait(), TERM_GRACE)
    except TimeoutError:
        proc.kill()
        await proc.wait()
