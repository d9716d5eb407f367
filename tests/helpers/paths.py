"""Where the tests find things, from one place, whatever folder a test module sits in."""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # the repository: tests/helpers/paths.py -> ../..
TESTS = ROOT / "tests"
FIXTURES = TESTS / "fixtures"
# The project's shared folder beside the clone (corpus, benchmarks); absent in a bare checkout,
# so tests that read it skip with a message saying where it was looked for.
SHARED = ROOT.parent / "shared"
CORPUS = Path(os.environ.get("ACTIONDEX_CORPUS_DIR") or SHARED / "corpus")
INVENTORY = CORPUS / "inventory.json"
