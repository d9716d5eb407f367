"""schemathesis against a live `actiondex serve`, every check on: the command and environment
tests/api/test_openapi.py (a fixed seed, 30 examples) and bench/fuzz.py (random seeds, 100
examples) run, and the hooks schemathesis loads from here (SCHEMATHESIS_HOOKS=harness.fuzz).

Nothing is accepted by name: every failure of every check fails the run. The one thing not
sent is POST /validate's URL form with a URL it would fetch: a child `actiondex validate`
crawls that site, and there is no network here (URL forms the route refuses before fetching
are sent). The Examples phase sends the OpenAPI document's own URL example whatever
``filter_case`` says; a URL validation may take ACTIONDEX_VALIDATE_TIMEOUT (30 s) by the
document, so that is the response-time limit of the run.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import schemathesis

from api.routes.validate import fetch_target
from registry.config import Settings

ROOT = Path(__file__).resolve().parent.parent
SUITE_SEED = 20261201  # the suite's fixed seed
MAX_RESPONSE_SECONDS = Settings.model_fields["validate_timeout"].default + 10


def fetches(body: Any) -> bool:
    """Whether POST /validate would fetch for ``body``: a lone {"url"} it takes."""
    if isinstance(body, bytes | str):
        try:
            body = json.loads(body)
        except ValueError:
            return False
    return isinstance(body, dict) and set(body) == {"url"} and fetch_target(body["url"]) is not None


@schemathesis.hook
def filter_case(context: Any, case: Any) -> bool:
    return not fetches(case.body)


def command(base: str, examples: int, seed: int | None, report: Path | None = None) -> list[str]:
    """`schemathesis run` over ``base``'s /openapi.json: every check, ``examples`` an
    operation, ``seed`` (None: a random one), a JSON report at ``report`` when given."""
    args = [sys.executable, "-m", "schemathesis.cli", "run", f"{base}/openapi.json"]
    args += ["--checks", "all", "--max-examples", str(examples), "--no-color"]
    args += ["--generation-database", "none", "--request-timeout", str(MAX_RESPONSE_SECONDS)]
    args += ["--max-response-time", str(MAX_RESPONSE_SECONDS)]
    if seed is not None:
        args += ["--seed", str(seed)]
    if report is not None:
        args += ["--report", "json", "--report-json-path", str(report)]
    return args


def environment() -> dict[str, str]:
    """The environment schemathesis runs in: these hooks loaded, this checkout importable."""
    return {**os.environ, "SCHEMATHESIS_HOOKS": "harness.fuzz", "PYTHONPATH": str(ROOT)}
