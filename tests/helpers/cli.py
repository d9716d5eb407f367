"""The `actiondex` command run to its end, as `python -m actiondex` runs it: in a process forked
from a warm one (tests/helpers/warm.py), or a fresh interpreter with ACTIONDEX_TEST_COLD=1."""

from __future__ import annotations

import subprocess
from pathlib import Path

from harness.procs import env_for
from tests.helpers import warm


def run(
    data_dir: Path, *args: str, db_url: str = "", **extra: str
) -> subprocess.CompletedProcess[str]:
    """`actiondex ARGS` over ``data_dir``, with ``extra`` environment variables."""
    return warm.run(list(args), env_for(data_dir, db_url, **extra), timeout=120)


def one_line_error(proc: subprocess.CompletedProcess[str]) -> str:
    """The one stderr line of a failed command (no traceback), checked and returned."""
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, proc.stderr
    return lines[0]
