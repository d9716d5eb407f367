"""The request sets of bench.realsites, over the plugin store's sites (bench.realsite_web).

* MetaTool's (bench.metatool), for the tools that are in the store: a tool maps to the sites
  whose plugin has its name (name_for_model or name_for_human, lower case, letters and digits
  only) or, failing that, the description_for_model MetaTool recorded for it (a few plugins
  were renamed in the store since). A request counts when all its tools map; their sites are
  the relevant ones. The 47 tools MetaTool's authors merged from several plugins
  ("FinanceTool") map to none.
* Hand-written agent requests (``REQUESTS``, JSON lines ``{"query", "relevant": [hosts]}``):
  everyday requests an agent would make, short and long, each with every site among the
  store's that plainly does it. They mirror a hidden set of the same kind; measurement only.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from bench import metatool
from bench.realsite_web import Plugin

REQUESTS = Path(__file__).resolve().parent / "data" / "realsite_requests.jsonl"


def _norm(name: Any) -> str:
    return re.sub(r"[^a-z0-9]", "", str(name or "").lower())


def metatool_sites(plugins: list[Plugin], root: Path) -> dict[str, set[str]]:
    """MetaTool tool name -> its sites in the store (see the module's docstring); every tool,
    an empty set for one that is not in the store."""
    by_name: dict[str, set[str]] = {}
    by_description: dict[str, set[str]] = {}
    for plugin in plugins:
        for key in (plugin.manifest.get("name_for_model"), plugin.manifest.get("name_for_human")):
            by_name.setdefault(_norm(key), set()).add(plugin.host)
        by_description.setdefault(_norm(plugin.manifest.get("description_for_model")), set()).add(
            plugin.host
        )
    recorded = {
        _norm(p.get("name_for_model")): _norm(p.get("description_for_model"))
        for p in metatool.plugin_info(root)
    }
    tools, _ = metatool.load(root)
    return {
        t["name"]: by_name.get(_norm(t["name"]))
        or by_description.get(recorded.get(_norm(t["name"])) or "-", set())
        for t in tools
    }


def metatool_sets(plugins: list[Plugin], root: Path, verbose: bool) -> list[tuple[str, list[dict]]]:
    sites = metatool_sites(plugins, root)
    mapped = [name for name, hosts in sites.items() if hosts]
    print(f"MetaTool: {len(mapped)} of {len(sites)} tools map to store sites")
    if verbose:
        print("  unmapped: " + ", ".join(sorted(n for n, h in sites.items() if not h)))
    _, sets = metatool.load(root)
    out = []
    for title, queries in sets:
        kept = [
            {
                "query": q["query"],
                "relevant": sorted(set().union(*(sites[t] for t in q["relevant"]))),
            }
            for q in queries
            if all(sites.get(t) for t in q["relevant"])
        ]
        out.append((f"MetaTool {title} on real sites", kept))
    return out


def hand_written(path: Path, hosts: set[str]) -> list[dict]:
    queries = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    unknown = {h for q in queries for h in q["relevant"]} - hosts
    if unknown:
        raise SystemExit(f"{path}: relevant hosts not in the store: {sorted(unknown)}")
    return queries
