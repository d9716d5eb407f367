"""A private PostgreSQL for a machine that has none: `make test` on a fresh machine.

    python -m tests.helpers.private_pg COMMAND...

runs COMMAND with ACTIONDEX_TEST_DATABASE_URL pointing at a throwaway cluster on a free
loopback port, in a temporary directory, and stops and removes it afterwards; COMMAND's exit
code is the script's. The binaries are the machine's own (/usr/lib/postgresql/<v>/bin, or
under ACTIONDEX_PG_SEARCH) when it has them, else those of the ``pgserver`` wheel (PostgreSQL
built for manylinux), which scripts/test-postgres installs into the venv when it is needed.
PostgreSQL refuses to run as root, so as root the cluster belongs to an unprivileged system
user (created if missing).
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from harness.procs import free_port

SYSTEM_USER = "actiondex-pg"
START_TIMEOUT = 60


def binaries() -> Path | None:
    """The folder holding initdb and pg_ctl: the machine's newest, else pgserver's."""
    search = Path(os.environ.get("ACTIONDEX_PG_SEARCH", "/usr/lib/postgresql"))
    installed = sorted(
        search.glob("*/bin/pg_ctl"),
        key=lambda p: int(p.parent.parent.name) if p.parent.parent.name.isdigit() else 0,
    )
    if installed:
        return installed[-1].parent
    try:
        import pgserver  # type: ignore[import-not-found]
    except ImportError:
        return None
    folder = Path(pgserver.__file__).parent / "pginstall" / "bin"
    return folder if (folder / "pg_ctl").exists() else None


def _as_owner(command: list[str]) -> list[str]:
    if os.geteuid() != 0:
        return command
    try:
        pwd.getpwnam(SYSTEM_USER)
    except KeyError:
        subprocess.run(
            ["useradd", "--system", "--no-create-home", SYSTEM_USER],
            check=True,
            capture_output=True,
        )
    return ["runuser", "-u", SYSTEM_USER, "--", *command]


@contextmanager
def private_cluster(bin_dir: Path) -> Iterator[str]:
    """A running cluster on 127.0.0.1 with trust auth; yields the URL of its `postgres` db."""
    root = Path(tempfile.mkdtemp(prefix="actiondex-pg-"))
    data = root / "data"
    port = free_port()
    if os.geteuid() == 0:
        os.chmod(root, 0o777)
        for parent in bin_dir.parents:  # the owner must reach the binaries' libraries
            if parent == Path("/"):
                break
            os.chmod(parent, os.stat(parent).st_mode | 0o011)
    try:
        subprocess.run(
            _as_owner(
                [
                    str(bin_dir / "initdb"),
                    "-D",
                    str(data),
                    "-U",
                    "postgres",
                    "--auth=trust",
                    "--no-sync",
                    "-E",
                    "UTF8",
                ]
            ),
            check=True,
            capture_output=True,
            timeout=START_TIMEOUT,
        )
        options = f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off"
        subprocess.run(
            _as_owner(
                [
                    str(bin_dir / "pg_ctl"),
                    "-D",
                    str(data),
                    "-l",
                    str(root / "log"),
                    "-o",
                    options,
                    "-w",
                    "-t",
                    str(START_TIMEOUT),
                    "start",
                ]
            ),
            check=True,
            capture_output=True,
            timeout=START_TIMEOUT + 10,
        )
        yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
    finally:
        if (data / "postmaster.pid").exists():
            subprocess.run(
                _as_owner([str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop"]),
                capture_output=True,
                timeout=60,
            )
        shutil.rmtree(root, ignore_errors=True)


def main(argv: list[str]) -> int:
    if not argv:
        print("usage: python -m tests.helpers.private_pg COMMAND...", file=sys.stderr)
        return 2
    bin_dir = binaries()
    if bin_dir is None:
        print(
            "error: no PostgreSQL binaries (neither /usr/lib/postgresql nor the pgserver wheel)",
            file=sys.stderr,
        )
        return 1
    started = time.monotonic()
    try:
        with private_cluster(bin_dir) as url:
            print(
                f"a private PostgreSQL from {bin_dir} on {url} "
                f"(started in {time.monotonic() - started:.1f} s)",
                file=sys.stderr,
            )
            env = {**os.environ, "ACTIONDEX_TEST_DATABASE_URL": url}
            return subprocess.run(argv, env=env).returncode
    except subprocess.CalledProcessError as exc:
        detail = (exc.stderr or b"").decode(errors="replace").strip().splitlines()[-1:]
        print(f"error: the private PostgreSQL did not start: {' '.join(detail)}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
