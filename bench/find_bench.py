"""Speed and scale: store ingest, index build, /find in-process and over HTTP, vs rank-bm25.

    .venv/bin/python -m bench.find_bench [--actions 10000 100000 1000000] [--seconds 10]
                                         [--rounds 3]

(the 1M row alone, when the machine is quiet: ``--actions 1000000 --cache DIR``)

For each size, on a seeded synthetic corpus (bench.synthetic): promote_site into SQLite, a
full ActionIndex.rebuild, ``search`` + ``page_json`` in-process (the work GET /find does, with
the vector index as `actiondex serve` keeps it, and without it in a note), then the real API
(``actiondex serve``: one process, searches in threads) under wrk at concurrency 1 and 16 (taken
in turns, ``--rounds`` times: medians, and c16's requests a second over c1's by round; the
server's CPU a request by thread, bench.http_load.alternated), a one-shot ``actiondex find``
with the site stage by meaning on and off, and rank-bm25's BM25Okapi over name + description on
the same corpus as the baseline row (at 1M it needs ~1.5 GB and ~1 s a query, so only a handful
are timed). Prints a table, and where the API's resident memory is.
"""

from __future__ import annotations

import argparse
import gc
import re
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from bench.http_load import WARM, Alternated, alternated, memory_mb, memory_parts_mb
from bench.synthetic import manifests, queries
from harness.procs import AX, env_for, start
from registry.config import Settings
from registry.db.engine import make_engine, migrate, transaction
from registry.index import ActionIndex
from registry.index.parts import INDEX_VERSION
from registry.model.schemas import RawDocument
from registry.normalising import NormalisedDocument, SiteUpdate, content_hash
from registry.search import FindQuery, page_json, search
from registry.store.promotion import promote_site

BASELINE_QUERIES = {10_000: 50, 100_000: 20}  # more actions: 5 queries


def ingest(settings: Settings, n_actions: int) -> tuple[float, list[str]]:
    engine = make_engine(settings)
    migrate(engine)
    texts: list[str] = []
    start = time.perf_counter()
    for m in manifests(n_actions):
        body = m.model_dump_json().encode()
        raw = RawDocument(url=m.url, body=body, content_type="application/json")
        update = SiteUpdate(
            m.site, f"https://{m.site}", [NormalisedDocument(raw, m, content_hash(body))]
        )
        with transaction(engine) as session:
            promote_site(session, update, max_actions=10_000)
        texts += [f"{a.name.replace('_', ' ')} {a.description}" for a in m.actions]
    elapsed = time.perf_counter() - start
    engine.dispose()  # the last connection closed: SQLite folds its WAL into the file
    return elapsed, texts


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


def baseline(texts: list[str], qs: list[str]) -> tuple[float, list[float]]:
    from rank_bm25 import BM25Okapi  # bench extra; imported late so --help works without it

    tokenised = [re.findall(r"\w+", t.lower()) for t in texts]
    start = time.perf_counter()
    bm25 = BM25Okapi(tokenised)
    build_s = time.perf_counter() - start
    del tokenised
    times = time_queries(
        lambda q: bm25.get_top_n(re.findall(r"\w+", q.lower()), texts, n=10),
        qs[: BASELINE_QUERIES.get(len(texts), 5)],
    )
    return build_s, times


def http(
    settings: Settings, qs: list[str], seconds: int, rounds: int = 3
) -> tuple[Alternated, tuple[float, float], dict[str, float]]:
    server = start(settings.data_dir, ready=WARM, ACTIONDEX_DATABASE_URL=settings.database_url)
    try:
        loads = alternated(server.port, qs, seconds, rounds, server.process.pid)
        return loads, memory_mb(server.process.pid), memory_parts_mb(server.process.pid)
    finally:
        server.stop()


def one_shot(settings: Settings, q: str, sites: bool) -> float:
    """Median wall time of three `actiondex find Q` processes over the store, the site stage
    on (the vector index from its file) or off."""
    env = env_for(
        settings.data_dir, settings.database_url, ACTIONDEX_MEANING_SITES=str(sites).lower()
    )
    times = []
    for _ in range(3):
        start = time.perf_counter()
        subprocess.run([*AX, "find", q], env=env, check=True, capture_output=True, timeout=900)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def corpus_texts(n_actions: int) -> list[str]:
    return [
        f"{a.name.replace('_', ' ')} {a.description}"
        for m in manifests(n_actions)
        for a in m.actions
    ]


def cache_file(cache: Path, n: int) -> Path:
    """Named by the index version its rows were stored under: a store cached by an older
    version (other columns, index parts worked out another way) is never reused."""
    return cache / f"synthetic-{n}-index{INDEX_VERSION}.db"


def stored(settings: Settings, n: int, cache: Path | None) -> tuple[float | None, list[str]]:
    """Ingest ``n`` actions into the store, or (``cache``) reuse the store a previous run
    ingested there: its ingest rate is then not measured (None)."""
    if cache is None:
        return ingest(settings, n)
    cached = cache_file(cache, n)
    if not cached.exists():
        # Written under another name and renamed when whole: an ingest cut short (Ctrl-C)
        # leaves no store that a later run would take for complete.
        cache.mkdir(parents=True, exist_ok=True)
        partial = cached.with_suffix(".partial")
        for leftover in cache.glob(f"{partial.name}*"):  # the database and its -wal, -shm
            leftover.unlink()
        url = f"sqlite:///{partial}"
        ingest_s, texts = ingest(Settings(data_dir=cache, database_url=url), n)
        partial.rename(cached)  # ingest closed its connections: the WAL is checkpointed
        return ingest_s, texts
    return None, corpus_texts(n)


def run(n: int, n_queries: int, seconds: int, cache: Path | None, rounds: int = 3) -> list[str]:
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{cache_file(cache, n).resolve()}" if cache else ""
        settings = Settings(data_dir=Path(tmp), database_url=url)
        ingest_s, texts = stored(settings, n, cache)
        start = time.perf_counter()
        with transaction(make_engine(settings)) as session:
            ActionIndex.rebuild(settings.index_path, session)
        build_s = time.perf_counter() - start
        qs = queries(n_queries)
        words_only = ActionIndex.open(settings.index_path)
        before = time_queries(lambda q: page_json(search(words_only, FindQuery(q=q, limit=10))), qs)
        # As `actiondex serve` keeps it: every action's vector with ACTIONDEX_MEANING_FIRST_STAGE
        # on, every site's with ACTIONDEX_MEANING_SITES on (the default). The first read is
        # from the store (and saves the rows' file); a second handle loads that file.
        vectors_s = []
        for _ in range(2):
            index = ActionIndex.open(
                settings.index_path, settings.meaning_first_stage, settings.meaning_sites
            )
            start = time.perf_counter()
            with transaction(make_engine(settings)) as session:
                index.follow_vectors(session)
            vectors_s.append(time.perf_counter() - start)
        ours = time_queries(lambda q: page_json(search(index, FindQuery(q=q, limit=10))), qs)
        loads, (rss, pss), parts = http(settings, qs, seconds, rounds)
        one_shot_s = {on: one_shot(settings, qs[0], on) for on in (False, True)}
    gc.collect()  # before rank-bm25 takes its share of memory
    base_build_s, base = baseline(texts, qs)
    p50, p99 = percentiles(ours)
    w50, w99 = percentiles(before)
    b50, b99 = percentiles(base)
    c1, c16 = loads.c1, loads.c16
    rate = f"{n / ingest_s:,.0f}" if ingest_s else "cached"
    return [
        f"{n:>9,} {'actiondex':<10}{rate:>9}{n / build_s:>10,.0f}{p50:>8.2f}"
        f"{p99:>8.2f}{c1.p50_ms:>8.2f}{c1.p99_ms:>8.2f}{c1.rps:>8,.0f}{c16.p50_ms:>8.2f}"
        f"{c16.p99_ms:>8.2f}{c16.rps:>8,.0f}{loads.ratio:>7.2f}x{rss:>7,.0f}{pss:>7,.0f}"
        f"{b50 / p50:>8,.0f}x",
        f"{n:>9,} {'rank-bm25':<10}{'-':>9}{n / base_build_s:>10,.0f}{b50:>8.1f}{b99:>8.1f}"
        f"{'-':>8}{'-':>8}{'-':>8}{'-':>8}{'-':>8}{'-':>8}{'-':>8}{'-':>7}{'-':>7}{'1':>8}x",
        f"{n:>9,} API RSS by mapping: "
        + ", ".join(f"{k} {v:,.0f} MB" for k, v in parts.items())
        + f"; first stage by meaning {'on' if settings.meaning_first_stage else 'off'}, site "
        f"stage {'on' if settings.meaning_sites else 'off'}; in-process without the vector "
        f"index: p50 {w50:.2f} p99 {w99:.2f} ms; vector index read from the store in "
        f"{vectors_s[0]:.2f} s, from its file in {vectors_s[1]:.2f} s; one-shot `actiondex "
        f"find` (median of 3): {one_shot_s[True]:.2f} s with the site stage, "
        f"{one_shot_s[False]:.2f} s without (baseline); HTTP: medians of {rounds} rounds of c1 "
        f"then c16, {loads.note()}",
    ]


HEADER = (
    f"{'actions':>9} {'engine':<10}{'ingest/s':>9}{'build/s':>10}{'p50':>8}{'p99':>8}"
    f"{'c1 p50':>8}{'c1 p99':>8}{'c1 rps':>8}{'c16 p50':>8}{'c16 p99':>8}{'c16 rps':>8}"
    f"{'c16/c1':>8}{'RSS MB':>7}{'PSS MB':>7}{'speedup':>9}"
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--actions", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--seconds", type=int, default=10, help="wrk duration per run")
    parser.add_argument(
        "--rounds",
        type=int,
        default=3,
        help="c=1 and c=16 runs taken in turns this many times; the table gives their medians",
    )
    parser.add_argument(
        "--cache",
        type=Path,
        metavar="DIR",
        help="keep each size's ingested SQLite store in DIR and reuse it in "
        "later runs (their ingest rate then reads 'cached')",
    )
    args = parser.parse_args()
    rows, notes = [], []
    for n in args.actions:
        out = run(n, args.queries, args.seconds, args.cache, args.rounds)
        print(out[0], flush=True)
        rows += out[:2]
        notes.append(out[2])
    print(
        f"\nsynthetic corpus, {args.queries} queries, API: actiondex serve (one process, "
        "searches in threads), wrk on loopback;\ntimes in ms; RSS/PSS: all API processes "
        "together; c1/c16: medians of the rounds; c16/c1: the median round's ratio of requests a "
        "second; speed-up: rank-bm25 p50 / actiondex p50"
    )
    print(HEADER)
    print("\n".join(rows))
    print("\n".join(notes))


if __name__ == "__main__":
    main()
