"""The tiers hold: a test that starts a process cannot hide in the fast tier."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.helpers.paths import ROOT


def _run_fast(folder: Path, body: str) -> subprocess.CompletedProcess[str]:
    case = ROOT / "tests" / f"test_zz_tier_probe_{folder.name}.py"
    case.write_text(body)
    try:
        return subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                "-m",
                "fast",
                "-q",
                "-p",
                "no:cacheprovider",
                str(case),
            ],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
        )
    finally:
        case.unlink()


def test_a_fast_test_that_starts_a_process_fails_and_says_where_its_rule_goes(
    tmp_path: Path,
) -> None:
    proc = _run_fast(
        tmp_path,
        "import subprocess, sys\n\n\ndef test_spawns():\n"
        "    subprocess.run([sys.executable, '-c', 'pass'], check=True)\n\n\n"
        "def test_quiet():\n    assert 1 + 1 == 2\n",
    )
    assert proc.returncode == 1, proc.stdout
    assert "started a process (subprocess.Popen) in its call under -m fast" in proc.stdout
    assert "PROCESS_FILES" in proc.stdout and "1 failed, 1 passed" in proc.stdout
