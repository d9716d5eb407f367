"""Freshness: how long from a change's commit until a live `actiondex serve` finds it.

    .venv/bin/python -m bench.freshness [--actions 100000 1000000] [--changes 50]
                                        [--cache DIR] [--seconds 10]

For each size, on bench.synthetic's store (bench.find_bench builds it, cached in ``--cache``;
each run works on a copy): a full index build, then for each way of following the store a
real ``actiondex serve``, its /find p50/p99 idle (wrk, 1 connection) and then under load (wrk,
16 connections) while ``--changes`` changes are made one after another, each at a random point
of the poll interval. A change promotes one of the first sites again with a new, uniquely
named action; its lag is from the promotion's commit until GET /find (polled every 20 ms)
answers with it. Ways of following:

- ``watermark``: this code; a poll reads the sites above the index's watermark (1 s polls).
- ``full scan 1 s``: every poll reads every site's (host, version), as before the watermark,
  at the same interval (ACTIONDEX_INDEX_RECONCILE_SECONDS below the poll interval).
- ``old: scan 5 s``: the code before, as it shipped: a full scan every 5 s.

Also the cost of one poll that finds nothing, in-process, watermark vs full scan.
"""

from __future__ import annotations

import argparse
import random
import shutil
import signal
import statistics
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from bench.find_bench import cache_file, stored
from bench.http_load import WARM, Load, wrk, wrk_command, wrk_load
from bench.replicate import replicated
from bench.synthetic import manifests, queries
from harness.freshness import finds
from harness.procs import start
from registry.config import Settings
from registry.db.engine import make_engine, migrate, reading, transaction
from registry.index import ActionIndex
from registry.model.schemas import Action, Manifest, RawDocument
from registry.normalising import NormalisedDocument, SiteUpdate, content_hash
from registry.store.promotion import promote_site

MODES = {
    "watermark": {},
    "full scan 1 s": {"ACTIONDEX_INDEX_RECONCILE_SECONDS": "0.01"},
    "old: scan 5 s": {
        "ACTIONDEX_INDEX_RECONCILE_SECONDS": "0.01",
        "ACTIONDEX_INDEX_POLL_SECONDS": "5",
    },
}
LOAD_CONCURRENCY = 16
FOUND_TIMEOUT_S = 60


@dataclass
class Row:
    mode: str
    lags: list[float]
    idle: Load
    loaded: Load


def changed(base: Manifest, tag: str) -> SiteUpdate:
    """``base``'s site again, with one more action named after ``tag`` (the word to find)."""
    extra = Action(
        name=f"order_{tag}",
        title=f"Order {tag}",
        effect="spend",
        method="POST",
        description=f"Order a {tag} today.",
        endpoint=f"https://{base.site}/o",
    )
    manifest = base.model_copy(update={"actions": [*base.actions, extra]})
    body = manifest.model_dump_json().encode()
    raw = RawDocument(url=manifest.url, body=body, content_type="application/json")
    return SiteUpdate(
        manifest.site,
        f"https://{manifest.site}",
        [NormalisedDocument(raw, manifest, content_hash(body))],
    )


def lag(settings: Settings, update: SiteUpdate, tag: str, base: str) -> float:
    engine = make_engine(settings)
    with transaction(engine) as session:
        promote_site(session, update, max_actions=10_000)
    committed = time.monotonic()
    while not finds(base, tag):
        if time.monotonic() - committed > FOUND_TIMEOUT_S:
            raise RuntimeError(f"{tag} not found after {FOUND_TIMEOUT_S} s")
        time.sleep(0.02)
    engine.dispose()
    return time.monotonic() - committed


def follow(settings: Settings, mode: str, n_changes: int, seconds: int) -> Row:
    env = MODES[mode]
    server = start(
        settings.data_dir, ready=WARM, ACTIONDEX_DATABASE_URL=settings.database_url, **env
    )
    port, base, qs = server.port, server.base, queries(200)
    sites = list(manifests(20 * n_changes))
    rng, poll_s = random.Random(5), float(env.get("ACTIONDEX_INDEX_POLL_SECONDS", "1"))
    try:
        idle = wrk(port, qs, 1, seconds)
        with tempfile.NamedTemporaryFile("w", suffix=".lua") as script:
            load = subprocess.Popen(
                wrk_command(port, qs, LOAD_CONCURRENCY, 3600, script),
                stdout=subprocess.PIPE,
                text=True,
            )
            time.sleep(1)  # wrk connected and asking
            tag, lags = mode.split()[0].strip(":"), []
            for i in range(n_changes):
                # At a random point of the poll interval: a change made right after the last
                # one was found would land just after a poll every time (the worst case).
                time.sleep(rng.uniform(0, poll_s))
                lags.append(lag(settings, changed(sites[i], f"zq{tag}x{i}"), f"zq{tag}x{i}", base))
            load.send_signal(signal.SIGINT)
            loaded = wrk_load(load.communicate(timeout=30)[0], LOAD_CONCURRENCY)
    finally:
        server.stop()
    return Row(mode, lags, idle, loaded)


def poll_cost_ms(settings: Settings) -> tuple[float, float]:
    """One poll that finds nothing new: watermark, then full scan (median of 5, ms)."""
    index, engine = ActionIndex.open(settings.index_path), make_engine(settings)
    times: dict[bool, list[float]] = {False: [], True: []}
    for full in (False, True) * 5:
        with reading(engine) as session:
            times[full].append(index.sync(session, full=full).took_ms)
    engine.dispose()
    return statistics.median(times[False]), statistics.median(times[True])


def store_file(cache: Path, n: int, replicate_from: int | None) -> Path:
    """The cached store of ``n`` actions, ingested or (above ``replicate_from``) copied."""
    if replicate_from and n > replicate_from:
        return replicated(cache, n, replicate_from)
    stored(Settings(data_dir=cache), n, cache)  # builds the cached store if it is missing
    return cache_file(cache, n)


def run(
    n: int,
    n_changes: int,
    cache: Path,
    seconds: int,
    modes: list[str],
    replicate_from: int | None = None,
) -> list[str]:
    source = store_file(cache, n, replicate_from)
    with tempfile.TemporaryDirectory(dir=cache) as tmp:
        copy = Path(tmp) / "store.db"
        shutil.copyfile(source, copy)  # the changes must not reach the cache
        settings = Settings(data_dir=Path(tmp), database_url=f"sqlite:///{copy}")
        engine = make_engine(settings)
        migrate(engine)
        with transaction(engine) as session:
            ActionIndex.rebuild(settings.index_path, session)
        engine.dispose()
        poll = poll_cost_ms(settings)
        rows = [follow(settings, mode, n_changes, seconds) for mode in modes]
    return [line(n, row, poll) for row in rows]


def line(n: int, row: Row, poll: tuple[float, float]) -> str:
    lags = sorted(row.lags)
    cost = poll[0] if row.mode == "watermark" else poll[1]
    return (
        f"{n:>9,} {row.mode:<15}{statistics.median(lags):>8.2f}{lags[-1]:>8.2f}"
        f"{cost:>10.1f}{row.idle.p50_ms:>9.2f}{row.idle.p99_ms:>9.2f}"
        f"{row.loaded.p50_ms:>9.2f}{row.loaded.p99_ms:>9.2f}{row.loaded.rps:>9,.0f}"
    )


HEADER = (
    f"{'actions':>9} {'following':<15}{'lag p50':>8}{'lag max':>8}{'poll ms':>10}"
    f"{'idle p50':>9}{'idle p99':>9}{'load p50':>9}{'load p99':>9}{'load rps':>9}"
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--actions", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--changes", type=int, default=50)
    parser.add_argument("--seconds", type=int, default=10, help="wrk duration, idle")
    parser.add_argument(
        "--cache",
        type=Path,
        default=Path(".actiondex/bench-cache"),
        metavar="DIR",
        help="where bench.find_bench's synthetic stores are kept and reused",
    )
    parser.add_argument("--modes", nargs="+", choices=list(MODES), default=list(MODES))
    parser.add_argument(
        "--replicate-from",
        type=int,
        metavar="N",
        help="make stores above N actions by copying the N store's rows "
        "(bench.replicate) instead of ingesting them",
    )
    args = parser.parse_args()
    rows = []
    for n in args.actions:
        for out in run(n, args.changes, args.cache, args.seconds, args.modes, args.replicate_from):
            print(out, flush=True)
            rows.append(out)
    print(
        f"\nsynthetic corpus (20 actions a site); {args.changes} changes a row, one at a "
        f"time at a random point of the poll interval, each a site promoted again with a "
        f"new action; lag: commit -> GET /find "
        f"answers it (s);\npoll ms: one poll finding nothing, in-process; /find latency "
        f"in ms, idle: wrk 1 connection, load: wrk {LOAD_CONCURRENCY} connections during "
        "the changes; actiondex serve on SQLite, loopback"
    )
    print(HEADER)
    print("\n".join(rows))


if __name__ == "__main__":
    main()
