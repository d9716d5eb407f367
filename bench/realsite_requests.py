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
from bench.fusion_bench import metatool_split
from bench.realsite_web import Plugin

REQUESTS = Path(__file__).resolve().parent / "data" / "realsite_requests.jsonl"
# MetaTool's test sample (bench.relevance --sample 2000, the README's tables), and the training
# requests bench.learned_mix fits (2,000) and chooses (1,000) on
TEST_SAMPLE, FITTED = 2000, 3000


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


def metatool_sets(
    plugins: list[Plugin], root: Path, verbose: bool, train: bool = False
) -> list[tuple[str, list[dict]]]:
    """MetaTool's requests whose tools all map to store sites, as (title, requests) by set;
    ``train``: only the single-tool requests outside bench.relevance's test sample and the ones
    bench.learned_mix fits and chooses on (FITTED)."""
    sites = metatool_sites(plugins, root)
    known = [name for name, hosts in sites.items() if hosts]
    print(f"MetaTool: {len(known)} of {len(sites)} tools map to store sites")
    if verbose:
        print("  unmapped: " + ", ".join(sorted(n for n, h in sites.items() if not h)))
    _, sets = metatool.load(root)
    if train:
        single = sets[0][1]
        fitted, test = metatool_split(single, TEST_SAMPLE, FITTED)
        held = {q["qid"] for q in fitted + test}
        sets = [("single-tool training requests", [q for q in single if q["qid"] not in held])]
    return [(f"MetaTool {title} on real sites", mapped(queries, sites)) for title, queries in sets]


def mapped(queries: list[dict], sites: dict[str, set[str]]) -> list[dict]:
    """MetaTool's ``queries`` whose tools all map to sites (``sites``: metatool_sites), each
    with those sites as the relevant ones."""
    return [
        {"query": q["query"], "relevant": sorted(set().union(*(sites[t] for t in q["relevant"])))}
        for q in queries
        if all(sites.get(t) for t in q["relevant"])
    ]


class BySite(dict[tuple[str, str], str]):
    """What a real-site request wants of an action (site, name): its site, whichever action
    (bench.learned_mix labels candidates by it)."""

    def get(self, key: tuple[str, str], default: object = None) -> str:  # type: ignore[override]
        return key[0]


def hand_written(path: Path, hosts: set[str]) -> list[dict]:
    queries = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    unknown = {h for q in queries for h in q["relevant"]} - hosts
    if unknown:
        raise SystemExit(f"{path}: relevant hosts not in the store: {sorted(unknown)}")
    return queries
