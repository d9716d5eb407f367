"""A crawl child's site reports (actiondex.jobs.reports): each line reaches the worker while
the child still runs; a line that is not JSON is skipped; a child that never opens the pipe
(nothing due) leaves the worker waiting for nothing."""

from __future__ import annotations

import asyncio
import sys
import textwrap
from typing import Any

import pytest

from actiondex.jobs.reports import site_reports

pytestmark = pytest.mark.timeout(60)


def test_each_row_arrives_while_the_child_still_runs() -> None:
    writer = textwrap.dedent("""
        import json, sys, time
        with open(sys.argv[1], "w", buffering=1) as pipe:
            pipe.write(json.dumps({"host": "a.test"}) + "\\n")
            pipe.write("not json\\n")
            pipe.write('["a list"]\\n')
            pipe.write(json.dumps({"host": "b.test", "errors": []}) + "\\n")
            sys.stdin.readline()  # held open until the test says so
            pipe.write(json.dumps({"host": "c.test"}))  # no newline: ends with the child
    """)

    async def go() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        rows: list[dict[str, Any]] = []
        async with site_reports(rows.append) as path:
            proc = await asyncio.create_subprocess_exec(
                sys.executable, "-c", writer, str(path), stdin=asyncio.subprocess.PIPE
            )
            for _ in range(200):
                if len(rows) == 2:
                    break
                await asyncio.sleep(0.05)
            before_end = list(rows)
            assert proc.stdin is not None
            proc.stdin.write(b"go\n")
            await proc.wait()
        return before_end, rows

    before_end, rows = asyncio.run(go())
    assert before_end == [{"host": "a.test"}, {"host": "b.test", "errors": []}]
    assert rows == before_end  # an unfinished last line is not a row


def test_a_child_that_never_opens_the_pipe_leaves_nothing_waiting() -> None:
    async def go() -> list[dict[str, Any]]:
        rows: list[dict[str, Any]] = []
        async with site_reports(rows.append) as path:
            assert path.exists()
            await asyncio.sleep(0.05)
        assert not path.exists()
        return rows

    assert asyncio.run(asyncio.wait_for(go(), 10)) == []
