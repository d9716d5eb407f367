"""`make demo DEMO_ARGS=--no-serve` while a demo serves: refused in one line, and the live
demo keeps its store (it used to be deleted and rebuilt under the running server)."""

from __future__ import annotations

import json
import subprocess
import urllib.request
from pathlib import Path

import pytest

from harness.procs import AX, Served, env_for, free_port, wait_answers
from tests.helpers.cli import one_line_error, run

pytestmark = pytest.mark.timeout(300)


def test_a_second_demo_is_refused_while_one_serves(data_dir: Path) -> None:
    port = free_port("127.0.0.1")
    log = data_dir.parent / "demo.log"
    with log.open("wb") as sink:
        process = subprocess.Popen(
            [*AX, "demo", "--port", str(port)],
            env=env_for(data_dir, ACTIONDEX_RATE_LIMIT="0"),
            stdout=subprocess.DEVNULL,
            stderr=sink,
        )
    served = Served(process, f"http://127.0.0.1:{port}", log)
    try:
        wait_answers(served, "/readyz", 240)
        line = one_line_error(run(data_dir, "demo", "--no-serve"))
        assert "another `actiondex demo` is running" in line and "--data-dir" in line, line
        with urllib.request.urlopen(f"{served.base}/find?q=buy+printer+paper", timeout=10) as r:
            assert json.load(r)["results"], "the live demo lost its store"
    finally:
        served.stop()
    # once it has stopped, a demo runs again
    assert run(data_dir, "demo", "--no-serve").returncode == 0
