"""What the ARD Registry API costs over a synthetic store: Search against /find's own search,
Retrieve, List (first page, a deep page, a filter applied per item) and Explore (with text,
and over the whole store), in-process on SQLite. Prints a table.

    .venv/bin/python -m bench.ard_bench [--actions 100000] [--cache DIR]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.find_bench import cache_file, percentiles, stored
from bench.synthetic import queries
from registry.ard import explore, listing, match, service
from registry.ard.bodies import ExploreRequest
from registry.config import Settings
from registry.db.engine import make_engine, migrate, transaction
from registry.index import ActionIndex
from registry.search import FindQuery, page_json, search

BASE = "http://registry.example/"
FACETS = {
    "resultType": {"facets": [{"field": f} for f in ("type", "publisher", "effect", "format")]}
}


def timed(fn: Callable[[Any], Any], inputs: list[Any]) -> tuple[float, float]:
    samples = []
    for value in inputs:
        start = time.perf_counter()
        fn(value)
        samples.append((time.perf_counter() - start) * 1000)
    return percentiles(samples)


def run(n: int, cache: Path | None) -> list[str]:
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{cache_file(cache, n).resolve()}" if cache else ""
        settings = Settings(data_dir=Path(tmp), database_url=url)
        stored(settings, n, cache)
        engine = make_engine(settings)
        migrate(engine)  # a cached store may predate a migration (0005: documents.format)
        with transaction(engine) as session:
            ActionIndex.rebuild(settings.index_path, session)
        index = ActionIndex.open(settings.index_path)
        qs = queries(50)
        with transaction(engine) as session:
            ids = [
                e["identifier"]
                for e in listing.list_entries(session, None, None, 100, None, BASE)["items"]
            ]
            rows = {
                "/find (search)": timed(lambda q: page_json(search(index, FindQuery(q=q))), qs),
                "POST /ard/search": timed(
                    lambda q: service.search_entries(
                        index, session, q, [], 10, None, BASE, BASE + "ard"
                    ),
                    qs,
                ),
                "  filter type (after)": timed(
                    lambda q: service.search_entries(
                        index,
                        session,
                        q,
                        match.clauses({"type": "x/y"}),
                        10,
                        None,
                        BASE,
                        BASE + "ard",
                    ),
                    qs[:10],
                ),
                "GET /ard/agents/{id}": timed(lambda i: service.retrieve(session, i, BASE), ids),
                "GET /ard/agents": timed(
                    lambda _: listing.list_entries(session, None, None, 20, None, BASE), range(20)
                ),
                "  pageToken deep": timed(
                    lambda _: listing.list_entries(session, None, None, 20, str(n // 2), BASE),
                    range(5),
                ),
                "  filter per item": timed(
                    lambda _: listing.list_entries(session, "tags = 'none'", None, 20, None, BASE),
                    range(3),
                ),
                "POST /ard/explore text": timed(
                    lambda q: explore.explore(
                        index,
                        session,
                        ExploreRequest.model_validate({"query": {"text": q}, **FACETS}),
                        BASE,
                    ),
                    qs[:10],
                ),
                "  whole store": timed(
                    lambda _: explore.explore(
                        index, session, ExploreRequest.model_validate(FACETS), BASE
                    ),
                    range(1),
                ),
            }
        engine.dispose()
    return [f"{n:>9,} {name:<24}{p50:>10.2f}{p99:>10.2f}" for name, (p50, p99) in rows.items()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--actions", type=int, nargs="+", default=[100_000])
    parser.add_argument(
        "--cache", type=Path, default=None, help="keep the synthetic stores here and reuse them"
    )
    args = parser.parse_args()
    print(f"{'actions':>9} {'operation':<24}{'p50 ms':>10}{'p99 ms':>10}")
    for n in args.actions:
        print("\n".join(run(n, args.cache)), flush=True)


if __name__ == "__main__":
    main()
