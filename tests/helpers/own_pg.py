"""A PostgreSQL server of a test's own, that the test may stop and start again: initdb and
pg_ctl from /usr/lib/postgresql/<version>/bin, a free loopback port, a temporary folder. Never
the shared server at 127.0.0.1:5432 the other tests use (stopping that would fail them).

As root (initdb refuses root), the server runs as the ``postgres`` user, in a folder it owns.
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import tempfile
from pathlib import Path

import psycopg
import pytest

from harness.procs import free_port

DATABASE = "actiondex"


def bin_dir() -> Path:
    """The newest PostgreSQL's programs; the test is skipped where there are none."""
    found = sorted(
        Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"),
        key=lambda p: int(p.parent.parent.name) if p.parent.parent.name.isdigit() else 0,
    )
    if not found:
        pytest.skip("no /usr/lib/postgresql/*/bin/pg_ctl: cannot start a PostgreSQL of our own")
    return found[-1].parent


class OwnPostgres:
    def __init__(self) -> None:
        self.bin = bin_dir()
        self.port = free_port()
        self.folder = Path(tempfile.mkdtemp(prefix="actiondex-own-pg-"))
        self.data = self.folder / "data"
        self.log = self.folder / "server.log"
        self.as_user: list[str] = []
        if os.geteuid() == 0:
            user = pwd.getpwnam("postgres")
            os.chown(self.folder, user.pw_uid, user.pw_gid)
            self.as_user = ["runuser", "-u", "postgres", "--"]

    @property
    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{DATABASE}"

    def _run(self, program: str, *args: str) -> None:
        done = subprocess.run(
            [*self.as_user, str(self.bin / program), *args],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, f"{program}: {done.stderr or done.stdout}"

    def start(self) -> None:
        self._run(
            "pg_ctl",
            "-D",
            str(self.data),
            "-l",
            str(self.log),
            "-w",
            "-t",
            "60",
            "-o",
            f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1",
            "start",
        )

    def stop(self) -> None:
        """A fast shutdown, as an operator's restart: sessions are ended, new ones refused."""
        self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "-t", "60", "stop")

    def __enter__(self) -> OwnPostgres:
        self._run(
            "initdb",
            "-D",
            str(self.data),
            "-U",
            "postgres",
            "--auth=trust",
            "-E",
            "UTF8",
            "--no-sync",
        )
        self.start()
        with psycopg.connect(
            f"postgresql://postgres@127.0.0.1:{self.port}/postgres", autocommit=True
        ) as conn:
            conn.execute(f'CREATE DATABASE "{DATABASE}"')
        return self

    def __exit__(self, *exc: object) -> None:
        subprocess.run(
            [
                *self.as_user,
                str(self.bin / "pg_ctl"),
                "-D",
                str(self.data),
                "-m",
                "immediate",
                "-w",
                "stop",
            ],
            capture_output=True,
            timeout=60,
        )
        shutil.rmtree(self.folder, ignore_errors=True)
