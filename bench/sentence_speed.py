"""What meaning costs a sentence: GET /find at c=1 and c=16 and in-process, with the site stage by
meaning off and on (ACTIONDEX_MEANING_SITES) and the first stage by meaning on.

    .venv/bin/python -m bench.sentence_speed [--actions 10000] [--seconds 10] [--cache DIR]
                                             [--baseline DIR]

bench.find_bench's requests are two or three words, so neither the re-rank by meaning nor the
first stage runs for them; these are sentences (bench.synthetic's verb and object in a
request of eight words or more, one of two parts), as an agent writes them. On bench.synthetic's
seeded corpus: in-process ``search`` + ``page_json`` for each setting, then ``actiondex serve``
under wrk at concurrency 1 and 16 for each (``--baseline DIR``: first the server of another
checkout, e.g. main, over the same store). The baseline rows: BM25 alone (the sentence re-rank
skipped) in-process, and the site stage off (main's path) served, in the same run.
"""

from __future__ import annotations

import argparse
import os
import random
import tempfile
from pathlib import Path

from bench.find_bench import cache_file, http, percentiles, stored, time_queries
from bench.vocabulary import FILLER, OBJECTS, VERBS
from harness import procs
from registry.config import Settings
from registry.db.engine import make_engine, transaction
from registry.index import ActionIndex
from registry.search import FindQuery, meaning, page_json, search

OPENINGS = ("I need to", "can you help me", "please find a way to", "I want to")
SECOND = ("and then", "and also", "and after that", "while I")


def sentences(n: int, seed: int = 13) -> list[str]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        verb, obj = rng.choice(VERBS)[0], rng.choice(OBJECTS)
        tail = f"for my {rng.choice(FILLER)} this week"
        if rng.random() < 0.5:
            tail += f", {rng.choice(SECOND)} {rng.choice(VERBS)[0]} a {rng.choice(OBJECTS)}"
        out.append(f"{rng.choice(OPENINGS)} {verb} a {obj} {tail}")
    return out


# GET /find's settings served in turn: (label, ACTIONDEX_MEANING_FIRST_STAGE, _SITES)
SERVED = (
    ("site stage off (main's path)", "false", "false"),
    ("site stage on (default)", "false", "true"),
    ("first stage on", "true", "false"),
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--actions", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=500)
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--cache", type=Path, metavar="DIR")
    parser.add_argument(
        "--baseline",
        type=Path,
        metavar="DIR",
        help="also serve GET /find from the checkout in DIR (its own .venv), e.g. main",
    )
    args = parser.parse_args()
    qs = sentences(args.queries)
    defaults = meaning.FUSION, meaning.RERANK
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{cache_file(args.cache, args.actions).resolve()}" if args.cache else ""
        settings = Settings(data_dir=Path(tmp), database_url=url)
        stored(settings, args.actions, args.cache)
        with transaction(make_engine(settings)) as session:
            ActionIndex.rebuild(settings.index_path, session)
        rows = []
        words = ActionIndex.open(settings.index_path)
        on = ActionIndex.open(settings.index_path, True)
        sites = ActionIndex.open(settings.index_path, sites=True)
        with transaction(make_engine(settings)) as session:
            on.follow_vectors(session)
            sites.follow_vectors(session)
        minimum = meaning.MIN_WORDS
        meaning.MIN_WORDS = 10_000  # no request is a sentence: BM25 alone
        rows.append(("BM25 alone (no meaning)", "off", words))
        times = {}
        times[rows[0][0]] = time_queries(lambda q: page_json(search(words, _q(q))), qs)
        meaning.MIN_WORDS = minimum
        for label, stage, index in (
            ("first stage off, re-rank learned", "learned", words),
            ("site stage on, re-rank learned (default)", "learned", sites),
            ("site stage on, group=site", "learned", sites),
            ("first stage on, learned", "learned", on),
        ):
            meaning.RERANK = meaning.FUSION = stage
            grouped = "group=site" in label
            times[label] = time_queries(
                lambda q, i=index, g=grouped: page_json(search(i, _q(q, g))), qs
            )
            rows.append((label, stage, index))
        meaning.FUSION, meaning.RERANK = defaults
        served = {}
        if args.baseline:
            own, procs.AX = procs.AX, [str(args.baseline / ".venv/bin/python"), "-m", "actiondex"]
            try:
                served[f"{args.baseline} (baseline tree)"] = http(settings, qs, args.seconds)
            finally:
                procs.AX = own
        for label, first, site in SERVED:
            os.environ["ACTIONDEX_MEANING_FIRST_STAGE"] = first
            os.environ["ACTIONDEX_MEANING_SITES"] = site
            served[label] = http(settings, qs, args.seconds)
        os.environ.pop("ACTIONDEX_MEANING_FIRST_STAGE")
        os.environ.pop("ACTIONDEX_MEANING_SITES")
    print(
        f"\n{args.actions:,} synthetic actions, {len(qs)} sentence requests; ms "
        f"(load average {os.getloadavg()[0]:.1f})"
    )
    print(f"{'setting (in-process search + page_json)':<44}{'p50':>8}{'p99':>8}")
    for label, _, _ in rows:
        p50, p99 = percentiles(times[label])
        print(f"{label:<44}{p50:>8.2f}{p99:>8.2f}")
    print(
        f"\nGET /find, actiondex serve, wrk {args.seconds} s (defaults: FUSION "
        f"{defaults[0]}, RERANK {defaults[1]})"
    )
    print(f"{'served':<44}{'p50':>8}{'p99':>8}{'c1 rps':>8}{'c16 rps':>9}{'RSS MB':>8}")
    for label, (loads, rss, _) in served.items():
        one, many = loads
        print(
            f"{label:<44}{one.p50_ms:>8.2f}{one.p99_ms:>8.2f}{one.rps:>8,.0f}"
            f"{many.rps:>9,.0f}{rss[0]:>8.0f}"
        )


def _q(q: str, grouped: bool = False) -> FindQuery:
    return FindQuery(q=q, limit=10, group="site" if grouped else "action")


if __name__ == "__main__":
    main()
