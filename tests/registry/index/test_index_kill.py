"""Index rebuild killed (docs/RELIABILITY.md 38): ``kill -9`` of ``actiondex index --rebuild`` while
it writes its new generation, with a real API server answering /find all the while. The old
generation keeps serving (no non-2xx), ``current`` never points at a partial build, and the
next rebuild completes, is picked up by the server and clears the leftovers."""

from __future__ import annotations

import json
import os
import subprocess
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from harness.procs import AX, env_for, start

pytestmark = pytest.mark.timeout(240)
SITES, ACTIONS = 30, 150  # enough documents that a rebuild takes a moment to write
WORDS = ["book", "table", "flight", "paper", "order", "track", "parcel", "hotel", "room", "pay"]


def _manifests(folder: Path) -> None:
    for s in range(SITES):
        actions = [
            {
                "name": f"{WORDS[i % 10]}_{WORDS[(i + s) % 10]}_{i}",
                "title": f"{WORDS[i % 10].title()} a {WORDS[(i * 3 + s) % 10]} {i}",
                "description": " ".join(WORDS[(i + k) % 10] for k in range(12)),
                "method": "GET",
                "path": f"/api/{i}",
            }
            for i in range(ACTIONS)
        ]
        site = folder / f"site{s}.test"
        site.mkdir(parents=True)
        (site / "agent-actions.json").write_text(
            json.dumps(
                {
                    "schema": "agent-actions/0.1",
                    "site": {"name": f"Site {s}", "url": f"https://site{s}.test"},
                    "actions": actions,
                }
            )
        )


def _cli(env: dict[str, str], *args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [*AX, *args], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )


def _run(env: dict[str, str], *args: str) -> None:
    done = subprocess.run([*AX, *args], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


class Hammer(threading.Thread):
    """Asks /find in a loop until stopped (or 120 s), recording every status."""

    def __init__(self, port: int) -> None:
        super().__init__(daemon=True)
        self.url = f"http://127.0.0.1:{port}/find?q=book+a+table&limit=5"
        self.statuses: list[int | str] = []
        self.stop = threading.Event()

    def run(self) -> None:
        deadline = time.monotonic() + 120
        while not self.stop.is_set() and time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(self.url, timeout=10) as response:
                    json.loads(response.read())
                    self.statuses.append(response.status)
            except urllib.error.HTTPError as exc:
                self.statuses.append(exc.code)
            except OSError as exc:
                self.statuses.append(type(exc).__name__)


def _target(index: Path) -> str:
    return os.readlink(index / "current")


def _kill_mid_write(env: dict[str, str], index: Path) -> bool:
    """Start a rebuild, kill -9 it once its new generation holds files; False if it finished
    (or failed) before that could happen."""
    before = {p.name for p in index.iterdir()}
    proc = _cli(env, "index", "--rebuild")
    deadline = time.monotonic() + 60
    while proc.poll() is None and time.monotonic() < deadline:
        fresh = [p for p in index.iterdir() if p.name not in before and p.is_dir()]
        if fresh and any(fresh[0].iterdir()):
            proc.kill()
            proc.wait()
            return True
        time.sleep(0.002)
    proc.wait()
    return False


def test_a_killed_rebuild_leaves_the_old_index_serving(tmp_path: Path) -> None:
    _manifests(tmp_path / "manifests")
    env = env_for(tmp_path / "data")
    _run(env, "ingest", str(tmp_path / "manifests"))
    index = tmp_path / "data" / "index"
    serving = _target(index)

    # The hammer is one client asking as fast as it can: start() turns the rate limit off.
    server = start(tmp_path / "data")
    try:
        hammer = Hammer(server.port)
        hammer.start()
        kills = sum(_kill_mid_write(env, index) for _ in range(3))
        assert kills >= 1, "no rebuild could be killed while writing"
        assert _target(index) == serving  # never a partial generation
        partial = [name for name in _generations(index) if name not in ("current", serving)]
        assert partial  # what the killed builds left behind

        _run(env, "index", "--rebuild")
        fresh = _target(index)
        assert fresh != serving
        time.sleep(1.5)  # the server follows `current` on its next request
        answered = len(hammer.statuses)
        time.sleep(0.5)
        hammer.stop.set()
        hammer.join(timeout=15)
    finally:
        server.stop()

    assert len(hammer.statuses) > answered > 20  # /find answered before, during and after
    assert set(hammer.statuses) == {200}, sorted(set(map(str, hammer.statuses)))
    left = _generations(index)
    # The partial builds were cleared; the generation served until the swap is kept until
    # the next rebuild (registry/index/files.py remove_older).
    assert left == sorted(["current", serving, fresh]), left


def _generations(index: Path) -> list[str]:
    """The index folder's generations and its ``current`` link (beside them lies the vector
    index's file, registry.index.vector_cache, which no build writes)."""
    return sorted(
        p.name for p in index.iterdir() if p.name == "current" or p.name.startswith("gen-")
    )
