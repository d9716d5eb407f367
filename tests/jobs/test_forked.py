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
from harness.procs import free_port
from tests.helpers.family import descendants, survivors
from tests.helpers.paths import FIXTURES, ROOT

pytestmark = pytest.mark.timeout(120)


def test_a_forked_child_runs_an_actiondex_command_and_returns_its_summary() -> None:
    manifest = FIXTURES / "ingest" / "shop" / "agent-actions.json"
    result = asyncio.run(run_forked(["validate", str(manifest), "--json"], timeout=60))
    assert result.summary.get("kind") or result.summary  # validate's one JSON object
    assert "error" not in result.summary
    with pytest.raises(ChildFailed, match="without a summary"):
        asyncio.run(run_forked(["validate", "--no-such-option"], timeout=60))


def test_children_die_with_a_worker_killed_with_minus_9(tmp_path: Path) -> None:
    """The child serves until it is killed (it never ends by itself): only the worker's death
    can end it. multiprocessing's forkserver outlives the worker while any child holds its
    alive pipe, so the child must watch the worker itself."""
    worker = textwrap.dedent(f"""
        import asyncio
        from actiondex.jobs.forked import run_forked
        if __name__ == "__main__":
            asyncio.run(run_forked(["serve", "--port", "{free_port()}"], timeout=300))
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
    time.sleep(3)  # the child is past its start: a serve that failed would have ended
    family = descendants(proc.pid)
    assert len(family) >= 2, "no forkserver and child"
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    assert survivors(family, 15) == []


def test_the_forkserver_preloads_what_a_crawl_child_imports_when_its_crawler_starts() -> None:
    """Before: Scrapy's components (loaded by name as a crawler starts: the remote-control
    extension imports aiohttp's web server) and the PostgreSQL driver were imported again by
    every child, ~40% of the children's CPU in a profile of a 2-worker recrawl."""
    code = textwrap.dedent(
        """
        import sys
        from actiondex.jobs.forked import PRELOAD
        for name in PRELOAD:
            __import__(name)
        before = set(sys.modules)
        from scrapy.settings import Settings
        from scrapy.utils.conf import build_component_list
        from scrapy.utils.misc import load_object
        from sqlalchemy import create_engine
        from crawler.guard import AddressPolicy
        from crawler.settings import scrapy_settings
        from registry.config import Settings as Config
        scrapy = Settings(scrapy_settings(Config(), AddressPolicy()))
        names = [v for v in scrapy.getwithbase("DOWNLOAD_HANDLERS").values() if v]
        for table in ("DOWNLOADER_MIDDLEWARES", "SPIDER_MIDDLEWARES", "EXTENSIONS"):
            names += build_component_list(scrapy.getwithbase(table))
        names += [scrapy[k] for k in ("SCHEDULER", "SCHEDULER_PRIORITY_QUEUE", "DUPEFILTER_CLASS")]
        for name in names:
            load_object(name)
        create_engine("postgresql+psycopg://nobody@127.0.0.1/none")  # loads the driver
        heavy = ("scrapy", "twisted", "sqlalchemy", "psycopg", "aiohttp")
        print(sorted(m for m in set(sys.modules) - before if m.startswith(heavy)))
        """
    )
    ran = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    assert ran.returncode == 0, ran.stderr[-2000:]
    assert ran.stdout.strip() == "[]"
