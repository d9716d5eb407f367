"""`actiondex serve`: the API, with the index following the store while it runs."""

from __future__ import annotations

import socket
import sys
import threading

import uvicorn
from sqlalchemy import Engine

from actiondex import output
from actiondex.runtime import UserError, open_index
from api.app import create_app
from registry.config import Settings
from registry.db import transaction
from registry.index import ActionIndex

SYNC_EVERY_S = 5.0
# One process serves every request: /find searches in threads (api.app.SEARCH_THREADS) and
# tantivy releases the GIL while it searches, so searches use every core; worker processes
# would each count the index pages they touch in their resident memory (README, "HTTP API").
# A thread coming back from tantivy waits for the GIL up to this interval while the event
# loop runs Python; 1 ms instead of CPython's 5 ms served 25% more requests at concurrency 16
# (1M actions).
GIL_SWITCH_S = 0.001


def check_port_free(host: str, port: int) -> None:
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as sock:
        # As uvicorn binds: a port whose last server just stopped (TIME_WAIT) is free; one
        # another server listens on is not.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError as exc:
            raise UserError(f"cannot listen on {host}:{port}: {exc.strerror}; "
                            "pass --port") from exc


def follow_store(index: ActionIndex, engine: Engine, stop: threading.Event) -> None:
    """New crawl results become searchable within seconds, without a restart."""
    while not stop.wait(SYNC_EVERY_S):
        try:
            with transaction(engine) as session:
                index.sync(session)
        except Exception as exc:  # the old index keeps serving; say why, try again later
            output.info(f"index sync failed, retrying: {exc}")


def serve_api(settings: Settings, engine: Engine, host: str, port: int) -> None:
    check_port_free(host, port)
    index = open_index(settings, engine)
    stop = threading.Event()
    follower = threading.Thread(target=follow_store, args=(index, engine, stop), daemon=True)
    follower.start()
    output.info(f"serving on http://{host}:{port}  (try /find?q=buy+printer+paper; "
                "Ctrl-C stops)")
    sys.setswitchinterval(GIL_SWITCH_S)
    try:
        uvicorn.run(create_app(settings, index=index, engine=engine), host=host, port=port,
                    log_level="warning", access_log=False)
    finally:
        stop.set()
