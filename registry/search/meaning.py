"""A sentence's BM25 candidates re-ranked by meaning (the vectors of registry.index.vectors).

A request of MIN_WORDS words or more (filler aside) is a sentence, which often shares no word
with the action it needs. Its first CANDIDATES BM25 candidates each gain the cosine of their
vector with the request's (0 if negative), times the spread of the candidates' BM25 scores,
times WEIGHT. That is 0.5 x min-max-normalised BM25 + 0.5 x cosine, in BM25's units, so
``explain`` still sums to the score. Short requests ("buy printer paper") name the action in
their own words and are left as BM25 ranks them. Chosen on ToolLens, confirmed on the
held-out MetaTool set (README, Benchmarks). Under either meaning model (ACTIONDEX_MEANING_MODEL)
the same, but e5's cosines are first min-max scaled over the candidates (``_rescaled``); a
vector of the other model (another length) counts as none.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import tantivy

from registry.index import vectors
from registry.search.page import Docs

MIN_WORDS, CANDIDATES, WEIGHT = 5, 50, 1.0

Found = list[tuple[float, tantivy.DocAddress]]
Bonus = dict[tuple[int, int], float]  # (segment, doc) -> what meaning added


def is_sentence(words: Sequence[str]) -> bool:
    return len(words) >= MIN_WORDS


def _key(address: tantivy.DocAddress) -> tuple[int, int]:
    return address.segment_ord, address.doc


def by_meaning(searcher: tantivy.Searcher | Docs, q: str, found: Found) -> tuple[Found, Bonus]:
    """``found`` with its first CANDIDATES re-scored by meaning, and what each of them
    gained. The gain is never negative, so the re-scored ones stay above the rest, whose
    order and scores are untouched."""
    top = found[:CANDIDATES]
    if len(top) < 2:
        return found, {}
    stored = [searcher.doc(address).get_first("vec") for _, address in top]
    model = vectors.active()
    present = np.array([v is not None and len(v) == model.stored_bytes for v in stored])
    if not present.any():
        return found, {}  # none of this model's vectors: the request is not even embedded
    cosines = vectors.similarities(model.query(q), stored)
    if model.rescale:
        cosines = _rescaled(cosines, present)
    high, low = top[0][0], top[-1][0]
    spread = (high - low) or high
    bonus = {
        _key(address): WEIGHT * spread * max(float(cosine), 0.0)
        for (_, address), cosine in zip(top, cosines, strict=True)
    }
    rescored = sorted(
        ((score + bonus[_key(address)], address) for score, address in top),
        key=lambda pair: -pair[0],
    )
    return rescored + found[len(top) :], bonus


def _rescaled(cosines: np.ndarray, present: np.ndarray) -> np.ndarray:
    """The candidates' cosines min-max scaled to 0..1 (those without a vector stay 0): e5's
    cosines crowd into a narrow band (0.75-0.86 for one request against 199 tools), so raw
    they add nearly the same to every candidate and reorder little."""
    low, high = cosines[present].min(), cosines[present].max()
    return np.where(present, (cosines - low) / ((high - low) or 1.0), 0.0)


def explained(bonus: Bonus, address: tantivy.DocAddress) -> list[dict[str, Any]]:
    """The part of an ``explain`` list that meaning added to the hit at ``address``, if any."""
    gain = bonus.get(_key(address), 0.0)
    if gain <= 0:
        return []
    return [{"term": "(meaning)", "field": "vec", "weight": 1.0, "score": round(gain, 4)}]
