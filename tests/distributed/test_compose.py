"""docker-compose.yml, without a Docker engine: every service of our image runs a real
`actiondex` command with options the CLI accepts, and the topology issue 12 asks for."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

import pytest
import typer
import typer.main

from actiondex.cli import app
from tests.distributed.compose import command_of, ours, services


def parse(argv: list[str]) -> Any:
    """Parse ``actiondex ARGS`` as the CLI would (types, ranges, unknown options), without
    running the command: its context (typer's own click)."""
    group: Any = typer.main.get_command(app)
    parent = group.make_context("actiondex", list(argv), resilient_parsing=False)
    name, command, rest = group.resolve_command(parent, [*parent._protected_args, *parent.args])
    assert command is not None, f"no command {name}"
    return command.make_context(name or "", rest, parent=parent)


def test_every_service_of_our_image_runs_an_actiondex_command_the_cli_accepts() -> None:
    seen = set()
    for name, service in ours().items():
        argv = command_of(service)
        assert argv[0] == "actiondex", name
        context = parse(argv[1:])
        seen.add(context.command.name)
    assert seen >= {"migrate", "serve", "worker", "schedule", "crawl"}


def test_parse_refuses_what_the_cli_refuses() -> None:
    with pytest.raises(typer.TyperException):
        parse(["worker", "--concurrency", "0"])
    with pytest.raises(typer.TyperException):
        parse(["schedule", "--no-such-option"])
    with pytest.raises(typer.TyperException):
        parse(["no-such-command"])


def test_the_topology_of_issue_12() -> None:
    svc = services()
    assert "healthcheck" in svc["postgres"] and "volumes" in svc["postgres"]
    assert svc["migrate"]["command"] == ["actiondex", "migrate"]
    assert svc["api"]["deploy"]["replicas"] == 2
    assert svc["worker"]["deploy"]["replicas"] == 2
    assert command_of(svc["scheduler"])[:2] == ["actiondex", "schedule"]
    for name in ("api", "worker", "scheduler"):
        assert "healthcheck" in svc[name], name
        assert (
            svc[name]["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
        ), name


def test_the_long_running_services_restart_and_the_one_shots_do_not() -> None:
    """Issue 25.3: a worker or scheduler that ended stayed down (no restart policy)."""
    svc = services()
    for name in ("postgres", "api", "worker", "scheduler"):
        assert svc[name].get("restart") == "unless-stopped", name
    for name in ("migrate", "crawl"):  # run once; a restart would redo them forever
        assert svc[name].get("restart", "no") == "no", name


def test_the_api_healthcheck_asks_a_route_the_api_has() -> None:
    from api.routes.health import router

    probe = " ".join(services()["api"]["healthcheck"]["test"])
    assert "/readyz" in probe
    assert "/readyz" in {getattr(route, "path", "") for route in router.routes}


def test_the_worker_and_scheduler_healthchecks_run(pg_database: str) -> None:
    """Their probe (the database reachable with the service's settings) runs as written."""
    env = {**os.environ, "ACTIONDEX_DATABASE_URL": pg_database}
    for name in ("worker", "scheduler"):
        test = services()[name]["healthcheck"]["test"]
        assert test[:2] == ["CMD", "python"]
        ok = subprocess.run([sys.executable, *test[2:]], env=env, timeout=60)
        assert ok.returncode == 0, name
    env["ACTIONDEX_DATABASE_URL"] = "postgresql://nobody@127.0.0.1:9/none"
    down = subprocess.run(
        [sys.executable, *services()["worker"]["healthcheck"]["test"][2:]],
        env=env,
        timeout=60,
        capture_output=True,
    )
    assert down.returncode != 0
