"""What meaning costs a sentence: GET /find at c=1 and in-process, the first stage by meaning off
and on, the fixed mix and the learned one (registry.search.learned).

    .venv/bin/python -m bench.sentence_speed [--actions 10000] [--seconds 10] [--cache DIR]

bench.find_bench's requests are two or three words, so neither the re-rank by meaning nor the
first stage runs for them; these are sentences (bench.synthetic's verb and object in a
request of eight words or more, one of two parts), as an agent writes them. On bench.synthetic's
seeded corpus: in-process ``search`` + ``page_json`` for each setting (meaning.RERANK for the
first stage off, meaning.FUSION on), then ``actiondex serve`` under wrk at concurrency 1 with
ACTIONDEX_MEANING_FIRST_STAGE off and on (the served process runs the code's defaults). The
baseline row: BM25 alone (the sentence re-rank skipped), in the same run.
"""

from __future__ import annotations

import argparse
import os
import random
import tempfile
from pathlib import Path

from bench.find_bench import cache_file, http, percentiles, stored, time_queries
from bench.vocabulary import FILLER, OBJECTS, VERBS
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--actions", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=500)
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--cache", type=Path, metavar="DIR")
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
        with transaction(make_engine(settings)) as session:
            on.follow_vectors(session)
        minimum = meaning.MIN_WORDS
        meaning.MIN_WORDS = 10_000  # no request is a sentence: BM25 alone
        rows.append(("BM25 alone (no meaning)", "off", words))
        times = {}
        times[rows[0][0]] = time_queries(lambda q: page_json(search(words, _q(q))), qs)
        meaning.MIN_WORDS = minimum
        for label, stage, index in (
            ("first stage off, re-rank mix", "mix", words),
            ("first stage off, re-rank learned", "learned", words),
            ("first stage on, mix", "mix", on),
            ("first stage on, learned", "learned", on),
        ):
            meaning.RERANK = meaning.FUSION = stage
            times[label] = time_queries(lambda q, i=index: page_json(search(i, _q(q))), qs)
            rows.append((label, stage, index))
        meaning.FUSION, meaning.RERANK = defaults
        served = {}
        for flag in ("false", "true"):
            os.environ["ACTIONDEX_MEANING_FIRST_STAGE"] = flag
            served[flag] = http(settings, qs, args.seconds)[0][0]
        os.environ.pop("ACTIONDEX_MEANING_FIRST_STAGE")
    print(f"\n{args.actions:,} synthetic actions, {len(qs)} sentence requests; ms")
    print(f"{'setting (in-process search + page_json)':<44}{'p50':>8}{'p99':>8}")
    for label, _, _ in rows:
        p50, p99 = percentiles(times[label])
        print(f"{label:<44}{p50:>8.2f}{p99:>8.2f}")
    print(
        f"\nGET /find, actiondex serve, wrk c=1 {args.seconds} s (defaults: FUSION "
        f"{defaults[0]}, RERANK {defaults[1]})"
    )
    print(f"{'ACTIONDEX_MEANING_FIRST_STAGE':<44}{'p50':>8}{'p99':>8}{'rps':>8}")
    for flag, load in served.items():
        print(f"{flag:<44}{load.p50_ms:>8.2f}{load.p99_ms:>8.2f}{load.rps:>8,.0f}")


def _q(q: str) -> FindQuery:
    return FindQuery(q=q, limit=10)


if __name__ == "__main__":
    main()
