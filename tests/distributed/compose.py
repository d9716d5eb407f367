"""docker-compose.yml read as data: which services run our image, and the `actiondex` command
each runs, as argv for a local process (the distributed test starts these same commands)."""

from __future__ import annotations

import sys
from typing import Any

import yaml

from tests.helpers.paths import ROOT

COMPOSE = ROOT / "docker-compose.yml"


def services() -> dict[str, dict[str, Any]]:
    return dict(yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))["services"])


def ours() -> dict[str, dict[str, Any]]:
    """The services built from this repository's image (the others are postgres)."""
    return {name: svc for name, svc in services().items() if svc.get("build") == "."}


def command_of(service: dict[str, Any]) -> list[str]:
    """What the container runs: its entrypoint, then its command."""
    return [*service.get("entrypoint", []), *service.get("command", [])]


def local(name: str) -> list[str]:
    """The service's command as a local process: `actiondex` is this interpreter's module."""
    argv = command_of(services()[name])
    assert argv[:1] == ["actiondex"], f"{name} runs {argv}, not actiondex"
    return [sys.executable, "-m", "actiondex", *argv[1:]]
