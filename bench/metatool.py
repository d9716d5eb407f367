"""MetaTool, the held-out relevance benchmark (see bench.relevance).

Huang et al., *MetaTool Benchmark for Large Language Models: Deciding Whether to Use Tools
and Which to Use*, ICLR 2024; github.com/HowieHwong/MetaTool (MIT licence), read from a
checkout or a bare clone, never copied here:

    git clone https://github.com/HowieHwong/MetaTool ../MetaTool

199 tools (ChatGPT plugins, some merged into one tool by the authors), each a name and a
one-sentence description (``dataset/plugin_des.json``); 20,614 requests written for one tool
each (``dataset/data/all_clean_data.csv``; a request listed under two tools is kept once, with
both relevant) and 497 that need two or more (``dataset/data/multi_tool_query_golden.json``).
The requests are emotional, indirect or plain ("I'm so frustrated! I can't seem to find any
good online classes"), and written by an LLM per tool, as ToolLens's are: but by other
authors, for other tools, with another prompt.
"""

from __future__ import annotations

import csv
import io
import json
import subprocess
from pathlib import Path

NAME, DOMAIN = "MetaTool", "metatool.test"
DEFAULT_DATA = Path(__file__).resolve().parents[2] / "MetaTool"
COMMIT = "35e81bb7576826e980c80fed8f8c0a2b4a1e6fbb"  # 2024-03-22, the newest commit when fetched
FILES = (
    "dataset/plugin_des.json",
    "dataset/data/all_clean_data.csv",
    "dataset/data/multi_tool_query_golden.json",
)


def _read(root: Path, name: str) -> str:
    """A file of a checkout, or of COMMIT in a bare clone (a git dir without a work tree)."""
    if (root / name).is_file():
        return (root / name).read_text(encoding="utf-8")
    if (root / "HEAD").is_file() or (root / ".git").exists():
        shown = subprocess.run(
            ["git", f"--git-dir={root}", "show", f"{COMMIT}:{name}"], capture_output=True, text=True
        )
        if shown.returncode == 0:
            return shown.stdout
    raise FileNotFoundError(f"no {name} in {root} (pass --metatool DIR, a MetaTool checkout)")


def load(root: Path) -> tuple[list[dict], list[tuple[str, list[dict]]]]:
    """(tools, [(title, queries)]); FileNotFoundError when ``root`` is not MetaTool."""
    described, single, multi = (_read(root, name) for name in FILES)
    tools = [
        {"id": name, "name": name, "description": text, "provider": name}
        for name, text in json.loads(described).items()
    ]
    relevant: dict[str, list[str]] = {}
    for row in csv.DictReader(io.StringIO(single)):
        tools_of = relevant.setdefault(row["Query"].strip(), [])
        if row["Tool"] not in tools_of:
            tools_of.append(row["Tool"])
    singles = [
        {"qid": f"s{i}", "query": q, "relevant": r} for i, (q, r) in enumerate(relevant.items())
    ]
    multis = [
        {"qid": f"m{i}", "query": row["query"], "relevant": row["tool"]}
        for i, row in enumerate(json.loads(multi))
    ]
    return tools, [("single-tool requests", singles), ("multi-tool requests", multis)]


def plugin_info(root: Path) -> list[dict]:
    """The plugins' manifests as MetaTool recorded them (``dataset/plugin_info.json``): some
    of its tools were renamed in the plugin store since, their description_for_model kept."""
    return list(json.loads(_read(root, "dataset/plugin_info.json")))
