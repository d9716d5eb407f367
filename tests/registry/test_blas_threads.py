"""numpy's OpenBLAS runs one thread in a process that imported registry (issue 24): on a busy
2-core machine its thread a core made the vector index's scan of 10k rows 10-15 ms instead of
0.2 ms, a third of /find's throughput with the first stage by meaning on."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

PROBE = """
import ctypes, sys
import registry.index.nearest  # numpy (and its OpenBLAS) loads under registry
maps = open("/proc/self/maps").read().splitlines()
libs = sorted({line.split()[-1] for line in maps if "openblas" in line.lower()})
for lib in libs:
    for name in ("scipy_openblas_get_num_threads64_", "openblas_get_num_threads64_",
                 "openblas_get_num_threads"):
        get = getattr(ctypes.CDLL(lib), name, None)
        if get is not None:
            print(get()); sys.exit(0)
print("none")
"""


def threads(env: dict[str, str]) -> str:
    done = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, env=env, check=True
    )
    return done.stdout.strip()


def test_one_blas_thread_unless_the_operator_says_otherwise() -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS",)}
    env.pop("OMP_NUM_THREADS", None)
    if threads(env) == "none":
        pytest.skip("numpy here is not linked with an OpenBLAS that says its thread count")
    assert threads(env) == "1"
    if (os.cpu_count() or 1) > 1:
        assert threads({**env, "OPENBLAS_NUM_THREADS": "2"}) == "2"
