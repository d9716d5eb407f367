"""`actiondex serve` and `actiondex mcp` hold at most two malloc arenas (actiondex.serving
fewer_malloc_arenas): each search thread's own arena kept ~30 MB of a 1M-action API resident.
Counted in a fresh interpreter with glibc's malloc_info, six threads allocating at once."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

PROBE = """
import ctypes, sys, tempfile, threading
from actiondex.serving import fewer_malloc_arenas
print(fewer_malloc_arenas() if sys.argv[1] == "limit" else None)
together = threading.Barrier(6)
def allocate():
    together.wait()
    held = [bytearray(200_000) for _ in range(50)]  # past pymalloc: malloc's own
    together.wait()
threads = [threading.Thread(target=allocate) for _ in range(6)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
libc = ctypes.CDLL(None)
libc.fopen.restype = ctypes.c_void_p
with tempfile.NamedTemporaryFile("r") as report:
    out = ctypes.c_void_p(libc.fopen(report.name.encode(), b"w"))
    libc.malloc_info(0, out)
    libc.fclose(out)
    print(report.read().count("<heap nr="))
"""

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux") or os.confstr("CS_GNU_LIBC_VERSION") is None,
    reason="malloc arenas are glibc's",
)


def _arenas(mode: str, **env: str) -> tuple[str, int]:
    environment = {k: v for k, v in os.environ.items() if k != "MALLOC_ARENA_MAX"} | env
    done = subprocess.run(
        [sys.executable, "-c", PROBE, mode],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
        env=environment,
    )
    said, heaps = done.stdout.split()
    return said, int(heaps)


def test_two_arenas_for_any_number_of_threads() -> None:
    assert _arenas("limit") == ("True", 2)


def test_without_the_limit_each_thread_takes_one() -> None:
    said, heaps = _arenas("none")
    assert heaps > 2  # what the limit prevents (7 here: the main arena and one a thread)


def test_the_operators_setting_wins() -> None:
    said, heaps = _arenas("limit", MALLOC_ARENA_MAX="3")
    assert said == "False"
    assert heaps == 3
