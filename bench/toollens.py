"""ToolLens, read in place from ../shared/benchmarks/toollens (not in the repo: its licence is
unspecified); see bench.relevance. 464 RapidAPI endpoints, 1,877 requests written to need
one to three of them (COLT, Qu et al., CIKM 2024; the folder's README has the conversion)."""

from __future__ import annotations

import json
from pathlib import Path

NAME, DOMAIN = "ToolLens", "toollens.test"
DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "benchmarks" / "toollens"


def load(data: Path) -> tuple[list[dict], list[tuple[str, list[dict]]]]:
    """(tools, [(title, queries)]); FileNotFoundError when ``data`` lacks the files."""
    if not (data / "tools.jsonl").is_file():
        raise FileNotFoundError(f"no tools.jsonl in {data} (pass --toollens DIR)")
    read = lambda name: [json.loads(line) for line in (data / name).open()]  # noqa: E731
    return read("tools.jsonl"), [("test split", read("queries.jsonl"))]
