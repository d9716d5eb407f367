"""The `actiondex` command in a subprocess through `python -m actiondex`, the real entry point."""

from __future__ import annotations

import subprocess
from pathlib import Path

from harness.procs import AX, env_for


def run(
    data_dir: Path, *args: str, db_url: str = "", **extra: str
) -> subprocess.CompletedProcess[str]:
    """`actiondex ARGS` over ``data_dir``, with ``extra`` environment variables."""
    return subprocess.run(
        [*AX, *args],
        env=env_for(data_dir, db_url, **extra),
        text=True,
        capture_output=True,
        timeout=120,
    )


def one_line_error(proc: subprocess.CompletedProcess[str]) -> str:
    """The one stderr line of a failed command (no traceback), checked and returned."""
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, proc.stderr
    return lines[0]
