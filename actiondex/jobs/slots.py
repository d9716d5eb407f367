"""Each crawl child keeps the index of its data dir up to date, as `actiondex crawl` does; two
children writing one index at once would collide. A child gets an index folder of its own for
the time it runs: the first free ``<data dir>/worker-index/<n>`` (an flock says which are taken,
also across workers sharing a data dir). Reused by later children, each folder is synced
incrementally rather than rebuilt per job."""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def index_slot(data_dir: Path) -> Iterator[Path]:
    root = data_dir / "worker-index"
    root.mkdir(parents=True, exist_ok=True)
    n = 0
    while True:
        lock = os.open(root / f"{n}.lock", os.O_CREAT | os.O_RDWR, 0o644)
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(lock)
            n += 1
            continue
        try:
            yield root / str(n)
        finally:
            os.close(lock)  # closing releases the flock
        return
