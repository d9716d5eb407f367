"""The first stage by meaning's fusion: the fixed mix of scores against reciprocal rank fusion
(registry.search.meaning.FUSION), tuned on training requests only, then scored on the tests.

    .venv/bin/python -m bench.fusion_bench --colt DIR --metatool DIR [--models wordllama e5]
                                           [--train N] [--sample N] [--test]

For each meaning model, ToolLens and MetaTool are ingested into a store of their own under it
(bench.relevance) and asked through ``registry.search.find`` with the vector index, as
``actiondex serve`` keeps it with ACTIONDEX_MEANING_FIRST_STAGE on. Training requests: a seeded
``--train`` of ToolLens's official train split (bench.toollens.train_queries) and of MetaTool's
single-tool requests left out of its test sample (MetaTool has no split of its own: the test
sample is bench.relevance.sampled's seeded 2,000, these are drawn from the rest). Every fusion
setting is scored on both; the best by their mean NDCG@10 is then scored, beside the mix and
BM25 alone, on the test sets with ``--test`` (the tests are never used to choose).
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import logging
import random
import tempfile
from collections.abc import Callable
from pathlib import Path

from bench import metatool, toollens
from bench.meaning_bench import use
from bench.relevance import evaluate, ingest, ours, sampled
from registry.index import vectors
from registry.search import meaning

Rank = Callable[[str], list[str]]
# (label, FUSION, RRF_K, RRF_WEIGHT); the first two rows are the baselines of the same run.
SETTINGS = [
    ("BM25 + re-rank (no vector stage)", "off", 0, 0.0),
    ("mix 0.5/0.5 (main)", "mix", 0, 0.0),
    *[(f"rrf k={k} w={w}", "rrf", k, w) for k in (5, 20, 60) for w in (0.5, 1.0, 2.0)],
]


def cached_queries(model: str) -> None:
    """The model's request embedding remembered per text: every setting asks the same ones."""
    known = vectors.MODELS[model]
    if not hasattr(known.query, "cache_info"):
        vectors.MODELS[model] = dataclasses.replace(
            known, query=functools.lru_cache(maxsize=None)(known.query)
        )


def configured(setting: tuple[str, str, int, float], plain: Rank, staged: Rank) -> Rank:
    _, fusion, k, weight = setting

    def ranked(q: str) -> list[str]:
        if fusion == "off":
            return plain(q)
        meaning.FUSION, meaning.RRF_K, meaning.RRF_WEIGHT = fusion, k, weight
        return staged(q)

    return ranked


def metatool_split(queries: list[dict], test_size: int, train: int) -> tuple[list, list]:
    """(train, test): test is bench.relevance's sample of ``test_size``; train a seeded
    ``train`` of the rest."""
    test = sampled(queries, test_size)
    held = {q["qid"] for q in test}
    rest = [q for q in queries if q["qid"] not in held]
    return random.Random(17).sample(rest, min(train, len(rest))), test


def table(
    title: str, settings: list, sets: dict[str, list], ranks: dict[str, tuple[Rank, Rank]]
) -> dict[tuple, float]:
    """Prints each setting's NDCG@10 and Recall@5 on ``sets`` (benchmark -> [(name,
    queries)]); answers each setting's mean NDCG@10."""
    print(f"\n{title}")
    names = [n for parts in sets.values() for n, _ in parts]
    print(f"{'setting':<36}" + "".join(f"{n[:18]:>18}" for n in names) + f"{'mean':>9}")
    print(" " * 36 + "   NDCG@10     R@5" * len(names))
    means = {}
    for setting in settings:
        row = [
            evaluate(configured(setting, *ranks[bench]), queries)
            for bench, parts in sets.items()
            for _, queries in parts
        ]
        cells = "".join(f"{r[0]:>10.4f}{r[1]:>8.3f}" for r in row)
        means[setting] = sum(r[0] for r in row) / len(row)
        print(f"{setting[0]:<36}{cells}{means[setting]:>9.4f}", flush=True)
    return means


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--colt", type=Path, required=True, metavar="DIR")
    parser.add_argument("--toollens", type=Path, default=toollens.DEFAULT_DATA, metavar="DIR")
    parser.add_argument("--metatool", type=Path, default=metatool.DEFAULT_DATA, metavar="DIR")
    parser.add_argument("--models", nargs="+", default=["wordllama"], choices=vectors.MODELS)
    parser.add_argument("--train", type=int, default=1000, metavar="N")
    parser.add_argument("--sample", type=int, default=2000, metavar="N", help="MetaTool test")
    parser.add_argument("--test", action="store_true", help="then score the chosen on test")
    args = parser.parse_args()
    logging.getLogger("alembic").setLevel(logging.WARNING)
    tl_tools, tl_sets = toollens.load(args.toollens)
    mt_tools, mt_sets = metatool.load(args.metatool)
    mt_train, mt_test = metatool_split(mt_sets[0][1], args.sample, args.train)
    train_sets = {
        "ToolLens": [("TL train", toollens.train_queries(args.colt, args.train))],
        "MetaTool": [("MT train", mt_train)],
    }
    test_sets = {
        "ToolLens": [("TL test", tl_sets[0][1])],
        "MetaTool": [("MT single test", mt_test), ("MT multi", mt_sets[1][1])],
    }
    for model in args.models:
        use(model)
        cached_queries(model)
        with tempfile.TemporaryDirectory() as tmp:
            ranks = {}
            for name, tools, domain in (
                ("ToolLens", tl_tools, toollens.DOMAIN),
                ("MetaTool", mt_tools, metatool.DOMAIN),
            ):
                (Path(tmp) / name).mkdir()
                settings, ids = ingest(tools, Path(tmp) / name, domain)
                ranks[name] = (ours(settings, ids), ours(settings, ids, True))
            means = table(
                f"{model}: training requests ({args.train} of each)", SETTINGS, train_sets, ranks
            )
            chosen = max((s for s in SETTINGS if s[1] == "rrf"), key=lambda s: means[s])
            print(f"chosen on training requests: {chosen[0]}")
            if args.test:
                table(f"{model}: test requests", [*SETTINGS[:2], chosen], test_sets, ranks)


if __name__ == "__main__":
    main()
