"""`actiondex ARGS` run to its end in a process forked from a warm one (issue 19: feedback in
seconds).

A cold `python -m actiondex` spends ~1.5 CPU-seconds importing Python, SQLAlchemy, Scrapy and
the registry before it does anything, and the suite starts hundreds. Here a forkserver per
pytest worker imports the command line once; each command is a new process forked from it that
takes the test's environment and runs the very module `python -m actiondex` runs
(``runpy.run_module("actiondex")``), exit code, stdout and stderr as a subprocess's. The worker
does the same for its crawl children (actiondex/jobs/forked.py).

Only commands that run to their end go through here. A test that signals a process, reads its
output as it comes, or needs a fresh interpreter (what gets imported, start-up itself) starts
``harness.procs.AX`` itself; ACTIONDEX_TEST_COLD=1 sends these through a fresh interpreter too.
So does an environment that changes what the code decides at import: the meaning model (the
index version is worked out from it when registry.index.parts loads), which the forkserver
took from the test process when it started.
"""

from __future__ import annotations

import multiprocessing
import os
import runpy
import signal
import subprocess
import sys
import tempfile
from multiprocessing import forkserver
from pathlib import Path
from typing import Any

from harness.procs import AX

# What the forkserver imports once: the command line, and through it the registry and store.
PRELOAD = ["actiondex.cli", "actiondex.crawling", "registry.store.promotion"]
COLD = os.environ.get("ACTIONDEX_TEST_COLD") == "1"
IMPORT_TIME = ("ACTIONDEX_MEANING_MODEL",)  # variables the preloaded modules read as they load
_context: Any = None
_imported_with: dict[str, str | None] = {}


def _warm() -> Any:
    global _context
    if _context is None:
        _context = multiprocessing.get_context("forkserver")
        _context.set_forkserver_preload(PRELOAD)
        _imported_with.update({name: os.environ.get(name) for name in IMPORT_TIME})
        forkserver.ensure_running()  # now, with the environment just recorded
    return _context


def _needs_a_fresh_interpreter(env: dict[str, str]) -> bool:
    if COLD:
        return True
    _warm()
    return any(env.get(name) != _imported_with[name] for name in IMPORT_TIME)


def _child(argv: list[str], env: dict[str, str], out: str, err: str) -> None:
    """In the forked process: the test's environment and files, then `actiondex ARGV`."""
    import ctypes

    ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG: never outlive the server
    for path, fd in ((out, 1), (err, 2)):
        target = os.open(path, os.O_WRONLY | os.O_TRUNC)
        os.dup2(target, fd)
        os.close(target)
    os.environ.clear()
    os.environ.update(env)
    from registry.config import get_settings

    get_settings.cache_clear()  # read from this environment, as a fresh start would
    sys.argv = ["actiondex", *argv]
    runpy.run_module("actiondex", run_name="__main__")


def run(argv: list[str], env: dict[str, str], timeout: float) -> subprocess.CompletedProcess[str]:
    """`actiondex ARGV` with ``env``, to its end, as ``subprocess.run(..., text=True,
    capture_output=True, timeout=timeout)`` would give it."""
    args = [*AX, *argv]
    if _needs_a_fresh_interpreter(env):
        return subprocess.run(args, env=env, text=True, capture_output=True, timeout=timeout)
    with tempfile.TemporaryDirectory(prefix="actiondex-warm-") as tmp:
        out, err = Path(tmp) / "stdout", Path(tmp) / "stderr"
        out.touch()
        err.touch()
        proc = _warm().Process(target=_child, args=(argv, env, str(out), str(err)))
        proc.start()
        proc.join(timeout)
        if proc.exitcode is None:
            proc.kill()
            proc.join()
            raise subprocess.TimeoutExpired(args, timeout, out.read_bytes(), err.read_bytes())
        return subprocess.CompletedProcess(
            args,
            proc.exitcode,
            out.read_text(encoding="utf-8", errors="replace"),
            err.read_text(encoding="utf-8", errors="replace"),
        )
