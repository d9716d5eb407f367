"""What the validator tests share: the fixture files and sites, a report's keys and codes."""

from __future__ import annotations

from typing import Any

from actiondex.demo.web import DemoWeb
from tests.helpers.paths import FIXTURES

FILES = FIXTURES / "validate" / "files"
SITES = FIXTURES / "validate" / "sites"  # served by the demo web on loopback
REPORT_KEYS = {"format", "actions", "flows", "diagnostics"}


def codes(report: dict[str, Any]) -> dict[str, str]:
    """A public report's diagnostics as code -> severity."""
    return {d["code"]: d["severity"] for d in report["diagnostics"]}


def resolve_flags(web: DemoWeb) -> list[str]:
    """The --resolve options that send the demo web's hosts to its loopback address."""
    return [arg for entry in web.resolve_args() for arg in ("--resolve", entry)]
