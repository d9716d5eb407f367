"""A crawl listens on no port. Scrapy 2.19 turns on its RemoteControl extension by default: an
HTTP server on localhost that runs the Python code a request carries, its bearer token written
to a job file under the user's state directory. A process that reads hostile pages must not
carry a code-execution endpoint, nor leave its key on disk (docs/RELIABILITY.md 61)."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

from tests.helpers.crawls import command, crawl_args, crawl_env, small_web

SLOW = "slow.example.test"


def test_a_running_crawl_opens_no_listening_socket_and_writes_no_job_file(tmp_path: Path) -> None:
    state = tmp_path / "state"  # where platformdirs puts Scrapy's job files on Linux
    with small_web(tmp_path / "web", (SLOW,), delays={SLOW: 0.2}) as web:
        env = {**crawl_env(tmp_path / "data", ""), "XDG_STATE_HOME": str(state)}
        proc = subprocess.Popen(
            command(*crawl_args(web, f"http://{SLOW}:{web.port}/")),
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        listening: set[int] = set()
        job_files: list[Path] = []
        crawling_seen = False
        while proc.poll() is None:
            crawling_seen |= bool(web.requests(SLOW))
            if crawling_seen:  # Scrapy's engine has started: the extension would be up
                listening |= _listening_ports(proc.pid)
                job_files += list(state.rglob("*.json"))
            time.sleep(0.05)
        _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 0, stderr
    assert crawling_seen, "the crawl never reached the site: nothing was checked"
    assert listening == set(), f"the crawl listened on {sorted(listening)}"
    assert job_files == []


def _listening_ports(pid: int) -> set[int]:
    """TCP ports in LISTEN state held by one of ``pid``'s file descriptors."""
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = fd.readlink().name
        except OSError:
            continue  # closed meanwhile
        if target.startswith("socket:["):
            inodes.add(target[len("socket:[") : -1])
    ports = set()
    for table in ("tcp", "tcp6"):
        try:
            lines = Path(f"/proc/{pid}/net/{table}").read_text().splitlines()[1:]
        except OSError:
            continue  # the process ended
        for line in lines:
            fields = line.split()
            if fields[3] == "0A" and fields[9] in inodes:  # 0A: LISTEN
                ports.add(int(fields[1].rsplit(":", 1)[1], 16))
    return ports
