"""`actiondex mcp --print-config` prints a config a desktop app can start as it is (its own
PATH, its own working directory), and a new or empty store is served with a warning on stderr
(never on stdout: stdout is the wire)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters

from harness.procs import AX, env_for
from tests.helpers import mcp as checks
from tests.helpers.live import ingest_shops

pytestmark = pytest.mark.timeout(180)


def test_the_printed_config_starts_the_server_from_anywhere(tmp_path: Path) -> None:
    ingest_shops(tmp_path / "data")
    env = env_for(tmp_path / "elsewhere")
    env.pop("ACTIONDEX_DATA_DIR")
    proc = subprocess.run(
        [*AX, "--data-dir", "data", "mcp", "--print-config"],
        cwd=tmp_path,
        env=env,
        text=True,
        capture_output=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    server = json.loads(proc.stdout)["mcpServers"]["actiondex"]
    assert Path(server["command"]).is_absolute()
    assert server["args"] == ["--data-dir", str((tmp_path / "data").resolve()), "mcp"]
    # as a desktop app starts it: no virtualenv on PATH, another working directory
    params = StdioServerParameters(
        command=server["command"],
        args=server["args"],
        env={"PATH": "/usr/bin:/bin", **server.get("env", {})},
        cwd="/",
    )

    async def body() -> None:
        async with Client(params) as client:
            found = await checks.found(client, query="printer paper")
            assert {r["site"] for r in found} == {"inkwell.example", "paperworks.example"}

    anyio.run(body)


@pytest.mark.parametrize("new", [True, False])
def test_a_new_or_empty_store_is_served_with_a_warning_on_stderr(tmp_path: Path, new: bool) -> None:
    data_dir = tmp_path / "mistyped"
    if not new:
        assert subprocess.run([*AX, "index"], env=env_for(data_dir)).returncode == 0
    proc = subprocess.run(
        [*AX, "mcp"], env=env_for(data_dir), input="", text=True, capture_output=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ""
    warning = next(line for line in proc.stderr.splitlines() if "warning" in line)
    assert str(data_dir) in warning and "holds no actions" in warning
    assert ("just created" in warning) is new
    assert "--print-config" in warning
