"""Foundation benchmark: store ingest, index build and /find latency against rank-bm25.

    .venv/bin/python -m bench.find_bench [--actions 10000] [--queries 300]

Runs the real path (promote_site into SQLite, ActionIndex sync, registry.search.find) on a
seeded synthetic corpus, and rank-bm25's BM25Okapi over name + description on the same corpus
and queries as the baseline row, in the same process. Prints a table; asserts nothing.
"""

from __future__ import annotations

import argparse
import re
import statistics
import tempfile
import time
from pathlib import Path

from rank_bm25 import BM25Okapi

from bench.synthetic import manifests, queries
from registry.config import Settings
from registry.db import make_engine, migrate, transaction
from registry.index import ActionIndex
from registry.schemas import RawDocument
from registry.search import find
from registry.service import NormalisedDocument, SiteUpdate, content_hash, promote_site


def ingest(settings: Settings, n_actions: int) -> tuple[float, list[str]]:
    engine = make_engine(settings)
    migrate(engine)
    texts: list[str] = []
    start = time.perf_counter()
    for m in manifests(n_actions):
        body = m.model_dump_json().encode()
        raw = RawDocument(url=m.url, body=body, content_type="application/json")
        update = SiteUpdate(m.site, f"https://{m.site}",
                            [NormalisedDocument(raw, m, content_hash(body))])
        with transaction(engine) as session:
            promote_site(session, update, max_actions=10_000)
        texts += [f"{a.name.replace('_', ' ')} {a.description}" for a in m.actions]
    return time.perf_counter() - start, texts


def percentiles(samples_ms: list[float]) -> tuple[float, float]:
    ordered = sorted(samples_ms)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


def time_queries(fn, qs: list[str]) -> list[float]:  # type: ignore[no-untyped-def]
    out = []
    for q in qs:
        t = time.perf_counter()
        fn(q)
        out.append((time.perf_counter() - t) * 1000)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--actions", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=300)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(data_dir=Path(tmp))
        ingest_s, texts = ingest(settings, args.actions)
        engine = make_engine(settings)
        start = time.perf_counter()
        with transaction(engine) as session:
            index = ActionIndex.rebuild(settings.index_path, session)
        build_s = time.perf_counter() - start
        index = ActionIndex.open(settings.index_path)
        qs = queries(args.queries)
        ours = time_queries(lambda q: find(index, q, limit=10), qs)
        tokenised = [re.findall(r"\w+", t.lower()) for t in texts]
        start = time.perf_counter()
        bm25 = BM25Okapi(tokenised)
        base_build_s = time.perf_counter() - start
        base = time_queries(lambda q: bm25.get_top_n(re.findall(r"\w+", q.lower()),
                                                     texts, n=10), qs[:50])
    n = args.actions
    p50, p99 = percentiles(ours)
    b50, b99 = percentiles(base)
    print(f"\n{n:,} actions, {len(qs)} queries (baseline: first 50), same process and machine")
    print(f"{'engine':<28}{'ingest act/s':>14}{'build act/s':>14}{'p50 ms':>10}{'p99 ms':>10}")
    print(f"{'actiondex (tantivy)':<28}{n / ingest_s:>14,.0f}{n / build_s:>14,.0f}"
          f"{p50:>10.2f}{p99:>10.2f}")
    print(f"{'rank-bm25 BM25Okapi':<28}{'-':>14}{n / base_build_s:>14,.0f}"
          f"{b50:>10.2f}{b99:>10.2f}")
    print(f"p50 speed-up over the baseline: {b50 / p50:,.0f}x")


if __name__ == "__main__":
    main()
