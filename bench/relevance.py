"""Relevance: tool-retrieval benchmarks through GET /find's code, against rank-bm25.

    .venv/bin/python -m bench.relevance [--toollens DIR] [--metatool DIR] [--sample N] [--http]
                                        [--colt DIR]

Two benchmarks from different sources, neither shipped with the repo:

* ToolLens (bench.toollens): RapidAPI endpoints and multi-part requests; read in place from
  ../shared/benchmarks/toollens. The one relevance work is measured on.
* MetaTool (bench.metatool): ChatGPT plugins and requests written for them; the held-out set.
  Read from a checkout (or bare clone) of github.com/HowieHwong/MetaTool; nothing here was
  tuned on it, so a gain that comes from fitting ToolLens shows as none here.

Each benchmark's tools become sites with agent-actions/0.1 manifests (one site per provider)
written to a temp folder; the folder goes through ``ingest_paths`` (normalise + promote_site),
the index is rebuilt from the store, and every query runs through ``registry.search.find``
exactly as GET /find calls it (no benchmark-specific switch). With ``--http`` a real ``actiondex
serve`` over the same store answers GET /find too (bench.http_find), the row above the in-process
one: what an agent gets, a request GET /find refuses (4xx) scored as a miss and counted.
rank-bm25's BM25Okapi over name + description is the baseline row, in the same run; a second
baseline row indexes what a fair plain BM25 would (name, provider, description, parameter names
and descriptions; camelCase split, common words dropped), like the sanity check in ToolLens's
README.

A tool is ``{"id", "name", "description", "provider", "parameters", "category"}`` and a query
``{"qid", "query", "relevant": [tool ids]}``, the neutral format of ToolLens's conversion.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import math
import os
import random
import re
import statistics
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from actiondex.ingest import ingest_paths
from bench import metatool, toollens
from bench.http_find import Finder, serving
from bench.plain_bm25 import baseline
from registry.config import Settings
from registry.db.engine import make_engine, migrate, transaction
from registry.index import ActionIndex
from registry.search import FindQuery, find

K = 10


@dataclass
class QuerySet:
    title: str
    queries: list[dict]


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:50] or "x"


def write_manifests(tools: list[dict], folder: Path, domain: str) -> dict[tuple[str, str], str]:
    """One site per provider; returns (host, action name) -> tool id."""
    by_provider: dict[str, list[dict]] = defaultdict(list)
    for tool in tools:
        by_provider[tool["provider"]].append(tool)
    ids: dict[tuple[str, str], str] = {}
    for provider, group in by_provider.items():
        host = f"{_slug(provider)}.{domain}"
        actions = []
        for tool in group:
            name = re.sub(r"[^A-Za-z0-9]+", "_", tool["name"]).strip("_")[:56] or "tool"
            while (host, name) in ids:
                name += "_2"
            ids[(host, name)] = tool["id"]
            action = {"name": name, "title": tool["name"], "description": tool["description"]}
            if "parameters" in tool:
                action["input"] = tool["parameters"]
            actions.append(action)
        site = {"name": provider, "url": f"https://{host}"}
        if group[0].get("category"):
            site["description"] = f"{provider}: {group[0]['category']} API"
        manifest = {"schema": "agent-actions/0.1", "actions": actions, "site": site}
        site_dir = folder / host
        site_dir.mkdir()
        (site_dir / "agent-actions.json").write_text(json.dumps(manifest))
    return ids


def metrics(ranked: Sequence[str], relevant: set[str]) -> tuple[float, float, float]:
    """NDCG@10, Recall@5 and reciprocal rank (within the top 10), binary relevance."""
    dcg = sum(1 / math.log2(i + 2) for i, t in enumerate(ranked[:K]) if t in relevant)
    ideal = sum(1 / math.log2(i + 2) for i in range(min(len(relevant), K)))
    recall = len(relevant & set(ranked[:5])) / len(relevant)
    rr = next((1 / (i + 1) for i, t in enumerate(ranked[:K]) if t in relevant), 0.0)
    return dcg / ideal, recall, rr


def evaluate(rank: Callable[[str], list[str]], queries: list[dict]) -> list[float]:
    """Mean NDCG@10, Recall@5 and MRR@10 of ``rank`` over ``queries``, then its p50 and p99 ms."""
    scores, times = [], []
    for q in queries:
        start = time.perf_counter()
        ranked = rank(q["query"])
        times.append((time.perf_counter() - start) * 1000)
        scores.append(metrics(ranked, set(q["relevant"])))
    times.sort()
    return [statistics.fmean(s[i] for s in scores) for i in range(3)] + [
        statistics.median(times),
        times[int(len(times) * 0.99)],
    ]


def ingest(tools: list[dict], tmp: Path, domain: str) -> tuple[Settings, dict]:
    """The tools as manifests, ingested into a store in ``tmp``/data and indexed; returns
    its settings and (host, action name) -> tool id."""
    folder = tmp / "manifests"
    folder.mkdir()
    ids = write_manifests(tools, folder, domain)
    settings = Settings(data_dir=tmp / "data", database_url="")
    engine = make_engine(settings)
    migrate(engine)
    ingest_paths(engine, [folder], None)
    with transaction(engine) as session:
        ActionIndex.rebuild(settings.index_path, session)
    engine.dispose()
    return settings, ids


def _opened(settings: Settings, vectors: bool, sites: bool) -> ActionIndex:
    index = ActionIndex.open(settings.index_path, vectors, sites)
    if vectors or sites:
        engine = make_engine(settings)
        with transaction(engine) as session:
            index.follow_vectors(session)
        engine.dispose()
    return index


def ours(
    settings: Settings, ids: dict, vectors: bool = False, sites: bool = False
) -> Callable[[str], list[str]]:
    """find() in-process; ``vectors``: with the first stage by meaning (the vector index, as
    `actiondex serve` keeps it with ACTIONDEX_MEANING_FIRST_STAGE on), ``sites``: with the
    site stage (the sites' vectors only, serve's default), else BM25 candidates re-ranked by
    meaning only."""
    index = _opened(settings, vectors, sites)
    # A validated query with its text swapped in (model_copy does not validate), so that
    # a request over GET /find's bound (MAX_QUERY_CHARS; 3 of MetaTool's) is still measured
    # in-process; over HTTP it is refused and counted. Not model_construct: it inspects
    # every default factory's signature, 400 us a query.
    template = FindQuery(q="x", limit=K)
    return lambda q: [
        ids.get((r.site, r.name), "?")
        for r in find(index, template.model_copy(update={"q": q})).results
    ]


def ours_by_site(settings: Settings) -> Callable[[str], list[str]]:
    """find() in-process as GET /find?group=site answers with serve's defaults (the site
    stage on): the sites, best first."""
    index = _opened(settings, False, True)
    template = FindQuery(q="x", limit=K, group="site")
    return lambda q: [s.site for s in find(index, template.model_copy(update={"q": q})).sites or []]


def over_http(finder: Finder, ids: dict) -> Callable[[str], list[str]]:
    """GET /find as an agent asks it; a refused request (4xx) ranks nothing."""
    return lambda q: [ids.get((r["site"], r["name"]), "?") for r in finder.results(q, K) or []]


def run(name: str, domain: str, tools: list[dict], sets: list[QuerySet], http: bool) -> None:
    engines = [
        ("rank-bm25 BM25Okapi (name+desc)", baseline(tools, n=K)),
        ("rank-bm25 (all text, k1 .9 b .4)", baseline(tools, full=True, n=K)),
    ]
    with tempfile.TemporaryDirectory() as tmp, contextlib.ExitStack() as stack:
        settings, ids = ingest(tools, Path(tmp), domain)
        engines.insert(0, ("find() + first stage by meaning", ours(settings, ids, True)))
        engines.insert(0, ("find() BM25 + re-rank (before)", ours(settings, ids)))
        engines.insert(0, ("find() + site stage (default)", ours(settings, ids, sites=True)))
        finder = None
        if http:
            # Two servers over one store, one after the other's first sync: the site stage off
            # (GET /find before it) and on (the default).
            before = Finder(
                stack.enter_context(serving(settings.data_dir, ACTIONDEX_MEANING_SITES="false"))
            )
            finder = Finder(stack.enter_context(serving(settings.data_dir)))
            stack.callback(before.close)
            stack.callback(finder.close)
            engines.insert(0, ("GET /find, site stage off (before)", over_http(before, ids)))
            engines.insert(0, ("GET /find (HTTP), site stage on", over_http(finder, ids)))
        for query_set in sets:
            print(
                f"\n{name} {query_set.title}: {len(tools)} tools, {len(query_set.queries)} queries"
                f" (load average {os.getloadavg()[0]:.1f})",
                flush=True,
            )
            print(
                f"{'engine':<34}{'NDCG@10':>9}{'Recall@5':>10}{'MRR@10':>9}{'p50 ms':>9}"
                f"{'refused':>9}"
            )
            for label, rank in engines:
                refused = finder.refused if finder else 0
                ndcg, recall, mrr, p50, _ = evaluate(rank, query_set.queries)
                shown = f"{finder.refused - refused}" if finder and "HTTP" in label else "-"
                print(
                    f"{label:<34}{ndcg:>9.3f}{recall:>10.3f}{mrr:>9.3f}{p50:>9.2f}{shown:>9}",
                    flush=True,
                )


def sampled(queries: list[dict], size: int) -> list[dict]:
    """A seeded random ``size`` of ``queries`` in their own order (all when ``size`` is 0 or
    not smaller): every run and every branch scores the same requests."""
    if not size or size >= len(queries):
        return queries
    keep = set(random.Random(13).sample(range(len(queries)), size))
    return [q for i, q in enumerate(queries) if i in keep]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--toollens",
        type=Path,
        default=toollens.DEFAULT_DATA,
        metavar="DIR",
        help="folder with tools.jsonl and queries.jsonl (default: %(default)s)",
    )
    parser.add_argument(
        "--metatool",
        type=Path,
        default=metatool.DEFAULT_DATA,
        metavar="DIR",
        help="checkout or bare clone of HowieHwong/MetaTool (default: %(default)s)",
    )
    parser.add_argument(
        "--http",
        action="store_true",
        help="also ask a real `actiondex serve` over HTTP (GET /find), the "
        "row the issue's goals are measured on",
    )
    parser.add_argument(
        "--sample",
        type=int,
        default=0,
        metavar="N",
        help="score a seeded random N requests of each set (default: all); "
        "for quick comparisons, the full sets for the table",
    )
    parser.add_argument(
        "--colt",
        type=Path,
        metavar="DIR",
        help="bare clone of quchangle1/COLT: score ToolLens's TRAIN split (a seeded 2,000; "
        "what tuning uses) instead of its test split, and skip MetaTool",
    )
    args = parser.parse_args()
    logging.getLogger("alembic").setLevel(logging.WARNING)  # each store's migrations: noise here
    ran = 0
    for module, path in ((toollens, args.toollens), (metatool, args.metatool)):
        try:
            tools, sets = module.load(path)
            if args.colt:
                if module is not toollens:
                    continue
                sets = [("train split (2,000 of it)", toollens.train_queries(args.colt))]
        except FileNotFoundError as exc:
            print(f"{module.NAME}: skipped, {exc}")
            continue
        run(
            module.NAME,
            module.DOMAIN,
            tools,
            [QuerySet(title, sampled(queries, args.sample)) for title, queries in sets],
            args.http,
        )
        ran += 1
    if not ran:
        raise SystemExit("no benchmark data found (see --help)")


if __name__ == "__main__":
    main()
