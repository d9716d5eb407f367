"""HTTP /find under load: the real server (``actiondex serve``) and wrk, on loopback.

The server is started exactly as a deployment runs it: one process, searches in its threads.
wrk cycles through the queries with a small Lua script and stops by itself after ``seconds``.
"""

from __future__ import annotations

import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO
from urllib.parse import urlencode

LUA = """
paths = {%s}
i = 0
request = function()
  i = i + 1
  return wrk.format("GET", paths[(i %% #paths) + 1])
end
"""
UNITS = {"us": 0.001, "ms": 1.0, "s": 1000.0}


@dataclass
class Load:
    concurrency: int
    rps: float
    p50_ms: float
    p99_ms: float


# The server a bench measures is harness.procs.start's `actiondex serve`, as users run it:
# the access log on (to a file beside the store, not into the table), the per-client rate
# limit off (wrk is one client asking as fast as it can: the limit would measure itself;
# docs/RELIABILITY.md 32: tests/api/test_ratelimit.py), ready once a search answers.
WARM = "/find?q=warm"


def _processes(pid: int) -> list[int]:
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    return [pid] + [q for child in children for q in _processes(int(child))]


def memory_mb(pid: int) -> tuple[float, float]:
    """RSS and PSS of the server and any processes it started, together. RSS counts mapped
    index pages once per process that touched them; PSS splits shared pages between them."""
    rss = pss = 0
    for p in _processes(pid):
        rollup = Path(f"/proc/{p}/smaps_rollup").read_text()
        rss += int(re.search(r"^Rss:\s+(\d+)", rollup, re.M).group(1))  # type: ignore[union-attr]
        pss += int(re.search(r"^Pss:\s+(\d+)", rollup, re.M).group(1))  # type: ignore[union-attr]
    return rss / 1024, pss / 1024


def memory_parts_mb(pid: int) -> dict[str, float]:
    """Where the server's resident memory is, by mapping: the index files, other files
    (Python, libraries), anonymous memory (heaps, stacks), summed over its processes."""
    parts: dict[str, float] = {}
    for p in _processes(pid):
        name = "anonymous"
        for line in Path(f"/proc/{p}/smaps").read_text().splitlines():
            if re.match(r"^[0-9a-f]+-[0-9a-f]+ ", line):
                path = line.split(maxsplit=5)[5] if len(line.split()) > 5 else ""
                name = (
                    "index files"
                    if "/index/" in path
                    else "other files"
                    if path.startswith("/")
                    else "anonymous"
                )
            elif line.startswith("Rss:"):
                parts[name] = parts.get(name, 0.0) + int(line.split()[1]) / 1024
    return parts


def _ms(text: str) -> float:
    number, unit = re.fullmatch(r"([\d.]+)(us|ms|s)", text).groups()  # type: ignore[union-attr]
    return float(number) * UNITS[unit]


def wrk(port: int, queries: list[str], concurrency: int, seconds: int) -> Load:
    with tempfile.NamedTemporaryFile("w", suffix=".lua") as script:
        out = subprocess.run(
            wrk_command(port, queries, concurrency, seconds, script),
            check=True,
            capture_output=True,
            text=True,
            timeout=seconds + 30,
        ).stdout
    return wrk_load(out, concurrency)


def thread_cpu_ms(pid: int) -> dict[int, float]:
    """CPU ms each thread of process ``pid`` has used (its main thread's id is ``pid``). A
    thread that ends between two readings takes its CPU with it: the server's search threads
    live on."""
    tick, used = os.sysconf("SC_CLK_TCK"), {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        stat = (task / "stat").read_text()
        fields = stat[stat.rindex(")") + 2 :].split()  # after "pid (name) "
        used[int(task.name)] = (int(fields[11]) + int(fields[12])) * 1000 / tick  # utime+stime
    return used


@dataclass
class ServerCpu:
    """The server's CPU during one wrk run: ms a request in its main thread (the event loop:
    HTTP, routing, middleware) and in its other threads (the searches), and the cores it kept
    busy on average."""

    http_ms: float
    search_ms: float
    cores: float


def _measured(
    port: int, queries: list[str], c: int, seconds: int, pid: int | None
) -> tuple[Load, ServerCpu | None]:
    """``wrk``'s Load, and the server's ServerCpu over the run when ``pid`` is given."""
    before = thread_cpu_ms(pid) if pid else {}
    load = wrk(port, queries, c, seconds)
    if not pid:
        return load, None
    after = thread_cpu_ms(pid)
    spent = {tid: ms - before.get(tid, 0.0) for tid, ms in after.items()}
    requests = max(load.rps * seconds, 1.0)
    main = spent.get(pid, 0.0)
    others = sum(spent.values()) - main
    return load, ServerCpu(main / requests, others / requests, (main + others) / seconds / 1000)


@dataclass
class Alternated:
    """c=1 and c=16 runs taken in turns, ``rounds`` times: each figure is the median of its
    rounds, ``ratios`` each round's c=16 requests a second over its c=1's, ``cpu`` the
    server's CPU by run (c=1, c=16) when measured."""

    c1: Load
    c16: Load
    ratios: list[float]
    cpu: list[tuple[ServerCpu, ServerCpu]] = field(default_factory=list)

    @property
    def ratio(self) -> float:
        return statistics.median(self.ratios)

    def note(self) -> str:
        text = "c16 / c1 requests a second by round: " + ", ".join(f"{r:.2f}x" for r in self.ratios)
        for i, c in enumerate((1, 16) if self.cpu else ()):
            runs = [pair[i] for pair in self.cpu]
            http = statistics.median(x.http_ms for x in runs)
            search = statistics.median(x.search_ms for x in runs)
            cores = statistics.median(x.cores for x in runs)
            text += (
                f"; server CPU a request at c{c} (medians): main thread {http:.2f} ms, "
                f"search threads {search:.2f} ms, {cores:.2f} cores busy"
            )
        return text


def alternated(
    port: int, queries: list[str], seconds: int, rounds: int, pid: int | None = None
) -> Alternated:
    """wrk at c=1 then c=16, ``rounds`` times. One pair of runs moves by a third on a
    2-core machine whose speed drifts within minutes; the median of several pairs, each taken
    within seconds of each other, tells the concurrency's own effect. ``pid``: the server's
    process, whose CPU by thread is read around each run."""
    measured = [[_measured(port, queries, c, seconds, pid) for c in (1, 16)] for _ in range(rounds)]
    runs = [[load for load, _ in pair] for pair in measured]
    cpu = [(one[1], many[1]) for one, many in measured if one[1] and many[1]]

    def median(c: int, i: int) -> Load:
        loads = [pair[i] for pair in runs]
        return Load(
            c,
            statistics.median(x.rps for x in loads),
            statistics.median(x.p50_ms for x in loads),
            statistics.median(x.p99_ms for x in loads),
        )

    ratios = [c16.rps / c1.rps for c1, c16 in runs]
    return Alternated(median(1, 0), median(16, 1), ratios, cpu)


def wrk_command(
    port: int, queries: list[str], concurrency: int, seconds: int, script: IO[str]
) -> list[str]:
    """wrk's command line, cycling through ``queries`` (written to ``script``). wrk stops
    after ``seconds`` or at SIGINT, and prints its figures either way."""
    if not shutil.which("wrk"):
        sys.exit("wrk not found: `sudo apt-get install -y wrk` (make bench does it)")
    paths = ", ".join(f'"/find?{urlencode({"q": q})}"' for q in queries)
    script.write(LUA % paths)
    script.flush()
    return [
        "wrk",
        f"-t{min(concurrency, 2)}",
        f"-c{concurrency}",
        f"-d{seconds}s",
        "--latency",
        "-s",
        script.name,
        f"http://127.0.0.1:{port}",
    ]


def wrk_load(out: str, concurrency: int) -> Load:
    """The figures of wrk's report ``out``; any non-2xx answer is an error."""
    latency = dict(re.findall(r"^\s+(50|99)%\s+(\S+)", out, re.M))
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))  # type: ignore[union-attr]
    if "Non-2xx" in out:
        raise RuntimeError(f"the API answered errors under load:\n{out}")
    return Load(concurrency, rps, _ms(latency["50"]), _ms(latency["99"]))
