"""The learned mix of the first stage by meaning (registry.search.meaning FUSION "learned"): each
candidate (BM25's first CANDIDATES, then the ones the vector index found by meaning alone)
described by FEATURES, scored by a logistic model whose WEIGHTS are constants fitted on
training requests only (bench.learned_mix: ToolLens's official train split and MetaTool requests
left out of its test sample; never on a test request).

Every feature is worked out per request over its candidates, so it means the same whatever the
index's size or BM25's units: BM25's score min-max scaled over its candidates (0 for one found
by meaning alone) and its reciprocal rank, whether BM25 found it, the action's cosine with the
request and that less the best candidate's, its reciprocal rank by cosine, its site's cosine
(registry.index.vector_index: a site's vector from its description and its actions') and that
less the best, and the share of its name's words the request holds.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

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
)
# Fitted by bench.learned_mix (the bias last); see its docstring for the data.
# fmt: off
WEIGHTS = np.array([
    0.9584, 0.8367, 0.3324, 0.8525, 0.8525, 0.4872, 0.3053, 0.3053, 0.0639, 0.9192, 0.9192,
    -1.2739, -0.6869, 0.3489, 0.0,
])  # the first stage by meaning on (pairwise, L2 0.001)
RERANK_WEIGHTS = np.array([
    0.9518, 0.6215, 0.0, 1.1939, 1.1939, 0.5630, 0.0, 0.0, -0.0855, 0.9241, 0.9241,
    -1.3271, -0.2715, 0.7712, 0.0,
])  # the re-rank of BM25's candidates alone, the first stage off (no site cosine)
# fmt: on
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
) -> np.ndarray:
    """One row of FEATURES per candidate of ``top`` (its first ``words`` BM25's, best first),
    given each one's cosine, its site's and its best with a part of the request;
    ``request``: the request's analysed words."""
    n = len(top)
    out = np.zeros((n, len(FEATURES)), np.float64)
    scores = np.array([score for score, _ in top[:words]], np.float64)
    if words:
        low, high = scores.min(), scores.max()
        out[:words, 0] = (scores - low) / ((high - low) or 1.0)
        out[:words, 1] = 1.0 / (1.0 + np.arange(words))
        out[:words, 2] = 1.0
    out[:, 3] = cosines
    out[:, 4] = cosines - (cosines.max() if n else 0.0)
    order = np.empty(n, np.int64)
    order[np.argsort(-cosines, kind="stable")] = np.arange(n)
    out[:, 5] = 1.0 / (1.0 + order)
    out[:, 6] = site
    out[:, 7] = site - (site.max() if n else 0.0)
    asked = set(request)
    for i, (_, address) in enumerate(top):
        named = set(analyze(split_identifier(docs.doc(address).get_first("key") or "")))
        out[i, 8] = len(named & asked) / len(named) if named else 0.0
    out[:, 9] = facets
    out[:, 10] = facets - (facets.max() if n else 0.0)
    out[:words, 11] = np.log1p(np.arange(words)) / np.log(51)
    out[words:, 11] = 1.0
    out[:, 12] = np.log1p(order) / np.log(51)
    out[:, 13] = out[:, 0] * cosines
    return out


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


def scores(rows: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """Each candidate's probability of being wanted, 0..1, under ``weights`` (WEIGHTS)."""
    w = WEIGHTS if weights is None else weights
    chances: np.ndarray = 1.0 / (1.0 + np.exp(-(rows @ w[:-1] + w[-1])))
    return chances
