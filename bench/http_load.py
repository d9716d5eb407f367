"""HTTP /find under load: the real server (``actiondex serve``) and wrk, on loopback.

The server is started exactly as a deployment runs it: one process, searches in its threads.
wrk cycles through the queries with a small Lua script and stops by itself after ``seconds``.
"""

from __future__ import annotations

import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
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


@dataclass
class Alternated:
    """c=1 and c=16 runs taken in turns, ``rounds`` times: each figure is the median of its
    rounds, ``ratios`` each round's c=16 requests a second over its c=1's."""

    c1: Load
    c16: Load
    ratios: list[float]

    @property
    def ratio(self) -> float:
        return statistics.median(self.ratios)

    def note(self) -> str:
        return "c16 / c1 requests a second by round: " + ", ".join(f"{r:.2f}x" for r in self.ratios)


def alternated(port: int, queries: list[str], seconds: int, rounds: int) -> Alternated:
    """wrk at c=1 then c=16, ``rounds`` times. One pair of runs moves by a third on a
    2-core machine whose speed drifts within minutes; the median of several pairs, each taken
    within seconds of each other, tells the concurrency's own effect."""
    runs = [[wrk(port, queries, c, seconds) for c in (1, 16)] for _ in range(rounds)]

    def median(c: int, i: int) -> Load:
        loads = [pair[i] for pair in runs]
        return Load(
            c,
            statistics.median(x.rps for x in loads),
            statistics.median(x.p50_ms for x in loads),
            statistics.median(x.p99_ms for x in loads),
        )

    return Alternated(median(1, 0), median(16, 1), [c16.rps / c1.rps for c1, c16 in runs])


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
