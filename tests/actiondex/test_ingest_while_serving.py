"""`actiondex ingest` beside a running `actiondex serve` (issue 25, item 11): serve's live
follower takes the index writer's lock for each sync, so an ingest that brings the index up to
date after storing may find it held. It waits for the lock a bounded time
(ACTIONDEX_INDEX_WAIT_SECONDS), and if it is still held leaves the index to serve's follower,
says so in one line and exits 0: what it stored is never lost and turns up in GET /find.

Each round stores a new site with an action of its own while GET /find runs in a loop; the
test holds the writer's lock through some rounds (as a long sync of serve's would), so the
before-the-fix failure (IndexBusy, exit 1) is certain, not 2 rounds in 5."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import tantivy

from harness.db import BACKENDS
from harness.freshness import finds, wait_found
from harness.procs import AX, env_for, serving
from harness.web import LoopbackWeb, Site, json_reply
from tests.helpers.live import ingest_shops

GOAL_S = 5.0  # store -> searchable through serve's follower (tests/actiondex/test_living_index)
WAIT_S = 1.0  # how long each ingest waits for the lock, so the held rounds stay short
pytestmark = pytest.mark.timeout(240)


@pytest.fixture(params=BACKENDS)
def db_url(request: pytest.FixtureRequest) -> str:
    return "" if request.param == "sqlite" else str(request.getfixturevalue("empty_pg_url"))


def manifest_json(word: str, host: str | None = None) -> str:
    """One action, ``order_WORD``; its site ``host`` (None: where the file is fetched from)."""
    site = {"name": host or word} | ({"url": f"https://{host}"} if host else {})
    return json.dumps(
        {
            "schema": "agent-actions/0.1",
            "site": site,
            "actions": [
                {
                    "name": f"order_{word}",
                    "title": f"Order {word}",
                    "effect": "spend",
                    "description": f"Order a {word} today.",
                    "method": "POST",
                    "path": "/order",
                }
            ],
        }
    )


def manifest(folder: Path, host: str, word: str) -> Path:
    path = folder / host / "agent-actions.json"
    path.parent.mkdir(parents=True)
    path.write_text(manifest_json(word, host))
    return path.parent


def ingest(data_dir: Path, db_url: str, folder: Path, wait_s: float) -> subprocess.Popen[str]:
    env = env_for(data_dir, db_url, ACTIONDEX_INDEX_WAIT_SECONDS=str(wait_s))
    return subprocess.Popen(
        [*AX, "ingest", "--json", str(folder)],
        env=env,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def stored(base: str, host: str) -> bool:
    """Whether GET /sites/HOST (read from the store, not the index) knows the site."""
    try:
        with urllib.request.urlopen(f"{base}/sites/{host}", timeout=5):
            return True
    except urllib.error.HTTPError as exc:
        if exc.code == 404:
            return False
        raise


def run_round(
    data_dir: Path, db_url: str, base: str, folder: Path, lock: str
) -> tuple[int, str, str]:
    """One ingest; ``lock``: "free" (only serve's follower competes for the lock), "held"
    (held by this process past the ingest's wait) or "released" (held until the ingest has
    stored, then released while it waits). Its exit code, stdout and stderr."""
    if lock == "free":
        proc = ingest(data_dir, db_url, folder, WAIT_S)
        out, err = proc.communicate(timeout=120)
        return proc.returncode, out, err
    holder = tantivy.Index.open(str(data_dir / "index" / "current")).writer(15_000_000, 1)
    try:
        proc = ingest(data_dir, db_url, folder, WAIT_S if lock == "held" else 60)
        if lock == "released":
            deadline = time.monotonic() + 60
            while not stored(base, folder.name) and time.monotonic() < deadline:
                time.sleep(0.05)
            time.sleep(0.3)  # the ingest is waiting for the lock now
            holder.wait_merging_threads()  # consumes the writer: the lock is free
            holder = None
        out, err = proc.communicate(timeout=120)
    finally:
        if holder is not None:
            holder.wait_merging_threads()
    return proc.returncode, out, err


@contextmanager
def find_load(base: str) -> Iterator[list[BaseException]]:
    """GET /find in a loop from a thread while the block runs; the errors it met."""
    stop, errors = threading.Event(), []

    def load() -> None:
        while not stop.is_set():
            try:
                finds(base, "notebook")
            except Exception as exc:  # reported by the test
                errors.append(exc)

    thread = threading.Thread(target=load, daemon=True)
    thread.start()
    try:
        yield errors
    finally:
        stop.set()
        thread.join(timeout=10)


# Each state of the lock once, and "free" again after a round that held it: four cold
# `actiondex ingest` processes per backend (six took a minute of the suite's slowest worker).
ROUNDS = ["held", "free", "released", "free"]


def test_ingest_beside_serve_exits_0_and_its_actions_are_found(
    data_dir: Path, db_url: str, tmp_path: Path
) -> None:
    ingest_shops(data_dir, db_url)
    with serving(data_dir, ACTIONDEX_DATABASE_URL=db_url) as base, find_load(base) as errors:
        for n, lock in enumerate(ROUNDS):
            word = f"kazoo{n}x"
            folder = manifest(tmp_path / "rounds", f"round{n}.example", word)
            code, out, err = run_round(data_dir, db_url, base, folder, lock)
            assert "Traceback" not in err, err
            assert code == 0, (lock, out, err)
            assert json.loads(out)["actions"] == 1
            notes = [line for line in err.splitlines() if line.strip()]
            if lock == "held":
                assert len(notes) == 1 and "actiondex serve" in notes[0], err
            if lock == "released":  # the lock came free in time: the ingest indexed it
                assert not notes, err
            assert wait_found(base, word, seconds=GOAL_S) < GOAL_S
        time.sleep(0.2)
    assert not errors, errors[:3]


def test_a_crawl_beside_serve_leaves_a_held_index_to_it(data_dir: Path) -> None:
    """`actiondex crawl` brings the index up to date the same way (actiondex.runtime)."""
    site = Site({"/.well-known/agent-actions.json": json_reply(manifest_json("oboe"))})
    ingest_shops(data_dir)
    with serving(data_dir) as base, LoopbackWeb({"crawled.test": site}) as web:
        holder = tantivy.Index.open(str(data_dir / "index" / "current")).writer(15_000_000, 1)
        try:
            flags = [a for entry in web.resolve_args() for a in ("--resolve", entry)]
            proc = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "actiondex",
                    "crawl",
                    "--json",
                    "--delay",
                    "0",
                    *flags,
                    web.url("crawled.test"),
                ],
                text=True,
                capture_output=True,
                timeout=120,
                env=env_for(data_dir, ACTIONDEX_INDEX_WAIT_SECONDS=str(WAIT_S)),
            )
        finally:
            holder.wait_merging_threads()
        assert proc.returncode == 0 and json.loads(proc.stdout)["actions"] == 1, proc.stderr
        notes = [line for line in proc.stderr.splitlines() if line.strip()]
        assert len(notes) == 1 and "actiondex serve" in notes[0], proc.stderr
        assert wait_found(base, "oboe", seconds=GOAL_S) < GOAL_S
