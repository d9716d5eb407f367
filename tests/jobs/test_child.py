"""The crawl child: its JSON summary is the result, a timeout kills it, and it dies with the
worker that started it (PR_SET_PDEATHSIG), even when the worker is killed with -9."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from actiondex.jobs.child import ChildFailed, crawl_args, interpreter, run_child

pytestmark = pytest.mark.timeout(60)
PY = sys.executable


def test_the_summary_on_stdout_is_the_result() -> None:
    code = "import json, sys; print(json.dumps({'sites': 1})); sys.exit(1)"
    result = asyncio.run(run_child([PY, "-c", code], timeout=30))
    assert result.summary == {"sites": 1}
    assert result.returncode == 1


def test_no_summary_is_a_failure_naming_the_last_error_line() -> None:
    code = "import sys; print('boom happened', file=sys.stderr); sys.exit(3)"
    with pytest.raises(ChildFailed, match="exit 3 without a summary: boom happened"):
        asyncio.run(run_child([PY, "-c", code], timeout=30))


def test_a_child_over_its_time_is_stopped() -> None:
    started = time.monotonic()
    with pytest.raises(ChildFailed, match="timed out"):
        asyncio.run(run_child([PY, "-c", "import time; time.sleep(60)"], timeout=1))
    assert time.monotonic() - started < 15


def test_the_child_dies_with_a_worker_killed_with_minus_9(tmp_path: Path) -> None:
    pidfile = tmp_path / "child.pid"
    worker = textwrap.dedent(f"""
        import asyncio, sys
        sys.path.insert(0, {str(Path.cwd())!r})
        from actiondex.jobs.child import run_child
        code = "import os, time; open({str(pidfile)!r}, 'w').write(str(os.getpid())); " \\
               "time.sleep(60)"
        asyncio.run(run_child([sys.executable, "-c", code], timeout=120))
    """)
    proc = subprocess.Popen([PY, "-c", worker])
    deadline = time.monotonic() + 30
    while not (pidfile.exists() and pidfile.read_text()) and time.monotonic() < deadline:
        time.sleep(0.1)
    child = int(pidfile.read_text())
    assert _alive(child)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    deadline = time.monotonic() + 10
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(child)


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"  # a zombie has ended; only its parent (init now) has to reap it


def test_the_crawl_arguments_of_a_job() -> None:
    assert crawl_args(["http://a.test:8080"], False, 0.5, 10) == [
        "crawl",
        "http://a.test:8080",
        "--json",
        "--no-index",
        "--delay",
        "0.5",
        "--max-pages",
        "10",
    ]
    assert crawl_args(["a.test", "b.test"], True, 1.0, 50)[:4] == [
        "crawl",
        "--due",
        "a.test",
        "b.test",
    ]
    assert interpreter(["crawl"])[1:] == ["-m", "actiondex", "crawl"]
