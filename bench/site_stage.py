"""The site stage by meaning (ACTIONDEX_MEANING_SITES): its settings compared on training
requests only, beside the re-rank without it in the same run.

    .venv/bin/python -m bench.site_stage --colt DIR --metatool DIR [--train N] [--test]

ToolLens and MetaTool are ingested into stores of their own (bench.relevance) and asked through
``registry.search.find``: without the site vectors (main before the stage, the baseline), and
with them (the sites' vectors only, as `actiondex serve` keeps them by default) for each
VECTOR_SITES tried and each way of scoring the candidates found by a site's meaning: the
re-rank's learned net (RERANK_NET, the shipped path) or the first stage's
(learned.WEIGHTS, through ``meaning.with_vectors`` with no action scanned). Training requests
(bench.fusion_bench): a seeded ``--train`` of ToolLens's official train split and of MetaTool's
single-tool requests left out of its seeded 2,000-request test sample. ``--test`` then scores
the baseline and the shipped setting once on the test sets (never to choose).
"""

from __future__ import annotations

import argparse
import logging
import os
import random
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

import tantivy

from bench import metatool, toollens
from bench.fusion_bench import cached_queries, metatool_split
from bench.relevance import evaluate, ingest, ours
from registry.index.vector_index import VectorIndex
from registry.search import meaning
from registry.search.page import Docs

Rank = Callable[[str], list[str]]
SITES = (5, 10, 20)


def through_first_stage(
    docs: tantivy.Searcher | Docs,
    q: str,
    found: meaning.Found,
    near: VectorIndex | None = None,
    filters: Sequence[tuple[tantivy.Occur, tantivy.Query]] = (),
) -> tuple[meaning.Found, meaning.Bonus]:
    """The site stage's candidates scored by the first stage's learned model instead."""
    if near is None:
        return PLAIN(docs, q, found)
    return meaning.with_vectors(docs, q, found, near, None, filters)


PLAIN = meaning.by_meaning


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--colt", type=Path, required=True, metavar="DIR")
    parser.add_argument("--toollens", type=Path, default=toollens.DEFAULT_DATA, metavar="DIR")
    parser.add_argument("--metatool", type=Path, default=metatool.DEFAULT_DATA, metavar="DIR")
    parser.add_argument("--train", type=int, default=1000, metavar="N")
    parser.add_argument("--sample", type=int, default=2000, metavar="N", help="MetaTool test")
    parser.add_argument("--test", action="store_true", help="then score the shipped on test")
    args = parser.parse_args()
    logging.getLogger("alembic").setLevel(logging.WARNING)
    tl_tools, tl_sets = toollens.load(args.toollens)
    mt_tools, mt_sets = metatool.load(args.metatool)
    mt_train, mt_test = metatool_split(mt_sets[0][1], args.sample, args.train)
    tl_train = toollens.train_queries(args.colt, args.train)
    random.Random(5).shuffle(tl_train)
    cached_queries("wordllama")
    sets = {"ToolLens": [("TL train", tl_train)], "MetaTool": [("MT train", mt_train)]}
    shipped = meaning.VECTOR_SITES
    with tempfile.TemporaryDirectory() as tmp:
        ranks: dict[str, tuple[Rank, Rank]] = {}
        for name, tools, domain in (
            ("ToolLens", tl_tools, toollens.DOMAIN),
            ("MetaTool", mt_tools, metatool.DOMAIN),
        ):
            (Path(tmp) / name).mkdir()
            settings, ids = ingest(tools, Path(tmp) / name, domain)
            ranks[name] = (ours(settings, ids), ours(settings, ids, sites=True))
        rows = [("re-rank, no site stage (main, baseline)", 0, 0, PLAIN)]
        rows += [(f"site stage {k} sites, re-rank model", 1, k, PLAIN) for k in SITES]
        rows += [
            (f"site stage {k} sites, first stage's model", 1, k, through_first_stage) for k in SITES
        ]
        table("training requests", rows, sets, ranks)
        if args.test:
            tests = {
                "ToolLens": [("TL test", tl_sets[0][1])],
                "MetaTool": [("MT single test", mt_test), ("MT multi", mt_sets[1][1])],
            }
            chosen = [r for r in rows if r[2] in (0, shipped) and r[3] is PLAIN]
            table("test requests (scored once)", chosen, tests, ranks)


def table(title: str, rows: list, sets: dict, ranks: dict) -> None:
    print(f"\n{title} (load average {os.getloadavg()[0]:.1f}), NDCG@10 / Recall@5")
    names = [n for parts in sets.values() for n, _ in parts]
    print(f"{'setting':<46}" + "".join(f"{n[:16]:>16}" for n in names) + f"{'mean':>9}")
    for label, which, k, scorer in rows:
        meaning.VECTOR_SITES, meaning.by_meaning = k or meaning.VECTOR_SITES, scorer
        try:
            cells = [
                evaluate(ranks[bench][which], queries)
                for bench, parts in sets.items()
                for _, queries in parts
            ]
        finally:
            meaning.by_meaning = PLAIN
        text = "".join(f"{c[0]:>9.4f} {c[1]:.3f}" for c in cells)
        mean = sum(c[0] for c in cells) / len(cells)
        print(f"{label:<46}{text}{mean:>9.4f}", flush=True)


if __name__ == "__main__":
    main()
