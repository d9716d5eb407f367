"""The sites a crawl child has stored, told to its worker as they are stored.

The child (`actiondex crawl --report-sites PATH`) writes each stored site's summary row to PATH,
one JSON line; here PATH is a named pipe the worker's event loop reads, so the job of a site ends
(and its host's lock goes back) when its site is stored, not when the slowest site of its batch
is. A pipe and not the child's stdout: a forked child's stdout is a file read at its end, and
stdout stays the one JSON summary `--json` promises.

The worker holds a write end of its own, so the pipe never reads as ended before the child opens
it (or if it never does: a `crawl --due` with nothing due).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import tempfile
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

log = logging.getLogger("actiondex.jobs")
MAX_LINE = 1 << 20  # a row longer than this is not a row: dropped (the summary still has it)

OnSite = Callable[[dict[str, Any]], None]


class _Lines:
    """Complete lines out of the bytes read so far, each parsed and handed on."""

    def __init__(self, on_site: OnSite) -> None:
        self.on_site, self.buffer = on_site, b""

    def feed(self, chunk: bytes) -> None:
        *lines, self.buffer = (self.buffer + chunk).split(b"\n")
        if len(self.buffer) > MAX_LINE:
            self.buffer = b""
        for line in lines:
            try:
                row = json.loads(line)
            except ValueError:
                log.warning("a crawl child reported a line that is not JSON: %.80r", line)
                continue
            if isinstance(row, dict):
                self.on_site(row)


@contextlib.asynccontextmanager
async def site_reports(on_site: OnSite) -> AsyncIterator[Path]:
    """A named pipe for `--report-sites`; ``on_site`` gets each row read from it, on the
    loop, until the block ends (what is in the pipe by then is read first)."""
    loop = asyncio.get_running_loop()
    with tempfile.TemporaryDirectory(prefix="actiondex-sites-") as tmp:
        path = Path(tmp) / "sites"
        os.mkfifo(path, 0o600)
        reader = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        writer = os.open(path, os.O_WRONLY | os.O_NONBLOCK)  # no end-of-file before the child
        lines = _Lines(on_site)

        def readable() -> None:
            while True:
                try:
                    chunk = os.read(reader, 65536)
                except BlockingIOError:
                    return
                if not chunk:
                    return
                lines.feed(chunk)

        loop.add_reader(reader, readable)
        try:
            yield path
        finally:
            loop.remove_reader(reader)
            readable()
            os.close(writer)
            os.close(reader)
