"""schemathesis with every check, random seeds and 100 examples an operation, against a live
`actiondex serve` over the two ingested shops the API tests serve (tests/fixtures/ingest).

    .venv/bin/python -m bench.fuzz [--seeds 3] [--seed S ...] [--examples 100]

Baseline row: the suite's own run (tests/api/test_openapi.py: the fixed seed, 30 examples),
measured in the same session against the same server. Then one run per random seed. Prints
a table of the runs (test cases, failures, errors, seconds) and one of the operations x the
findings of each run (schemathesis' codes, e.g. ST202; "-" for none). Exit 1 if any run
found anything. harness/fuzz.py holds the command, and the one thing never sent.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.fuzz import SUITE_SEED, command, environment
from harness.procs import AX, env_for, serving

SHOPS = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "ingest"


@dataclass
class Run:
    name: str
    seed: int
    examples: int
    seconds: float = 0.0
    report: dict[str, Any] = field(default_factory=dict)
    output: str = ""

    def findings(self) -> dict[str, list[str]]:
        """operation -> the codes of the failures (and "error" for errors) found on it."""
        found: dict[str, list[str]] = {}
        for failure in self.report.get("failures", []):
            for operation in failure.get("operations", []):
                found.setdefault(operation, []).append(str(failure["code"]))
        for error in self.report.get("errors", []):  # the report names no operation
            found.setdefault("(errors of the run)", []).append(str(error.get("title", "error")))
        return found


def ingest(data: Path) -> None:
    for shop in ("shop", "checkout"):
        done = subprocess.run(
            [*AX, "ingest", str(SHOPS / shop)], env=env_for(data), capture_output=True, text=True
        )
        if done.returncode:
            raise SystemExit(f"ingest {shop} failed: {done.stderr.strip()}")


def fuzz(base: str, run: Run, workdir: Path) -> None:
    report = workdir / f"{run.name}.json"
    started = time.monotonic()
    # In its own folder: schemathesis keeps a replay store in the working directory.
    folder = workdir / run.name
    folder.mkdir()
    done = subprocess.run(
        command(base, run.examples, run.seed, report),
        env=environment(),
        cwd=folder,
        capture_output=True,
        text=True,
        check=False,
    )
    run.output = done.stdout
    run.seconds = time.monotonic() - started
    run.report = json.loads(report.read_text()) if report.exists() else {"errors": [{}]}


def tables(runs: list[Run]) -> str:
    lines = ["| run | seed | examples/op | test cases | failures | errors | seconds |"]
    lines.append("|---|---|---|---|---|---|---|")
    for run in runs:
        cases = run.report.get("test_cases", {}).get("generated", "?")
        failures = sum(int(f.get("count", 1)) for f in run.report.get("failures", []))
        errors = len(run.report.get("errors", []))
        lines.append(
            f"| {run.name} | {run.seed} | {run.examples} | {cases} | {failures} | {errors} "
            f"| {run.seconds:.0f} |"
        )
    operations = sorted(
        {op for run in runs for op in run.report.get("valid_rates", {})}
        | {op for run in runs for op in run.findings()}
    )
    lines += ["", "| operation | " + " | ".join(run.name for run in runs) + " |"]
    lines.append("|---|" + "---|" * len(runs))
    for operation in operations:
        cells = [", ".join(sorted(set(run.findings().get(operation, [])))) or "-" for run in runs]
        lines.append(f"| {operation} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=3, help="random seeds to run (default 3)")
    parser.add_argument("--seed", type=int, action="append", default=[], help="a given seed")
    parser.add_argument("--examples", type=int, default=100, help="examples an operation")
    args = parser.parse_args()
    seeds = args.seed or [random.randrange(2**32) for _ in range(args.seeds)]
    runs = [Run("baseline (suite)", SUITE_SEED, 30)]
    runs += [Run(f"seed {i + 1}", seed, args.examples) for i, seed in enumerate(seeds)]
    with tempfile.TemporaryDirectory(prefix="actiondex-fuzz-") as tmp:
        data = Path(tmp) / "data"
        data.mkdir()
        ingest(data)
        with serving(data) as base:
            for run in runs:
                fuzz(base, run, Path(tmp))
                print(f"{run.name}: {run.seconds:.0f} s", flush=True)
    print(tables(runs))
    for run in runs:  # how to replay each finding
        for line in run.output.splitlines():
            if line.strip().startswith("curl -X"):
                print(f"{run.name}: {line.strip()[:300]}")
    raise SystemExit(1 if any(run.findings() for run in runs) else 0)


if __name__ == "__main__":
    main()
