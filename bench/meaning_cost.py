"""The cost half of bench.meaning_bench: what each meaning model costs to store and to query.

Per model: embedding at store time, one action at a time as registry.store.rows calls it
(actions/s); a full ``promote_site`` ingest of synthetic actions (bench.find_bench.ingest,
actions/s, and what 1M would take at that rate: an extrapolation, labelled so); embedding a
request and re-ranking 50 stored vectors, p50/p99; the resident memory a process gains by
loading the model and embedding one text (a child process, so nothing else is counted); the
stored bytes of one action's vector (base64, as the index document holds it); and dense
retrieval (every stored vector scanned) over 100k and 1M random 4-bit vectors held as int8:
only its time and memory are real there, not its relevance.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from bench.find_bench import ingest
from bench.synthetic import manifests
from registry.config import Settings
from registry.index import vectors

EMBEDDED = {"wordllama": 3000, "e5": 300}  # actions embedded for the store-time rate
INGESTED = {"wordllama": 2000, "e5": 300}  # actions through promote_site
SENTENCES = [  # requests as agents write them (ToolLens-like), each 5+ words: re-ranked
    "I'm baking bread tonight and need a recipe that uses yeast",
    "find me a cheap flight from Lisbon to Berlin next weekend",
    "what will the weather be like in Paris tomorrow afternoon",
    "I want to translate this paragraph of text into Japanese",
    "show the latest news headlines about electric cars and batteries",
    "convert one hundred US dollars to euros at today's rate",
    "I need to send an invoice to a customer and track its payment",
    "look up the nutrition facts of a banana and an apple",
]
RSS_CHILD = """
import sys
from registry.index import vectors
def rss():
    return int(open('/proc/self/status').read().split('VmRSS:')[1].split()[0]) / 1024
before = rss()
vectors.load(); vectors.stored('an action that searches recipes by ingredient')
print(before, rss())
"""


def percentiles(ms: list[float]) -> tuple[float, float]:
    ms = sorted(ms)
    return statistics.median(ms), ms[min(len(ms) - 1, int(len(ms) * 0.99))]


def timed(fn: Callable[[], object], times: int) -> list[float]:
    out = []
    for _ in range(times):
        start = time.perf_counter()
        fn()
        out.append((time.perf_counter() - start) * 1000)
    return out


def action_texts(n: int) -> list[str]:
    return [
        f"{a.name.replace('_', ' ')} {a.title} {a.description} {m.site}"
        for m in manifests(n)
        for a in m.actions
    ]


def model_rss(model: str) -> tuple[float, float]:
    """(RSS before loading, after) of a child process, MB."""
    env = {**os.environ, "ACTIONDEX_MEANING_MODEL": model}
    out = subprocess.run(
        [sys.executable, "-c", RSS_CHILD], env=env, text=True, check=True, capture_output=True
    ).stdout.split()
    return float(out[0]), float(out[1])


def dense_scan(dims: int, n: int, queries: int = 20) -> tuple[float, float, float]:
    """(p50 ms, p99 ms, MB) of scoring ``n`` int8 vectors of ``dims`` and taking the top 50."""
    rng = np.random.default_rng(5)
    matrix = rng.integers(-7, 8, size=(n, dims), dtype=np.int8)
    chunk = 1 << 16

    def scan() -> np.ndarray:
        q = rng.standard_normal(dims).astype(np.float32)
        scores = np.concatenate(
            [matrix[i : i + chunk].astype(np.float32) @ q for i in range(0, n, chunk)]
        )
        return np.argpartition(-scores, 50)[:50]

    p50, p99 = percentiles(timed(scan, queries))
    return p50, p99, matrix.nbytes / 2**20


def cost(models: Sequence[str], use: Callable[[str], None]) -> None:
    rows, scans = [], []
    for model in models:
        use(model)
        vectors.load()
        texts = action_texts(EMBEDDED[model])
        start = time.perf_counter()
        for text in texts:
            vectors.stored_b64(text)
        embed_rate = len(texts) / (time.perf_counter() - start)
        with tempfile.TemporaryDirectory() as tmp:
            ingest_s, _ = ingest(Settings(data_dir=Path(tmp)), INGESTED[model])
        ingest_rate = INGESTED[model] / ingest_s
        stored = [vectors.stored(t) for t in texts[:50]]
        embed = [ms for s in SENTENCES for ms in timed(lambda s=s: vectors.query(s), 10)]
        rerank = [
            ms
            for s in SENTENCES
            for ms in timed(lambda s=s, v=stored: vectors.similarities(vectors.query(s), v), 10)
        ]
        before, after = model_rss(model)
        q50, q99 = percentiles(embed)
        r50, r99 = percentiles(rerank)
        size = len(vectors.stored_b64(texts[0]))
        rows.append(
            f"{model:<10}{embed_rate:>10,.0f}{ingest_rate:>10,.0f}"
            f"{1e6 / ingest_rate / 3600:>10.1f}{q50:>9.2f}{q99:>9.2f}{r50:>9.2f}"
            f"{r99:>9.2f}{after - before:>9.0f}{after:>8.0f}{size:>7}"
            f"{size * 1e6 / 2**20:>9,.0f}"
        )
        for n in (100_000, 1_000_000):
            p50, p99, mb = dense_scan(vectors.active().kept_dims, n)
            scans.append(f"{model:<10}{n:>10,}{p50:>9.1f}{p99:>9.1f}{mb:>9,.0f}")
    load = os.getloadavg()[0]
    print(
        f"\ncost (load average {load:.1f} on {os.cpu_count()} cores): ingest = promote_site "
        "of synthetic actions (1M h: extrapolated from that rate, not run);\nquery = "
        "embedding one request / embedding + re-ranking 50 stored vectors, ms;\nRSS: a "
        "process before and after loading the model, MB; vec: stored base64 chars an "
        "action, and MB at 1M"
    )
    print(
        f"{'model':<10}{'embed/s':>10}{'ingest/s':>10}{'1M h':>10}{'q p50':>9}{'q p99':>9}"
        f"{'rr p50':>9}{'rr p99':>9}{'+RSS MB':>9}{'RSS MB':>8}{'vec':>7}{'1M MB':>9}"
    )
    print("\n".join(rows))
    print("\ndense first stage: every stored vector scored (int8 in memory, numpy, 2 cores)")
    print(f"{'model':<10}{'actions':>10}{'p50 ms':>9}{'p99 ms':>9}{'MB':>9}")
    print("\n".join(scans))
