"""Crawls through `python -m actiondex` against small loopback webs, with recrawl bounds a
test can tell from the defaults, and a look at the store they wrote."""

from __future__ import annotations

import subprocess
from pathlib import Path

from sqlalchemy import Engine, create_engine

from actiondex.demo.web import DemoWeb
from harness.procs import AX, env_for
from tests.helpers import warm

CRAWL_TIMEOUT = 120
RECRAWL = {
    "ACTIONDEX_RECRAWL_MIN": "600",
    "ACTIONDEX_RECRAWL_INITIAL": "7200",
    "ACTIONDEX_RECRAWL_MAX": "86400",
    "ACTIONDEX_RECRAWL_BACKOFF_MAX": "3600",
    "ACTIONDEX_CRAWL_HEARTBEAT": "0.5",
}  # a heartbeat a test sees move
ACTIONS = (
    '{"schema": "agent-actions/0.1", "actions": [{"name": "search", "method": "GET", '
    '"path": "/s{?q}", "effect": "read", "title": "Search"}]}'
)


def small_web(
    root: Path, hosts: tuple[str, ...], delays: dict[str, float] | None = None
) -> DemoWeb:
    """A DemoWeb (not started) whose ``hosts`` publish one action each."""
    for host in hosts:
        (root / host / ".well-known").mkdir(parents=True)
        (root / host / ".well-known" / "agent-actions.json").write_text(ACTIONS)
    return DemoWeb(root=root, delays=delays)


def crawl_env(data_dir: Path, db_url: str) -> dict[str, str]:
    return env_for(data_dir, db_url, **RECRAWL)


def command(*args: str) -> list[str]:
    return [*AX, *args]


def actiondex(
    data_dir: Path, db_url: str, *args: str, timeout: float = CRAWL_TIMEOUT
) -> subprocess.CompletedProcess[str]:
    return warm.run(list(args), crawl_env(data_dir, db_url), timeout=timeout)


def crawl_args(web: DemoWeb, *extra: str) -> list[str]:
    flags = [arg for entry in web.resolve_args() for arg in ("--resolve", entry)]
    return ["crawl", "--json", "--delay", "0", *flags, *extra]


def store_engine(db_url: str) -> Engine:
    return create_engine(db_url.replace("postgresql://", "postgresql+psycopg://"))
