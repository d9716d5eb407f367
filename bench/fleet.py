"""What the worker benches share: a fresh PostgreSQL store of N known sites on a loopback web,
its sites made due again, one `actiondex crawl --due` process over them, and `actiondex schedule`
plus K `actiondex worker` processes recrawling them, timed, with the workers' memory sampled.

The loopback names go to every process through a `.env` file in its working directory (the
Settings read it), not the environment: 10,000 `--resolve` entries are longer than one
environment string may be (128 KiB on Linux).
"""

from __future__ import annotations

import ctypes
import os
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, func, select, update

from harness.db import engine_for, fresh_pg_database, make_known
from harness.procs import AX, env_for
from harness.web import LoopbackWeb
from registry.db.engine import transaction
from registry.db.tables import Site
from registry.store.rows import utcnow


@dataclass
class Fleet:
    web: LoopbackWeb
    url: str
    data: Path
    env: dict[str, str]
    engine: Engine

    @property
    def sites(self) -> int:
        return len(self.web.sites)

    def run(self, *args: str, timeout: float = 7200) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*AX, *args], env=self.env, cwd=self.data, capture_output=True, text=True,
            timeout=timeout, preexec_fn=_die_with_bench,
        )  # fmt: skip

    def make_due(self) -> Any:
        """Every site due now; returns the moment a recrawl counts from."""
        mark = utcnow() - timedelta(seconds=1)
        with transaction(self.engine) as session:
            session.execute(update(Site).values(next_crawl_at=mark - timedelta(minutes=1)))
        return mark

    def recrawled(self, mark: Any) -> int:
        """Sites whose next crawl was set after ``mark`` (crawled since, or failed)."""
        with transaction(self.engine) as session:
            query = select(func.count()).select_from(Site).where(Site.next_crawl_at > mark)
            return int(session.scalar(query) or 0)


@contextmanager
def fleet(web: LoopbackWeb, name: str, **env: str) -> Iterator[Fleet]:
    """A migrated store on a fresh database with every site of ``web`` known, never crawled."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp, fresh_pg_database(name) as url:
        data = Path(tmp)
        (data / ".env").write_text(f"ACTIONDEX_RESOLVE={','.join(web.resolve_args())}\n")
        settings = env_for(
            data / "store",
            url,
            ACTIONDEX_SCHEDULE_INTERVAL="1",
            ACTIONDEX_STALLED_INTERVAL="5",
            ACTIONDEX_HEARTBEAT_INTERVAL="2",
            **env,
        )
        settings.pop("ACTIONDEX_RESOLVE", None)
        migrated = subprocess.run(
            [*AX, "migrate"], env=settings, cwd=data, capture_output=True, text=True, timeout=600
        )
        if migrated.returncode:
            raise SystemExit(f"migrate failed: {migrated.stderr[-2000:]}")
        engine = engine_for(url, data / "store")
        with transaction(engine) as session:
            make_known(session, {host: web.url(host)[:-1] for host in web.sites})
        try:
            yield Fleet(web, url, data, settings, engine)
        finally:
            engine.dispose()


def one_process(f: Fleet) -> dict[str, Any]:
    """`actiondex crawl --due` of every site, one process (the baseline): seconds start to exit."""
    mark, since, started, cpu = f.make_due(), len(f.web.log), time.monotonic(), machine_cpu()
    roles = cpu_by_role({})
    proc = f.run("crawl", "--due", "--limit", str(f.sites), "--json", "--no-index")
    seconds, cpu = time.monotonic() - started, machine_cpu() - cpu
    roles = _minus(cpu_by_role({}), roles)
    if not proc.stdout.strip():
        raise SystemExit(f"crawl failed: {proc.stderr[-2000:]}")
    return {
        "seconds": seconds,
        "requests": len(f.web.log) - since,
        "done": f.recrawled(mark),
        "cpu": cpu,
        "roles": roles,
    }


def machine_cpu() -> float:
    """CPU seconds the whole machine has spent busy (/proc/stat: every process, the loopback
    web's and PostgreSQL's included). Not the bench's children's rusage: a worker's crawl
    children are its forkserver's, which nobody waits for, so their CPU was never counted."""
    fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]
    user, nice, system, _idle, _iowait, irq, softirq, steal = map(int, fields[:8])
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


def cpu_by_role(roots: dict[int, str]) -> dict[str, float]:
    """CPU seconds so far of every process on the machine, by role: a process in ``roots``
    (pid: role) has that role, its descendants "<role>' children" (a crawl child exited is in
    its waiting parent's children's time, its forkserver's); the bench's own time is the
    loopback web's, its waited children's (a `crawl` process) their own; PostgreSQL's
    processes are one role."""
    procs: dict[int, tuple[int, str, float, float]] = {}  # pid: ppid, name, own, children's
    tick = os.sysconf("SC_CLK_TCK")
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        name, fields = stat[stat.find("(") + 1 : stat.rfind(")")], stat.rsplit(")", 1)[1].split()
        utime, stime, cutime, cstime = (int(x) / tick for x in fields[11:15])
        procs[int(entry.name)] = (int(fields[1]), name, utime + stime, cutime + cstime)
    bench = os.getpid()
    roles = {**roots, bench: "bench: loopback web"}
    out: dict[str, float] = {}
    for pid, (parent, name, own, children) in procs.items():
        role = roles.get(pid)
        while role is None and parent in procs:
            role, parent = roles.get(parent), procs[parent][0]
            role = role and f"{role}' children"
        role = role or ("postgres" if name.startswith("postgres") else "other")
        out[role] = out.get(role, 0.0) + own + (0.0 if pid == bench else children)
        if pid == bench:
            out["bench: waited processes"] = out.get("bench: waited processes", 0.0) + children
    return out


def _minus(after: dict[str, float], before: dict[str, float]) -> dict[str, float]:
    return {role: round(cpu - before.get(role, 0.0), 1) for role, cpu in after.items()}


def _die_with_bench() -> None:
    """Runs in a child before exec: SIGTERM when the bench dies, so a bench killed (even with
    -9) leaves no worker or scheduler running; a worker's crawl children die with it."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


@dataclass
class Memory:
    """Peak RSS of the worker processes themselves, and peak PSS of each worker with its
    forkserver and crawl children (PSS: shared pages counted once across them)."""

    worker_rss: float = 0.0
    tree_pss: float = 0.0
    samples: list[float] = field(default_factory=list)

    def sample(self, pids: list[int]) -> None:
        self.worker_rss = max([self.worker_rss, *(_kb(p, "status", "VmRSS:") for p in pids)])
        trees = [sum(_kb(q, "smaps_rollup", "Pss:") for q in {p, *_descendants(p)}) for p in pids]
        self.tree_pss = max([self.tree_pss, *trees])
        self.samples.append(sum(trees))


def cluster(
    f: Fleet, workers: int, args: list[str], deadline: float = 7200, keep: Path | None = None
) -> dict[str, Any]:
    """The scheduler and ``workers`` workers (started and warm first), every site made due,
    timed until every site is recrawled; then SIGTERM, as an operator stops them. Their logs
    are copied into ``keep`` (a directory), if given."""
    logs = [f.data / f"w{n}.log" for n in range(workers)]
    procs = [_start(f, ["schedule"], f.data / "scheduler.log")]
    procs += [_start(f, ["worker", *args], log) for log in logs]
    memory, stop = Memory(), threading.Event()
    try:
        _wait(lambda: all("started on queues" in log.read_text() for log in logs), procs, 300)
        time.sleep(1)  # registered with the queue
        mark, since, started = f.make_due(), len(f.web.log), time.monotonic()
        cpu, roots = machine_cpu(), {procs[0].pid: "scheduler"}
        roots |= {p.pid: "workers" for p in procs[1:]}
        roles = cpu_by_role(roots)
        sampler = threading.Thread(
            target=lambda: _every(0.5, stop, lambda: memory.sample([p.pid for p in procs[1:]]))
        )
        sampler.start()
        _wait(lambda: f.recrawled(mark) >= f.sites, procs, deadline)
        seconds, cpu = time.monotonic() - started, machine_cpu() - cpu
        roles = _minus(cpu_by_role(roots), roles)
    finally:
        stop.set()
        for proc in procs:
            proc.send_signal(signal.SIGTERM)
        for proc in procs:
            proc.wait(timeout=120)
    said = "".join(log.read_text(errors="replace") for log in logs)
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
        for log in [f.data / "scheduler.log", *logs]:
            shutil.copy(log, keep / f"{workers}w-{int(started)}-{log.name}")
    return {
        "seconds": seconds,
        "requests": len(f.web.log) - since,
        "done": f.recrawled(mark),
        "memory": memory,
        "cpu": cpu,
        "roles": roles,
        "tracebacks": said.count("Traceback"),
    }


def _start(f: Fleet, args: list[str], log: Path) -> subprocess.Popen[bytes]:
    with log.open("wb") as sink:
        return subprocess.Popen(
            [*AX, *args], env=f.env, cwd=f.data, stdout=subprocess.DEVNULL, stderr=sink,
            preexec_fn=_die_with_bench,
        )  # fmt: skip


def _wait(check: Any, procs: list[subprocess.Popen[bytes]], seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            raise SystemExit(f"not done within {seconds:.0f} s")
        if any(p.poll() is not None for p in procs):
            raise SystemExit(f"{[p.args for p in procs if p.poll() is not None]} exited early")
        time.sleep(0.2)


def _every(seconds: float, stop: threading.Event, call: Any) -> None:
    while not stop.wait(seconds):
        call()


def _kb(pid: int, file: str, key: str) -> float:
    """A /proc figure in MB (0 when the process is gone)."""
    try:
        for line in Path(f"/proc/{pid}/{file}").read_text().splitlines():
            if line.startswith(key):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def _descendants(pid: int) -> set[int]:
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parents[int(entry.name)] = int(
                    (entry / "stat").read_text().rsplit(")", 1)[1].split()[1]
                )
            except (OSError, IndexError, ValueError):
                continue
    found, frontier = set(), {pid}
    while frontier:
        frontier = {p for p, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def baseline_mean(rows: list[tuple[str, dict[str, Any]]]) -> float:
    """The mean seconds of the rows labelled baseline."""
    base = [row["seconds"] for label, row in rows if "baseline" in label]
    return sum(base) / len(base)


def cells(row: dict[str, Any], sites: int) -> str:
    """seconds | machine CPU seconds | sites/hour | requests a site | peak worker RSS | peak worker
    tree PSS."""
    memory = row.get("memory")
    return (
        f"{row['seconds']:.1f} | {row.get('cpu', 0.0):.1f} | "
        f"{row['done'] / row['seconds'] * 3600:,.0f} | "
        f"{row['requests'] / sites:.1f} | {f'{memory.worker_rss:.0f}' if memory else '-'} | "
        f"{f'{memory.tree_pss:.0f}' if memory else '-'}"
    )
