"""Crawl children forked from the worker's pre-loaded forkserver: the command's JSON summary is
the result, and the children die with a worker killed with -9 (the forkserver goes with it)."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from actiondex.jobs.child import ChildFailed
from actiondex.jobs.forked import run_forked
from tests.helpers.paths import FIXTURES, ROOT

pytestmark = pytest.mark.timeout(120)


def test_a_forked_child_runs_an_actiondex_command_and_returns_its_summary() -> None:
    manifest = FIXTURES / "ingest" / "shop" / "agent-actions.json"
    result = asyncio.run(run_forked(["validate", str(manifest), "--json"], timeout=60))
    assert result.summary.get("kind") or result.summary  # validate's one JSON object
    assert "error" not in result.summary
    with pytest.raises(ChildFailed, match="without a summary"):
        asyncio.run(run_forked(["validate", "--no-such-option"], timeout=60))


def descendants(pid: int) -> set[int]:
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


def test_children_die_with_a_worker_killed_with_minus_9(tmp_path: Path) -> None:
    worker = textwrap.dedent("""
        import asyncio
        from actiondex.jobs.forked import run_forked
        if __name__ == "__main__":
            asyncio.run(run_forked(["serve", "--port", "0"], timeout=300))
    """)
    script = tmp_path / "worker.py"
    script.write_text(worker)
    env = {**os.environ, "ACTIONDEX_DATA_DIR": str(tmp_path / "data"), "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, str(script)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    deadline = time.monotonic() + 60
    while len(descendants(proc.pid)) < 2 and time.monotonic() < deadline:  # forkserver, child
        time.sleep(0.2)
    family = descendants(proc.pid)
    assert len(family) >= 2, "no forkserver and child"
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    deadline = time.monotonic() + 15
    while (
        any(Path(f"/proc/{p}").exists() and _alive(p) for p in family)
        and time.monotonic() < deadline
    ):
        time.sleep(0.2)
    assert not [p for p in family if _alive(p)]


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"
