"""A process's descendants, read from /proc: what a worker killed with -9 must not leave behind
(its forkserver and crawl children, whose command lines do not name their sites)."""

from __future__ import annotations

import time
from pathlib import Path


def descendants(pid: int) -> set[int]:
    """Every live (not zombie) process below ``pid``."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if stat[0] != "Z":
                parents[int(entry.name)] = int(stat[1])
    found, frontier = set(), {pid}
    while frontier:
        frontier = {p for p, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def survivors(family: set[int], seconds: float) -> list[int]:
    """Those of ``family`` still alive after waiting up to ``seconds`` for them to go."""
    deadline = time.monotonic() + seconds
    while any(alive(p) for p in family) and time.monotonic() < deadline:
        time.sleep(0.2)
    return sorted(p for p in family if alive(p))
