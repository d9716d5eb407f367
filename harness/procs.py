"""`actiondex` in a process of its own, as tests and benches start it: its environment, a free
loopback port, `actiondex serve` started and waited for until it answers, and stopped."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

AX = [sys.executable, "-m", "actiondex"]  # the real entry point, as `actiondex` runs it


def free_port(host: str = "127.0.0.1") -> int:
    """A port nothing listens on now, for a server started in another process (or a port
    that refuses connections)."""
    with socket.socket() as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def env_for(data_dir: Path, db_url: str = "", **extra: str) -> dict[str, str]:
    """The environment of an `actiondex` process over ``data_dir`` (SQLite unless ``db_url``),
    plus ``extra`` variables; ACTIONDEX_DEBUG is never inherited."""
    env = {
        **os.environ,
        "ACTIONDEX_DATA_DIR": str(data_dir),
        "ACTIONDEX_DATABASE_URL": db_url,
        **extra,
    }
    if "ACTIONDEX_DEBUG" not in extra:
        env.pop("ACTIONDEX_DEBUG", None)
    return env


@dataclass
class Served:
    """A running `actiondex serve`: its process, base URL and log file."""

    process: subprocess.Popen[bytes]
    base: str
    log: Path

    @property
    def port(self) -> int:
        return int(self.base.rsplit(":", 1)[1])

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
        self.process.wait(timeout=30)


def start(
    data_dir: Path,
    host: str = "127.0.0.1",
    ready: str = "/healthz",
    seconds: float = 60,
    **extra: str,
) -> Served:
    """`actiondex serve --host HOST` over ``data_dir`` on a free port, once GET ``ready``
    answers 2xx. The rate limit is off (one client asking fast would measure it) unless
    ``extra`` (more environment: ACTIONDEX_DATABASE_URL, limits...) sets it."""
    port = free_port(host)
    command = [*AX, "serve", "--host", host, "--port", str(port)]
    env = env_for(data_dir, **{"ACTIONDEX_RATE_LIMIT": "0", **extra})
    # stderr to a file beside the store, not a pipe: the access log writes a line per
    # request, and a pipe nobody reads would stop the server once it is full.
    log = data_dir / f"serve-{port}.log"
    with log.open("wb") as sink:  # the server holds its own descriptor
        process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=sink)
    served = Served(process, f"http://{host}:{port}", log)
    try:
        wait_answers(served, ready, seconds)
    except BaseException:
        process.kill()
        process.wait(timeout=30)
        raise
    return served


def wait_answers(served: Served, path: str, seconds: float) -> None:
    """Until GET ``path`` answers 2xx; raises if the server exits or ``seconds`` pass."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if served.process.poll() is not None:
            raise RuntimeError(
                f"actiondex serve exited with {served.process.returncode}:\n"
                f"{served.log.read_text(errors='replace')}"
            )
        try:
            with urllib.request.urlopen(served.base + path, timeout=2):
                return
        except OSError:
            time.sleep(0.2)
    raise TimeoutError(f"{served.base}{path} did not answer in {seconds:.0f} s")


@contextmanager
def serving(
    data_dir: Path,
    host: str = "127.0.0.1",
    ready: str = "/healthz",
    seconds: float = 60,
    **extra: str,
) -> Iterator[str]:
    """``start``'s server for the ``with`` block; yields its base URL and stops it after."""
    served = start(data_dir, host, ready, seconds, **extra)
    try:
        yield served.base
    finally:
        served.stop()
