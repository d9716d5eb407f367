"""`make test` on a machine with no PostgreSQL: scripts/test-postgres starts a private one from
the pgserver wheel, runs the command against it, and removes it after.

This machine has a PostgreSQL, so the test hides it: PATH holds no PostgreSQL tool,
ACTIONDEX_PG_SEARCH points at an empty folder instead of /usr/lib/postgresql, and the test
database URL names a port nobody listens on (the one thing the script cannot be made to miss).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from harness.procs import free_port
from tests.helpers.paths import ROOT

TOOLS = ("bash", "env", "dirname", "ls", "seq", "sleep", "cat", "runuser", "useradd", "uname")
PROBE = (
    "import os, psycopg; url = os.environ['ACTIONDEX_TEST_DATABASE_URL']; "
    "print('URL', url); "
    "print('VERSION', psycopg.connect(url).execute('show server_version').fetchone()[0])"
)


def test_a_machine_without_postgresql_gets_a_private_one_from_the_wheel(tmp_path: Path) -> None:
    pytest.importorskip("pgserver", reason="the pgserver wheel is in the test extra")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in TOOLS:
        found = shutil.which(tool)
        if found:
            (bin_dir / tool).symlink_to(found)
    (bin_dir / "python3").symlink_to(sys.executable)
    (tmp_path / "no-postgresql").mkdir()
    env = {
        **os.environ,
        "PATH": str(bin_dir),
        "ACTIONDEX_PG_SEARCH": str(tmp_path / "no-postgresql"),
        "ACTIONDEX_TEST_DATABASE_URL": f"postgresql://postgres@127.0.0.1:{free_port()}/test",
    }
    proc = subprocess.run(
        [str(ROOT / "scripts" / "test-postgres"), sys.executable, sys.executable, "-c", PROBE],
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    assert "no PostgreSQL answers" in proc.stderr and "pgserver" in proc.stderr, proc.stderr
    url = next(line.split()[1] for line in proc.stdout.splitlines() if line.startswith("URL"))
    assert url.startswith("postgresql://postgres@127.0.0.1:")
    assert any(line.startswith("VERSION ") for line in proc.stdout.splitlines())
    port = int(url.rsplit(":", 1)[1].split("/")[0])
    with pytest.raises(OSError):  # stopped after the command
        socket.create_connection(("127.0.0.1", port), timeout=2).close()


def test_the_command_s_failure_is_the_script_s(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "ACTIONDEX_TEST_DATABASE_URL": f"postgresql://postgres@127.0.0.1:{free_port()}/test",
    }
    proc = subprocess.run(
        [
            str(ROOT / "scripts" / "test-postgres"),
            sys.executable,
            sys.executable,
            "-c",
            "raise SystemExit(3)",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert proc.returncode == 3, proc.stderr
