"""The `actiondex` command in a subprocess through `python -m actiondex`, the real entry point."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def run(data_dir: Path, *args: str, db_url: str = "") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ACTIONDEX_DATA_DIR": str(data_dir), "ACTIONDEX_DATABASE_URL": db_url}
    env.pop("ACTIONDEX_DEBUG", None)
    return subprocess.run([sys.executable, "-m", "actiondex", *args], env=env, text=True,
                          capture_output=True, timeout=120)


def one_line_error(proc: subprocess.CompletedProcess[str]) -> str:
    """The one stderr line of a failed command (no traceback), checked and returned."""
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, proc.stderr
    return lines[0]
