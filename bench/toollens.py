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


COLT_COMMIT = "bbec292c38cabe3fbae098f50cc31b2e9f7e8fca"  # as ../shared/benchmarks/toollens


def train_queries(colt: Path, size: int = 2_000) -> list[dict]:
    """A seeded ``size`` of ToolLens's official TRAIN split, read from a bare clone (or a
    checkout) of github.com/quchangle1/COLT: the requests tuning is done on, never the test
    split. Same format as queries.jsonl; corpus ids are the same as tools.jsonl's."""
    import random
    import subprocess

    def show(name: str) -> str:
        path = colt / name
        if path.is_file():
            return path.read_text(encoding="utf-8")
        out = subprocess.run(
            ["git", f"--git-dir={colt}", "show", f"{COLT_COMMIT}:{name}"],
            capture_output=True,
            text=True,
        )
        if out.returncode != 0:
            raise FileNotFoundError(f"no {name} in {colt} (pass --colt DIR, a COLT clone)")
        return out.stdout

    texts = {
        row["_id"]: row["text"]
        for row in map(json.loads, show("datasets/ToolLens/queries.jsonl").splitlines())
    }
    relevant: dict[str, list[str]] = {}
    for line in show("datasets/ToolLens/qrels/train.tsv").splitlines()[1:]:
        qid, tool, _ = line.split("\t")
        relevant.setdefault(qid, []).append(tool)
    queries = [{"qid": q, "query": texts[q], "relevant": r} for q, r in relevant.items()]
    return random.Random(11).sample(queries, min(size, len(queries)))
