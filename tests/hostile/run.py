"""Run `python -m actiondex crawl --json` against a LoopbackWeb, bounded in time."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, select
from sqlalchemy.orm import Session

from harness.procs import AX, env_for
from harness.web import LoopbackWeb
from registry.db.tables import ActionRow, Site
from registry.model.urls import key_host

CRAWL_TIMEOUT = 240  # the hostile crawl takes ~60 s alone, twice that beside other work


def crawl(
    data_dir: Path,
    web: LoopbackWeb,
    *targets: str,
    extra: tuple[str, ...] = (),
    resolve: tuple[str, ...] = (),
    env: dict[str, str] | None = None,
) -> dict[str, Any]:
    """The crawl's --json summary, with ``per_site`` turned into host -> row (the site key's
    port dropped: a loopback web serves each host on one port; registry.model.urls.site_key)."""
    flags = [a for e in [*web.resolve_args(), *resolve] for a in ("--resolve", e)]
    cmd = [*AX, "crawl", "--json", "--delay", "0", *flags, *extra, *targets]
    proc = subprocess.run(
        cmd,
        env=env_for(data_dir, **(env or {})),
        text=True,
        capture_output=True,
        timeout=CRAWL_TIMEOUT,
    )
    assert proc.stdout.strip(), proc.stderr
    summary = json.loads(proc.stdout)
    summary["per_key"] = {row["host"]: row for row in summary["per_site"]}  # as stored
    summary["per_site"] = {key_host(row["host"]): row for row in summary["per_site"]}
    summary["stderr"] = proc.stderr
    return summary


def action_names(data_dir: Path) -> dict[str, set[str]]:
    """host -> stored action names (the site key's port dropped, as in ``crawl``)."""
    engine = create_engine(f"sqlite:///{data_dir / 'actiondex.db'}")
    names: dict[str, set[str]] = {}
    with Session(engine) as session:
        for host, name in session.execute(
            select(Site.host, ActionRow.name).join_from(ActionRow, Site)
        ):
            names.setdefault(key_host(host), set()).add(name)
    engine.dispose()
    return names
