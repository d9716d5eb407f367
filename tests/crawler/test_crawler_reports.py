"""`actiondex crawl --report-sites PIPE` (a worker's child): each site's row reaches the
worker as soon as the site is stored, a quick site long before a slow one and before the crawl
ends, and the rows are the summary's."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import pytest

from actiondex.jobs.reports import site_reports
from tests.helpers.crawls import actiondex, command, crawl_args, crawl_env, small_web

pytestmark = pytest.mark.timeout(180)
SLOW = 1.0  # seconds the slow site waits before each answer (~20 answers: ~20 s)


def test_each_site_is_reported_as_it_is_stored(tmp_path: Path) -> None:
    empty_db_url = f"sqlite:///{tmp_path / 'store.db'}"  # the store is not what is tested
    assert actiondex(tmp_path, empty_db_url, "migrate").returncode == 0
    with small_web(tmp_path / "sites", ("quick.test", "slow.test"), {"slow.test": SLOW}) as web:
        targets = [f"http://{h}:{web.port}/" for h in ("quick.test", "slow.test")]

        async def go() -> tuple[list[tuple[float, str]], float, dict[str, Any]]:
            seen: list[tuple[float, str]] = []
            started = time.monotonic()
            async with site_reports(
                lambda row: seen.append((time.monotonic() - started, row["host"]))
            ) as pipe:
                proc = await asyncio.create_subprocess_exec(
                    *command(*crawl_args(web, *targets, "--no-index", "--report-sites", str(pipe))),
                    env=crawl_env(tmp_path, empty_db_url),
                    stdout=asyncio.subprocess.PIPE,
                    stderr=asyncio.subprocess.PIPE,
                )
                out, err = await proc.communicate()
                ended = time.monotonic() - started
            assert proc.returncode == 0, (out + err).decode()[-2000:]
            return seen, ended, json.loads(out)

        seen, ended, summary = asyncio.run(go())
    hosts = [host.split(":")[0] for _, host in seen]
    assert hosts == ["quick.test", "slow.test"]
    quick_at, slow_at = seen[0][0], seen[1][0]
    assert slow_at - quick_at > SLOW  # the slow site's every answer waits SLOW seconds
    assert ended - quick_at > SLOW
    assert sorted(row["host"] for row in summary["per_site"]) == sorted(h for _, h in seen)
