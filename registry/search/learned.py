"""The learned mix of meaning and words (registry.search.meaning): with the first stage by
meaning on (FUSION "learned"), BM25's first CANDIDATES and the ones the vector index found by
meaning alone; off (RERANK "learned"), BM25's alone. Each candidate is described by FEATURES and
scored by a model fitted on training requests only (bench.learned_mix: ToolLens's official
train split and MetaTool requests left out of its test sample; never on a test request): the
first stage's, a logistic model whose weights (WEIGHTS) are constants here; the re-rank's, a
small net (Net, RERANK_NET) read from rerank_net.json beside this file.

Every feature is worked out per request over its candidates, so it means the same whatever the
index's size or BM25's units: BM25's score min-max scaled over its candidates and as a share of
the first's (0 for one found by meaning alone: it is not asked for one without ``explain``), its
reciprocal and log rank, whether BM25 found it, the action's cosine with the request, that less
the best candidate's and its ranks by cosine, its site's cosine (registry.index.vector_index: a
site's vector from its description and its actions'; 0 with the first stage off) and that less
the best, its best cosine with one part of the request (``facet_cosines``: a request that asks
for several things, "..., and searching for nutrition information") and that less the best, the
share of its name's words the request holds, and BM25's scaled score times the cosine.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import tantivy

from registry.index import vectors
from registry.index.text import analyze
from registry.model.identifiers import split_identifier
from registry.search.page import Docs

FEATURES = (
    "bm25",
    "bm25_rr",
    "by_words",
    "cosine",
    "cosine_gap",
    "cosine_rr",
    "site_cosine",
    "site_gap",
    "name_words",
    "facet_cosine",
    "facet_gap",
    "bm25_log_rank",
    "cosine_log_rank",
    "bm25_x_cosine",
    "bm25_of_top",
)
# The first stage's, fitted by bench.learned_mix (the bias last) on training requests only: a
# seeded 2,000 of ToolLens's train split and 2,000 of MetaTool's single-tool requests outside
# its test sample, chosen (pointwise or pairwise, L2) on 1,000 other training requests of each.
# fmt: off
# Refitted for WordLlama's 128 dimensions (README, "Wider vectors for the re-rank").
WEIGHTS = np.array([
    0.1545, 0.7759, -0.0447, 1.2004, 1.2004, 0.5776, 0.3227, 0.3227,
    -0.1263, 1.1712, 1.1712, -1.3230, -0.7981, -0.4215, 1.0606, 0.0,
])  # the first stage by meaning on (pairwise, L2 0.0001: no bias)
# fmt: on
FITTED_FOR = ("wordllama",)  # the meaning models whose cosines they were fitted on
# The re-rank's net (the first stage off, ACTIONDEX_MEANING_SITES on: BM25's candidates and the
# site stage's), fitted by bench.learned_mix --sites --write; see Net.
RERANK_FILE = Path(__file__).with_name("rerank_net.json")
_ARRAYS = ("mean", "scale", "hidden", "hidden_bias", "out", "linear")  # a Net's, in its file
# A request's parts ("..., and searching for nutrition information"): each is embedded alone.
_JOINS = r"(?:and|then|also|plus|as well as|while)"
_PARTS = re.compile(rf"[,;.!?]\s+(?:{_JOINS}\s+)?|\s+{_JOINS}\s+", re.I)
MAX_PARTS = 4

Found = list[tuple[float, tantivy.DocAddress]]


def features(
    docs: tantivy.Searcher | Docs,
    request: Sequence[str],
    top: Found,
    words: int,
    cosines: np.ndarray,
    site: np.ndarray,
    facets: np.ndarray,
    pool: int | None = None,
) -> np.ndarray:
    """One row of FEATURES per candidate of ``top`` (its first ``words`` BM25's, best first),
    given each one's cosine, its site's and its best with a part of the request;
    ``request``: the request's analysed words. ``pool``: the gaps to the best and the ranks by
    cosine are taken over the first ``pool`` candidates only (default: all), so the ones past
    them (the site stage's) are placed among them without moving their features."""
    n = len(top)
    pool = pool or n
    out = np.zeros((n, len(FEATURES)), np.float64)
    scores = np.array([score for score, _ in top[:words]], np.float64)
    high = scores.max() if words else 0.0
    if words:
        low = scores.min()
        out[:words, 0] = (scores - low) / ((high - low) or 1.0)
        out[:words, 1] = 1.0 / (1.0 + np.arange(words))
        out[:words, 2] = 1.0
    out[:, 3] = cosines
    out[:, 4] = cosines - (cosines[:pool].max() if pool else 0.0)
    order = np.empty(n, np.int64)
    order[np.argsort(-cosines[:pool], kind="stable")] = np.arange(pool)
    if n > pool:  # each later one: how many of the pool's cosines are above its own
        ascending = np.sort(cosines[:pool])
        order[pool:] = pool - np.searchsorted(ascending, cosines[pool:], side="right")
    out[:, 5] = 1.0 / (1.0 + order)
    out[:, 6] = site
    out[:, 7] = site - (site[:pool].max() if pool else 0.0)
    asked = set(request)
    for i, (_, address) in enumerate(top):
        named = _name_words(docs.doc(address).get_first("key") or "")
        out[i, 8] = len(named & asked) / len(named) if named else 0.0
    out[:, 9] = facets
    out[:, 10] = facets - (facets[:pool].max() if pool else 0.0)
    out[:words, 11] = np.log1p(np.arange(words)) / np.log(51)
    out[words:, 11] = 1.0
    out[:, 12] = np.log1p(order) / np.log(51)
    out[:, 13] = out[:, 0] * cosines
    if words and high > 0:  # how far behind the first it is, not the fiftieth
        out[:words, 14] = np.maximum(scores, 0.0) / high
    return out


@functools.lru_cache(maxsize=1 << 16)
def _name_words(key: str) -> frozenset[str]:
    """An action name's analysed words, kept: the same names come back request after request
    (50 analyses a request cost a third of a millisecond)."""
    return frozenset(analyze(split_identifier(key)))


def facet_cosines(q: str, stored: list[bytes | None], cosines: np.ndarray) -> np.ndarray:
    """Each stored vector's best cosine with one part of ``q`` (its words split at commas,
    "and" and the like; MAX_PARTS of them, of two words or more), or with the whole
    (``cosines``) when it has one part."""
    parts = [p for p in _PARTS.split(q) if len(p.split()) >= 2][:MAX_PARTS]
    best = cosines.copy()
    if len(parts) > 1:
        for part in parts:
            best = np.maximum(best, vectors.similarities(vectors.query(part), stored))
    return best


@dataclass(frozen=True)
class Net:
    """The re-rank's model: over a request's candidates' FEATURES (each standardised by
    ``mean`` and ``scale``), a score = tanh(z @ hidden + hidden_bias) @ out + z @ linear, fitted
    listwise (ListNet: the softmax of a request's scores against its wanted candidates), so only
    the differences between one request's scores mean anything. Measured on held-out training
    requests, a linear model of the same features fitted so gained nothing; 32 hidden units did
    (README, "A small net for the re-rank"). No hidden units: a linear model."""

    mean: np.ndarray
    scale: np.ndarray
    hidden: np.ndarray  # (features, units)
    hidden_bias: np.ndarray  # (units,)
    out: np.ndarray  # (units,)
    linear: np.ndarray  # (features,)
    fitted: str = ""  # how and on what (bench.learned_mix)

    def raw(self, rows: np.ndarray) -> np.ndarray:
        z = (rows - self.mean) / self.scale
        score: np.ndarray = np.tanh(z @ self.hidden + self.hidden_bias) @ self.out + z @ self.linear
        return score

    def chances(self, rows: np.ndarray) -> np.ndarray:
        """Each candidate's score as a share of the best's, 0..1 (the best: 1): 1 / (1 + how
        far below the best's its raw score is). The order is the net's. Not the softmax it was
        fitted with: that crowds all but the first few at the bottom, where a site's other
        candidates' support (registry.search.sites) then weighs more; on held-out training
        requests this kept 0.0007 more of the mean NDCG@10 (README)."""
        raw = self.raw(rows)
        share: np.ndarray = 1.0 / (1.0 + (raw.max() - raw)) if len(raw) else raw
        return share

    def json(self) -> str:
        """rerank_net.json's text: a key a line, the hidden weights a feature a line."""
        body = {name: np.round(getattr(self, name), 6).tolist() for name in _ARRAYS}
        items = {"features": list(FEATURES), "fitted": self.fitted, **body}
        lines = [f"{json.dumps(key)}: {json.dumps(value)}" for key, value in items.items()]
        hidden = ",\n  ".join(json.dumps(row) for row in body["hidden"])
        lines[list(items).index("hidden")] = f'"hidden": [\n  {hidden}\n]'
        return "{\n" + ",\n".join(lines) + "\n}\n"

    @classmethod
    def read(cls, path: Path) -> Net:
        data = json.loads(path.read_text())
        if tuple(data["features"]) != FEATURES:
            raise ValueError(f"{path} was fitted for other features: {data['features']}")
        units = len(data["out"])
        arrays = {name: np.array(data[name], np.float64) for name in _ARRAYS}
        net = cls(
            arrays["mean"],
            arrays["scale"],
            arrays["hidden"].reshape(len(FEATURES), units),
            arrays["hidden_bias"],
            arrays["out"],
            arrays["linear"],
            fitted=data.get("fitted", ""),
        )
        shapes = (net.mean.shape, net.scale.shape, net.linear.shape, net.hidden_bias.shape)
        if shapes != ((len(FEATURES),),) * 3 + ((units,),):
            raise ValueError(f"{path}: arrays of the wrong size")
        return net


RERANK_NET = Net.read(RERANK_FILE)


def scores(rows: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """Each candidate's probability of being wanted, 0..1, under ``weights`` (WEIGHTS)."""
    w = WEIGHTS if weights is None else weights
    chances: np.ndarray = 1.0 / (1.0 + np.exp(-(rows @ w[:-1] + w[-1])))
    return chances
