"""`actiondex serve` (the API) and `actiondex mcp` (the MCP tools over stdio), each with the
index following the store while it runs."""

from __future__ import annotations

import contextlib
import ctypes
import logging
import os
import socket
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass

import anyio
import uvicorn
from sqlalchemy import Engine

from actiondex import output
from actiondex.runtime import UserError, open_index
from actiondex.submitting import target_check
from api.app import SEARCH_THREADS, create_app
from api.mcp.http import PATH as MCP_PATH
from api.mcp.http import for_listener
from api.observe import ACCESS
from registry.config import Settings
from registry.db.engine import first_line, reading
from registry.formats import ard as ard_format
from registry.index import ActionIndex, vectors

# One process serves every request: /find searches in threads (api.app.SEARCH_THREADS) and
# tantivy releases the GIL while it searches, so searches use every core; worker processes
# would each count the index pages they touch in their resident memory (README, "HTTP API").
# A thread coming back from tantivy waits for the GIL up to this interval while the event
# loop runs Python; 1 ms instead of CPython's 5 ms served 25% more requests at concurrency 16
# (1M actions).
GIL_SWITCH_S = 0.001
# glibc's malloc gives each new thread an arena of its own, up to 8 a core, and each keeps pages
# it freed: the search threads' arenas held ~30 MB of a 1M-action API's resident memory (README,
# "Speed and scale"; 585 MB against 554 with two). glibc's own option number for the limit.
MALLOC_ARENAS, M_ARENA_MAX = 2, -8


def check_port_free(host: str, port: int) -> None:
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as sock:
        # As uvicorn binds: a port whose last server just stopped (TIME_WAIT) is free; one
        # another server listens on is not.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError as exc:
            raise UserError(f"cannot listen on {host}:{port}: {exc.strerror}; pass --port") from exc


def follow_store(
    index: ActionIndex, engine: Engine, stop: threading.Event, settings: Settings
) -> None:
    """New crawl results become searchable within about a poll, without a restart.

    A poll is one indexed query (registry.index.changes), so it runs every second; every
    ``index_reconcile_seconds`` it reads every site instead, to drop deleted site rows. It
    reads in a read-only transaction: on SQLite it takes no write lock from the crawls."""
    reconciled, failing = time.monotonic(), ""
    while not stop.wait(settings.index_poll_seconds):
        full = time.monotonic() - reconciled >= settings.index_reconcile_seconds
        try:
            with reading(engine) as session:
                index.sync(session, full=full)
        except Exception as exc:  # the last good index keeps serving; try again next poll
            line = first_line(exc)
            if line != failing:  # one line when it starts failing, not one a second
                output.info(f"index sync failed, serving the last good index: {line}")
            failing = line
            continue
        if failing:
            output.info("index sync works again")
        reconciled, failing = (time.monotonic() if full else reconciled), ""


def log_access(enabled: bool) -> None:
    """The access log (api.observe) to stderr, a line per request with its UTC time."""
    if not enabled:
        return
    handler = logging.StreamHandler(sys.stderr)
    formatter = logging.Formatter("%(asctime)s %(message)s", "%Y-%m-%dT%H:%M:%SZ")
    formatter.converter = time.gmtime
    handler.setFormatter(formatter)
    ACCESS.addHandler(handler)
    ACCESS.setLevel(logging.INFO)
    ACCESS.propagate = False


@contextlib.contextmanager
def following(index: ActionIndex, engine: Engine, settings: Settings) -> Iterator[None]:
    stop = threading.Event()
    follower = threading.Thread(
        target=follow_store, args=(index, engine, stop, settings), daemon=True
    )
    follower.start()
    try:
        yield
    finally:
        stop.set()


def doors(base: str) -> list[str]:
    """Where each door of a server at ``base`` is, one line each, for people to read."""
    return [
        f"web page:    {base}/  (search, action and site pages, {base}/validator)",
        f"HTTP API:    {base}/find?q=buy+printer+paper  (all routes: {base}/docs)",
        f"MCP:         {base}{MCP_PATH}  (Streamable HTTP; over stdio: `actiondex mcp`)",
        f"ARD v0.91:   {base}/ard/agents  (and POST /ard/search, /ard/explore; this "
        f"registry described: {base}{ard_format.PATHS[0]})",
        f"operations:  {base}/readyz  {base}/metrics",
    ]


def fewer_malloc_arenas() -> bool:
    """At most MALLOC_ARENAS malloc arenas for the threads started from now on, unless the
    operator set MALLOC_ARENA_MAX (glibc read it at start). False where the C library is not
    glibc (nothing to do there) or refuses."""
    if "MALLOC_ARENA_MAX" in os.environ:
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt  # the process's own C library
    except (OSError, AttributeError):  # not glibc: musl, macOS
        return False
    return bool(mallopt(M_ARENA_MAX, MALLOC_ARENAS))


def serve_api(settings: Settings, engine: Engine, host: str, port: int) -> None:
    check_port_free(host, port)
    fewer_malloc_arenas()  # before any thread starts
    log_access(settings.access_log)
    index = open_index(settings, engine, searching=True)
    base = f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"
    output.info(f"serving on {base}  (Ctrl-C stops)")
    for line in doors(base):
        output.info(f"  {line}")
    sys.setswitchinterval(GIL_SWITCH_S)
    with following(index, engine, settings):
        uvicorn.run(
            create_app(
                for_listener(settings, host),
                index=index,
                engine=engine,
                target_check=target_check(settings),
            ),
            host=host,
            port=port,
            log_level="warning",
            access_log=False,
            # The app believes X-Forwarded-For only from ACTIONDEX_TRUSTED_PROXIES
            # (api.app); uvicorn's own default would believe it from loopback.
            proxy_headers=False,
        )


@dataclass
class StdioBacking:
    """What the MCP tools read over stdio (over HTTP: the app's state)."""

    index: ActionIndex
    engine: Engine
    search_threads: anyio.CapacityLimiter


def serve_stdio(settings: Settings, engine: Engine, *, new_store: bool = False) -> None:
    """The MCP tools on stdin/stdout until stdin closes. stdout is the wire: while the store
    and the index open, anything printed goes to stderr instead (the SDK diverts the
    descriptor itself once it serves). A new or empty store is served with a warning on
    stderr: a client started with a relative or mistyped --data-dir finds nothing."""
    from api.mcp.server import build_server  # the SDK: loaded only where MCP is served

    fewer_malloc_arenas()  # before any thread starts
    with contextlib.redirect_stdout(sys.stderr):
        index = open_index(settings, engine, searching=True)
        vectors.load()
    if new_store or not index.searcher().num_docs:
        made = "was just created and " if new_store else ""
        output.info(
            f"actiondex mcp: warning: the store in {settings.data_dir.resolve()} {made}holds "
            "no actions: is --data-dir the right (absolute) folder? `actiondex mcp "
            "--print-config` prints a config with absolute paths"
        )

    async def run() -> None:
        backing = StdioBacking(index, engine, anyio.CapacityLimiter(SEARCH_THREADS))
        await build_server(lambda: backing).run_stdio_async()

    output.info(f"MCP tools on stdio over {output.safe_url(settings.db_url)} (closing stdin stops)")
    with following(index, engine, settings):
        anyio.run(run)
