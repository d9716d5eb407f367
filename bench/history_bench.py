"""What keeping a site's history costs a promotion that changes it: promote_site of a site of N
actions whose manifest changed one endpoint, with history (two snapshots and a diff, one entry)
and without (the baseline: registry.store.history's snapshot and write made no-ops),
alternating round by round in one run, each in its own committed transaction. Prints a table of
medians.

.venv/bin/python -m bench.history_bench [--db-url URL] [--rounds 20]"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from sqlalchemy import Engine

from registry.config import Settings
from registry.db.engine import make_engine, migrate, transaction
from registry.model.schemas import Action, Manifest, RawDocument
from registry.normalising import NormalisedDocument, SiteUpdate, content_hash
from registry.store import history
from registry.store.promotion import promote_site

SIZES = (10, 100, 1000)


def _update(host: str, n: int, round_: int) -> SiteUpdate:
    url = f"https://{host}/.well-known/agent-actions.json"
    actions = [
        Action(
            name=f"a{i}",
            title=f"Action {i}",
            effect="write",
            method="POST",
            endpoint=f"https://{host}/api/{i}" + (f"?r={round_}" if i == 0 else ""),
            input_schema={"type": "object", "properties": {"q": {"type": "string"}}},
        )
        for i in range(n)
    ]
    manifest = Manifest(site=host, url=url, format="agent-actions", actions=actions)
    body = manifest.model_dump_json().encode()
    return SiteUpdate(
        host,
        f"https://{host}",
        [NormalisedDocument(RawDocument(url=url, body=body), manifest, content_hash(body))],
    )


def _promote_ms(engine: Engine, host: str, n: int, round_: int) -> float:
    update = _update(host, n, round_)  # made outside the timing, as a crawl does
    started = time.perf_counter()
    with transaction(engine) as session:
        assert promote_site(session, update, max_actions=n).changed
    return (time.perf_counter() - started) * 1000


def _medians(engine: Engine, n: int, rounds: int) -> tuple[float, float]:
    """(without, with) history: the two alternate round by round, so a busy machine weighs
    on both alike."""
    took: dict[bool, list[float]] = {False: [], True: []}
    for round_ in range(rounds + 1):
        for keep in (False, True):
            saved = None if keep else _without_history()
            try:
                ms = _promote_ms(engine, f"{'hist' if keep else 'base'}{n}.example", n, round_)
            finally:
                if saved is not None:
                    history.snapshot = saved["snapshot"]
                    history.Changes.write = saved["write"]  # type: ignore[method-assign]
            if round_:  # round 0 stores the site for the first time
                took[keep].append(ms)
    return statistics.median(took[False]), statistics.median(took[True])


def _without_history() -> dict[str, Any]:
    saved = {"snapshot": history.snapshot, "write": history.Changes.write}
    history.snapshot = lambda session, site_id: {}  # type: ignore[assignment]
    history.Changes.write = lambda self, now, run_id=None: []  # type: ignore[method-assign]
    return saved


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--db-url",
        default="",
        help="A database URL (default: a fresh SQLite file); PostgreSQL wants an empty database",
    )
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        engine = make_engine(Settings(data_dir=Path(tmp), database_url=args.db_url))
        migrate(engine)
        print(f"{engine.dialect.name}: median ms per changed promotion, {args.rounds} rounds")
        print(f"{'actions':>8} {'without history':>16} {'with history':>13} {'extra':>7}")
        for n in SIZES:
            base, with_history = _medians(engine, n, args.rounds)
            print(f"{n:>8} {base:>16.1f} {with_history:>13.1f} {with_history - base:>+7.1f}")
        engine.dispose()


if __name__ == "__main__":
    main()
