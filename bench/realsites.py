"""Real-site relevance: the plugin store's sites crawled from a loopback web, asked over GET /find.

    .venv/bin/python -m bench.realsites [--metatool DIR] [--requests FILE] [--sample N]
                                        [--train] [--data DIR] [--verbose]

Every site of ../shared/corpus/openai-plugin-store is served under its real name
(bench.realsite_web), crawled by ``actiondex crawl`` into a fresh SQLite store (the whole
pipeline: robots, well-known paths, the OpenAPI api.url names, normalise, store, index), and
``actiondex serve`` answers GET /find over HTTP (bench.http_find). Two sets of requests:

* MetaTool's, for the tools that are in the store (their sites are the relevant ones), and
* hand-written agent requests (bench/data/realsite_requests.jsonl), everyday requests with the
  obvious site(s); measurement only, never tuned on (bench.realsite_requests says how both are
  made).

``--train`` keeps to MetaTool's training requests that nothing was fitted on (outside
bench.relevance's seeded 2,000-request test sample and bench.learned_mix's fit and check
requests) and leaves the hand-written ones out: the set to choose a setting on by real sites.

Scored over sites, each at its first place in the ranking: Success@5, NDCG@10 and MRR@10, with
HTTP times and the requests refused (4xx, scored as misses). The baseline row, in the same run:
rank-bm25 over each site's manifest texts (name_for_human, description_for_model and _for_human,
and its OpenAPI operations' ids, summaries and descriptions where the store has the OpenAPI),
tokenised and set as bench.relevance's fair baseline (k1 0.9, b 0.4).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from rank_bm25 import BM25Okapi

from bench import metatool
from bench.http_find import Finder, serving
from bench.plain_bm25 import tokens
from bench.realsite_requests import REQUESTS, hand_written, metatool_sets
from bench.realsite_web import STORE, Plugin, RealWeb, load_plugins
from bench.relevance import sampled
from harness.procs import AX, env_for

K = 10
ROOT = Path(__file__).resolve().parent.parent
CRAWL_TIMEOUT_S = 3600
MISSES_LISTED_UP_TO = 200  # requests in a set: --verbose lists /find's misses in smaller ones


def crawl(web: RealWeb, data: Path, hosts: list[str]) -> dict[str, Any]:
    """``actiondex crawl --json`` of ``hosts`` into the SQLite store in ``data``."""
    targets = data / "targets.txt"
    targets.write_text("".join(f"https://{host}/\n" for host in hosts))
    flags = [a for entry in web.resolve_args() for a in ("--resolve", entry)]
    env = env_for(data, SSL_CERT_FILE=str(web.ca_file))
    cmd = [*AX, "crawl", "--json", "--delay", "0", "--file", str(targets), *flags]
    started = time.monotonic()
    proc = subprocess.run(
        cmd, env=env, capture_output=True, text=True, cwd=ROOT, timeout=CRAWL_TIMEOUT_S
    )
    if not proc.stdout.strip():
        raise SystemExit(f"crawl failed: {proc.stderr[-3000:]}")
    summary: dict[str, Any] = json.loads(proc.stdout)
    summary["wall"] = time.monotonic() - started
    return summary


def operation_texts(spec: bytes | None) -> list[str]:
    """Each operation's id, summary and description, when ``spec`` parses as an OpenAPI."""
    try:
        data = yaml.safe_load(spec) if spec else None
    except yaml.YAMLError:
        return []
    paths = data.get("paths") if isinstance(data, dict) else None
    texts = []
    for item in (paths or {}).values():
        for op in (item or {}).values() if isinstance(item, dict) else ():
            if isinstance(op, dict):
                texts += [str(op.get(k) or "") for k in ("operationId", "summary", "description")]
    return texts


def site_text(plugin: Plugin) -> str:
    m = plugin.manifest
    fields = [
        m.get("name_for_human"),
        m.get("description_for_model"),
        m.get("description_for_human"),
    ]
    return " ".join([str(f or "") for f in fields] + operation_texts(plugin.spec))


def bm25_sites(plugins: list[Plugin]) -> Callable[[str], list[str]]:
    bm25 = BM25Okapi([tokens(site_text(p)) for p in plugins], k1=0.9, b=0.4)
    hosts = [p.host for p in plugins]
    return lambda q: bm25.get_top_n(tokens(q), hosts, n=K)


@dataclass
class Scores:
    success5: float
    ndcg10: float
    mrr10: float
    p50_ms: float
    p99_ms: float


def site_metrics(ranked: list[str], relevant: set[str]) -> tuple[float, float, float]:
    """Success@5, NDCG@10 and reciprocal rank within 10, binary relevance over sites."""
    dcg = sum(1 / math.log2(i + 2) for i, s in enumerate(ranked[:K]) if s in relevant)
    ideal = sum(1 / math.log2(i + 2) for i in range(min(len(relevant), K)))
    rr = next((1 / (i + 1) for i, s in enumerate(ranked[:K]) if s in relevant), 0.0)
    return float(bool(relevant & set(ranked[:5]))), dcg / ideal, rr


def score(
    rank: Callable[[str], list[str]],
    queries: list[dict],
    misses: list[tuple[str, list[str]]] | None = None,
) -> Scores:
    """The means over ``queries``; each request with no relevant site in the first 5 goes
    to ``misses`` (with the first 3 sites ranked) when it is given."""
    rows, times = [], []
    for q in queries:
        start = time.perf_counter()
        ranked = rank(q["query"])
        times.append((time.perf_counter() - start) * 1000)
        rows.append(site_metrics(ranked, set(q["relevant"])))
        if misses is not None and not rows[-1][0]:
            misses.append((q["query"], ranked[:3]))
    means = [statistics.fmean(r[i] for r in rows) for i in range(3)]
    return Scores(*means, *percentiles(times))


def percentiles(times: list[float]) -> tuple[float, float]:
    ordered = sorted(times)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


# GET /find's settings, each served in turn: the site stage by meaning off (main before it, the
# baseline) and on (the default)
SERVED = (
    ("GET /find, site stage off (before)", {"ACTIONDEX_MEANING_SITES": "false"}),
    ("GET /find, site stage on (default)", {}),
)


def print_set(
    title: str,
    queries: list[dict],
    served: list[tuple[str, Scores, int]],
    baseline: Callable[[str], list[str]],
) -> None:
    print(f"\n{title}: {len(queries)} requests")
    print(
        f"{'engine':<40}{'Success@5':>10}{'NDCG@10':>9}{'MRR@10':>9}{'p50 ms':>8}"
        f"{'p99 ms':>8}{'refused':>9}"
    )
    rows = [(label, s, str(n)) for label, s, n in served]
    rows.append(("rank-bm25 (manifest text, k1 .9 b .4)", score(baseline, queries), "-"))
    for label, s, n in rows:
        print(
            f"{label:<40}{s.success5:>10.3f}{s.ndcg10:>9.3f}{s.mrr10:>9.3f}"
            f"{s.p50_ms:>8.2f}{s.p99_ms:>8.2f}{n:>9}",
            flush=True,
        )


def run(
    plugins: list[Plugin], sets: list[tuple[str, list[dict]]], data: Path, verbose: bool = False
) -> None:
    """Crawl ``plugins`` into ``data`` (unless it holds a store already), serve, score."""
    if (data / "actiondex.db").exists():
        print(f"store in {data} reused, not crawled again")
    else:
        with RealWeb(plugins, data / "certs") as web:
            summary = crawl(web, data, [p.host for p in plugins])
        with_actions = sum(1 for row in summary["per_site"] if row["actions"])
        print(
            f"crawl: {len(plugins)} sites, {summary['requests']} requests, "
            f"{summary['actions']} actions, {with_actions} sites with actions, "
            f"{summary['wall']:.0f} s"
        )
    print(f"load average {os.getloadavg()[0]:.1f}")
    baseline = bm25_sites(plugins)
    served: dict[str, list[tuple[str, Scores, int]]] = {title: [] for title, _ in sets}
    for label, env in SERVED:
        with serving(data, **env) as base:
            finder = Finder(base)
            print(f"{label}: {finder.mode}")
            for title, queries in sets:
                if not queries:
                    continue
                refused, misses = finder.refused, []
                scores = score(finder.sites, queries, misses)
                served[title].append((label, scores, finder.refused - refused))
                if verbose and len(queries) <= MISSES_LISTED_UP_TO:
                    for query, ranked in misses:
                        print(f"  {label} missed: {query[:90]!r} -> {', '.join(ranked) or '-'}")
            finder.close()
    for title, queries in sets:
        if queries:
            print_set(title, queries, served[title], baseline)
        else:
            print(f"\n{title}: no requests (none has all its tools in the store)")
    print(f"load average {os.getloadavg()[0]:.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--store",
        type=Path,
        default=STORE,
        metavar="DIR",
        help="the openai-plugin-store corpus folder (default: %(default)s)",
    )
    parser.add_argument(
        "--metatool",
        type=Path,
        default=metatool.DEFAULT_DATA,
        metavar="DIR",
        help="checkout or bare clone of HowieHwong/MetaTool (default: %(default)s)",
    )
    parser.add_argument(
        "--requests",
        type=Path,
        default=REQUESTS,
        metavar="FILE",
        help="hand-written requests, JSON lines (default: %(default)s)",
    )
    parser.add_argument(
        "--sample",
        type=int,
        default=0,
        metavar="N",
        help="score a seeded random N of MetaTool's requests (default: all)",
    )
    parser.add_argument(
        "--train",
        action="store_true",
        help="MetaTool's training requests nothing was fitted on (outside its test sample and "
        "bench.learned_mix's), no hand-written ones: to choose on",
    )
    parser.add_argument(
        "--data",
        type=Path,
        metavar="DIR",
        help="crawl into DIR and keep it; a DIR with a store is reused "
        "(default: a fresh temporary folder)",
    )
    parser.add_argument(
        "--verbose",
        action="store_true",
        help="list the unmapped tools, and /find's misses in small sets",
    )
    args = parser.parse_args()
    try:
        plugins = load_plugins(args.store)
    except FileNotFoundError as exc:
        raise SystemExit(f"real sites: skipped, no plugin store ({exc})") from None
    sets = []
    try:
        sets = [
            (t, sampled(q, args.sample))
            for t, q in metatool_sets(plugins, args.metatool, args.verbose, args.train)
        ]
    except FileNotFoundError as exc:
        print(f"MetaTool on real sites: skipped, {exc}")
    if not args.train:
        hosts = {p.host for p in plugins}
        sets.append(("hand-written agent requests", hand_written(args.requests, hosts)))
    with tempfile.TemporaryDirectory() as tmp:
        data = args.data or Path(tmp)
        data.mkdir(parents=True, exist_ok=True)
        run(plugins, sets, data, args.verbose)


if __name__ == "__main__":
    main()
