"""What a hostile input schema costs registry.calls.prepare: the cases of issue 25 (a quadratic
``uniqueItems``, doubling ``allOf``/``$ref``, a wide ``anyOf`` over a long list, and a ``$ref``
to a loopback listener and to a local file), each timed with its outcome. With ``--before
REV`` the same cases also run on the code of git revision REV (exported to a temporary
directory, run in a subprocess of the same Python), for a before/after table in one run.

    .venv/bin/python -m bench.schema_bench [--before main]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def _mixed(n: int) -> list[Any]:
    kinds = (lambda i: i, str, lambda i: [i], lambda i: {"k": i}, lambda i: i + 0.5)
    return [kinds[i % len(kinds)](i) for i in range(n)]


def _doubling(levels: int) -> dict[str, Any]:
    defs: dict[str, Any] = {"d0": {"type": "string"}}
    for k in range(1, levels + 1):
        defs[f"d{k}"] = {"allOf": [{"$ref": f"#/$defs/d{k - 1}"}, {"$ref": f"#/$defs/d{k - 1}"}]}
    return {"$defs": defs, "type": "object", "properties": {"t": {"$ref": f"#/$defs/d{levels}"}}}


def cases(port: int, canary: Path) -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
    def field(schema: dict[str, Any]) -> dict[str, Any]:
        return {"type": "object", "properties": {"t": schema}}

    return [
        (
            "uniqueItems, 4,000 mixed items",
            field({"type": "array", "uniqueItems": True}),
            {"t": _mixed(4000)},
        ),
        ("allOf/$ref doubling 2^16", _doubling(16), {"t": "x"}),
        ("allOf/$ref doubling 2^18", _doubling(18), {"t": "x"}),
        (
            "anyOf of 40 over 4,000 items",
            field({"type": "array", "items": {"anyOf": [{"const": f"v{i}"} for i in range(40)]}}),
            {"t": ["v39"] * 4000},
        ),
        (
            "anyOf of 40 over 8,000 items",
            field({"type": "array", "items": {"anyOf": [{"const": f"v{i}"} for i in range(40)]}}),
            {"t": ["v39"] * 8000},
        ),
        (
            "$ref http to a loopback listener",
            field({"$ref": f"http://127.0.0.1:{port}/v1/config#/x"}),
            {"t": "x"},
        ),
        ("$ref file:// to a local file", field({"$ref": f"{canary.as_uri()}#/x"}), {"t": "x"}),
    ]


def run_here() -> list[dict[str, Any]]:
    """Every case on the registry importable here: seconds, outcome, listener connections."""
    from harness.listener import Listener

    # The old layout first: a revision from before registry/ was split into floors has no
    # registry.calls, and the editable install would fill that gap with this tree's module.
    try:
        from registry.prepare import PrepareError, prepare_call  # type: ignore[import-not-found]
    except ImportError:
        from registry.calls.prepare import PrepareError, prepare_call

    listener = Listener("AWS_SECRET_KEY=leaked")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        canary = Path(tmp) / "canary.json"
        canary.write_text(json.dumps({"x": {"enum": ["FILE_SECRET=leaked"]}}))
        for name, schema, value in cases(listener.port, canary):
            action = {
                "endpoint": "https://shop.example/api/t",
                "method": "POST",
                "effect": "write",
                "input_schema": schema,
            }
            before, start = listener.connections, time.perf_counter()
            try:
                prepare_call(action, value)
                outcome = "planned"
            except PrepareError as exc:
                outcome = f"{exc.code}: {str(exc)[:70]}"
            except Exception as exc:  # the old code's 500
                outcome = f"crash: {type(exc).__name__}"
            rows.append(
                {
                    "case": name,
                    "seconds": time.perf_counter() - start,
                    "outcome": outcome,
                    "connections": listener.connections - before,
                }
            )
    return rows


def run_at(rev: str) -> list[dict[str, Any]]:
    with tempfile.TemporaryDirectory() as tmp:
        archive = Path(tmp) / "src.tar"
        subprocess.run(["git", "-C", str(ROOT), "archive", "-o", str(archive), rev], check=True)
        with tarfile.open(archive) as tar:
            tar.extractall(tmp, filter="data")
        env = {**os.environ, "PYTHONPATH": tmp}
        # This file, run from the exported tree's copy of the registry.
        done = subprocess.run(
            [sys.executable, str(Path(__file__)), "--json"],
            env=env,
            capture_output=True,
            text=True,
            check=True,
            cwd=tmp,
        )
        return json.loads(done.stdout)  # type: ignore[no-any-return]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", metavar="REV", help="also run the cases at git REV")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.json:  # the exported tree's registry first; harness/ from this tree
        sys.path.append(str(ROOT))
        print(json.dumps(run_here()))
        return
    sys.path.insert(0, str(ROOT))
    runs = ([("before", run_at(args.before))] if args.before else []) + [("after", run_here())]
    print("| case | code | seconds | connections | outcome |\n|---|---|---:|---:|---|")
    for label, rows in runs:
        for row in rows:
            print(
                f"| {row['case']} | {label} | {row['seconds']:.2f} | {row['connections']} | "
                f"{row['outcome']} |"
            )


if __name__ == "__main__":
    main()
