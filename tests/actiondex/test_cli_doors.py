"""Doors of the command line a new user walks into (issue 21): each answers in one clear line."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from harness.procs import AX, env_for
from tests.helpers.cli import one_line_error


@pytest.mark.parametrize(
    ("setting", "says"),
    [("--data-dir", "the data dir"), ("ACTIONDEX_INDEX_DIR", "the index dir")],
)
def test_a_folder_that_cannot_be_made_is_one_line_and_exit_2(
    data_dir: Path, setting: str, says: str
) -> None:
    env = env_for(data_dir)
    if setting.startswith("--"):
        args = [*AX, setting, "/proc/nope", "find", "x"]
    else:
        env[setting] = "/proc/nope"
        args = [*AX, "find", "x"]
    proc = subprocess.run(args, env=env, text=True, capture_output=True, timeout=120)
    line = one_line_error(proc)
    assert proc.returncode == 2, proc.stderr
    assert says in line and "/proc/nope" in line and "FileNotFoundError" not in line, line
