"""A sentence's candidates found and ranked by meaning as well as by words (the vectors of
registry.index.vectors, searched by registry.index.vector_index).

A request of MIN_WORDS words or more (filler aside) is a sentence, which often shares no word
with the action it needs. Its candidates are its first CANDIDATES by BM25 (``by_meaning``)
and, when the index keeps vectors (ACTIONDEX_MEANING_FIRST_STAGE on, off by default:
``with_vectors``), the VECTOR_ACTIONS actions nearest it by meaning and the nearest action of each
of the VECTOR_SITES sites nearest it (a site's vector: its description and its actions'), so an
action whose words never meet the request's is a candidate too. With the site stage alone
(ACTIONDEX_MEANING_SITES, on by default: a vector index that scans the sites' vectors only),
``by_meaning`` adds the nearest action of each of the VECTOR_SITES sites nearest the request to
BM25's, placed among them by the re-rank's model. Each candidate is then scored
by the learned mix (registry.search.learned, RERANK and FUSION "learned", the defaults: the
re-rank's small net, the first stage's logistic model) over its BM25 score and rank, its cosine
with the request (the request's parts' too), its site's and its name's words, fitted on training
requests (bench.learned_mix), which puts it at ``low + spread x its chance of being wanted``
(the net's: its score as a share of the best candidate's; low: the last BM25 candidate's score,
spread: the BM25 candidates' range), above every hit past the candidates, so ``explain`` still
sums to the score; it may lower a candidate. The fixed mix ("mix") instead adds to each its
meaning (the cosine of its vector with the request's, SITE_SHARE of it its site's; 0 if negative)
times the spread times WEIGHT: 0.5 x min-max-normalised BM25 + 0.5 x meaning, in BM25's units;
a candidate found by meaning alone starts from the last BM25 candidate's score (its own BM25
score, often 0, normalised below 0 would count against it twice). Short requests ("buy printer
paper") name the action in their own words and are left as BM25 ranks them. WEIGHT chosen on
ToolLens, confirmed on MetaTool; VECTOR_ACTIONS, VECTOR_SITES and SITE_SHARE on their training
splits (README, Benchmarks). FUSION "rrf" fuses the BM25 and the meaning ranks instead
(``_fused``): tried on both training sets (bench.fusion_bench), it lost on ToolLens's. Under
e5 (ACTIONDEX_MEANING_MODEL) the fixed mix, the learned one being fitted on WordLlama's cosines
(learned.FITTED_FOR), and e5's cosines are first min-max scaled over the candidates
(``_rescaled``); a vector of the other model (another length) counts as none.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import tantivy

from registry.index import vectors
from registry.index.documents import SCHEMA
from registry.index.text import analyze
from registry.index.vector_index import VectorIndex
from registry.search import learned
from registry.search.page import Docs

MIN_WORDS, CANDIDATES, WEIGHT = 5, 50, 1.0
VECTOR_ACTIONS, VECTOR_SITES, SITE_SHARE = 50, 10, 0.3
FUSION, RRF_K, RRF_WEIGHT = "learned", 60, 1.0  # "rrf": ranks fused (``_fused``), not scores
# "learned": registry.search.learned's model scores the candidates (FUSION: the first stage's,
# RERANK: the re-rank of BM25's alone, the first stage off)
RERANK = "learned"
MIN_COSINE = 0.2  # what a short request's nearest actions need to fill its page

Found = list[tuple[float, tantivy.DocAddress]]
Bonus = dict[tuple[int, int], float]  # (segment, doc) -> what meaning added


def is_sentence(words: Sequence[str]) -> bool:
    return len(words) >= MIN_WORDS


def _key(address: tantivy.DocAddress) -> tuple[int, int]:
    return address.segment_ord, address.doc


def by_meaning(
    searcher: tantivy.Searcher | Docs,
    q: str,
    found: Found,
    near: VectorIndex | None = None,
    filters: Sequence[tuple[tantivy.Occur, tantivy.Query]] = (),
) -> tuple[Found, Bonus]:
    """``found`` with its first CANDIDATES re-scored by meaning, and what each of them
    gained (without the first stage by meaning, ACTIONDEX_MEANING_FIRST_STAGE off). ``near``
    (the site stage, a vector index of sites only): the nearest action of each of the
    VECTOR_SITES sites nearest ``q`` that meets ``filters`` is a candidate too, found by its
    site's meaning alone. The re-scored ones stay above the rest (the fixed mix's gain is
    never negative, the learned mix's scores start from the last candidate's), whose order
    and scores are untouched."""
    words = found[:CANDIDATES]
    model = vectors.active()
    stored = [searcher.doc(address).get_first("vec") for _, address in words]
    present = [v is not None and len(v) == model.stored_bytes for v in stored]
    searched = near is not None and len(near) > 0
    if (len(words) < 2 or not any(present)) and not searched:
        return found, {}  # nothing to reorder, or the request need not even be embedded
    request = model.query(q)
    top = words
    if near is not None and searched:
        more = _by_vectors(searcher, near, request, None, filters, words)
        top = words + more
        stored += [searcher.doc(address).get_first("vec") for _, address in more]
    present = [v is not None and len(v) == model.stored_bytes for v in stored]
    if len(top) < 2 or not any(present):
        return found, {}
    cosines = vectors.similarities(request, stored)
    if model.rescale:
        cosines = _rescaled(cosines, np.array(present, bool))
    high, low = (words[0][0], words[-1][0]) if words else (1.0, 0.0)
    spread = (high - low) or high or 1.0
    if RERANK == "learned" and model.name in learned.FITTED_FOR:
        facets = learned.facet_cosines(q, stored, cosines)
        # Gaps and ranks by cosine over BM25's candidates: the sites' are placed among them.
        # No site cosines: weighed by a refit, they lost on training requests (README).
        rows = learned.features(
            searcher, analyze(q), top, len(words), cosines, 0 * cosines, facets, len(words)
        )
        chances = learned.RERANK_NET.chances(rows)
        return _rescored(found, top, len(words), low, spread, chances)
    bonus = {
        _key(address): max(low - score, 0.0) + WEIGHT * spread * max(float(cosine), 0.0)
        for (score, address), cosine in zip(top, cosines, strict=True)
    }
    return _merged(found, top, len(words), bonus), bonus


def _merged(found: Found, top: Found, words: int, bonus: Bonus) -> Found:
    """``top`` re-scored by ``bonus``, best first, then the rest of ``found`` past its first
    ``words`` (BM25's candidates) without the ones ``top`` holds already."""
    rescored = sorted(
        ((score + bonus[_key(address)], address) for score, address in top),
        key=lambda pair: -pair[0],
    )
    return rescored + [pair for pair in found[words:] if _key(pair[1]) not in bonus]


def with_vectors(
    searcher: tantivy.Searcher | Docs,
    q: str,
    found: Found,
    near: VectorIndex,
    scored: tantivy.Query | None = None,
    filters: Sequence[tuple[tantivy.Occur, tantivy.Query]] = (),
) -> tuple[Found, Bonus]:
    """ACTIONDEX_MEANING_FIRST_STAGE on: ``found`` with its first CANDIDATES, and the
    candidates ``near`` finds by meaning
    (``filters``: the clauses they must meet; ``scored``: the BM25 query that scores them, for
    ``explain`` only: a candidate found by meaning alone scores below the last BM25 candidate,
    so without it they count as 0, and all start from that candidate's score anyway),
    re-scored by meaning, and what each of them gained. The re-scored ones stay above the
    rest, whose order and scores are untouched."""
    top = found[:CANDIDATES]
    model = vectors.active()
    stored = [searcher.doc(address).get_first("vec") for _, address in top]
    present = np.array([v is not None and len(v) == model.stored_bytes for v in stored], bool)
    searched = len(near) > 0
    if not present.any() and not searched:
        return found, {}  # none of this model's vectors: the request is not even embedded
    request = model.query(q)
    if searched:
        more = _by_vectors(searcher, near, request, scored, filters, top)
        top = top + more
        stored += [searcher.doc(address).get_first("vec") for _, address in more]
        present = np.array([v is not None and len(v) == model.stored_bytes for v in stored], bool)
    if not present.any() or (len(top) < 2 and len(top) == len(found[:CANDIDATES])):
        return found, {}  # one candidate of words alone: nothing to reorder
    cosines = vectors.similarities(request, stored)
    if model.rescale:
        cosines = _rescaled(cosines, present)
    words = found[:CANDIDATES]
    high, low = (words[0][0], words[-1][0]) if words else (1.0, 0.0)
    spread = (high - low) or high or 1.0
    site = np.zeros(len(top))
    if SITE_SHARE or FUSION == "learned":
        hosts = [searcher.doc(address).get_first("site") or "" for _, address in top]
        of_site = near.site_cosines(request, hosts)
        site = np.array([of_site[h] for h in hosts])
    mixed = (1 - SITE_SHARE) * cosines + SITE_SHARE * site
    if FUSION == "learned" and model.name in learned.FITTED_FOR:
        facets = learned.facet_cosines(q, stored, cosines)
        rows = learned.features(searcher, analyze(q), top, len(words), cosines, site, facets)
        bonus = _learned_bonus(top, low, spread, learned.scores(rows))
    elif FUSION == "rrf":
        bonus = _fused(top, mixed, len(words), low, spread)
    else:
        bonus = {
            _key(address): max(low - score, 0.0) + WEIGHT * spread * max(float(cosine), 0.0)
            for (score, address), cosine in zip(top, mixed, strict=True)
        }
    return _merged(found, top, len(words), bonus), bonus


def _learned_bonus(top: Found, low: float, spread: float, chances: np.ndarray) -> Bonus:
    """What each of ``top`` gains when its score becomes ``low`` + ``spread`` x its chance of
    being wanted (registry.search.learned): still above every candidate past them."""
    return {
        _key(address): low + spread * float(chance) - score
        for (score, address), chance in zip(top, chances, strict=True)
    }


def _rescored(
    found: Found, top: Found, words: int, low: float, spread: float, chances: np.ndarray
) -> tuple[Found, Bonus]:
    bonus = _learned_bonus(top, low, spread, chances)
    return _merged(found, top, words, bonus), bonus


def after_words(
    searcher: tantivy.Searcher | Docs,
    q: str,
    found: Found,
    near: VectorIndex,
    filters: Sequence[tuple[tantivy.Occur, tantivy.Query]] = (),
) -> tuple[Found, Bonus]:
    """For a short request whose words found too few: ``found`` as BM25 ranked it, then the
    actions nearest it by meaning (their cosine, at least MIN_COSINE), each scored below the
    last word match (its cosine times that score, or the cosine alone when none matched)."""
    request = vectors.active().query(q)
    floor = found[-1][0] if found else 1.0
    extra = _by_vectors(searcher, near, request, None, filters, found)
    stored = [searcher.doc(address).get_first("vec") for _, address in extra]
    cosines = vectors.similarities(request, stored)
    more = [
        (floor * float(cosine), address)
        for (_, address), cosine in zip(extra, cosines, strict=True)
        if cosine >= MIN_COSINE
    ]
    more.sort(key=lambda pair: -pair[0])
    return found + more, {_key(address): score for score, address in more}


def _by_vectors(
    searcher: tantivy.Searcher | Docs,
    near: VectorIndex,
    request: np.ndarray,
    scored: tantivy.Query | None,
    filters: Sequence[tuple[tantivy.Occur, tantivy.Query]],
    top: Found,
) -> Found:
    """The actions ``near`` finds for ``request`` that meet ``filters`` and are not in
    ``top`` yet, each with its BM25 score (0 when it shares no word)."""
    hits = near.search(request, VECTOR_ACTIONS, VECTOR_SITES)
    ids = list(dict.fromkeys(hits.ids + hits.best_of_sites))
    if not ids:
        return []
    chosen = tantivy.Query.boost_query(tantivy.Query.term_set_query(SCHEMA, "id", ids), 0.0)
    words = [(tantivy.Occur.Should, scored)] if scored is not None else []
    query = tantivy.Query.boolean_query([(tantivy.Occur.Must, chosen), *words, *filters])
    known = {_key(address) for _, address in top}
    found = searcher.search(query, len(ids), count=False).hits
    return [(float(score), address) for score, address in found if _key(address) not in known]


def _fused(top: Found, cosines: np.ndarray, words: int, low: float, spread: float) -> Bonus:
    """Reciprocal rank fusion: each candidate's 1 / (RRF_K + its BM25 rank) (the first
    ``words`` of ``top``; none for one found by meaning alone) plus RRF_WEIGHT / (RRF_K + its
    rank by ``cosines`` among all of them), mapped onto low .. low + spread (the best possible
    fused score at the top), so every candidate stays above the BM25 hits past them. What a
    candidate gains is its new score less its BM25 one: below 0 for one meaning ranks low."""
    by_cosine = np.empty(len(top), np.int64)
    by_cosine[np.argsort(-cosines, kind="stable")] = np.arange(len(top))
    best = (1 + RRF_WEIGHT) / (RRF_K + 1)
    bonus = {}
    for i, (score, address) in enumerate(top):
        fused = (1 / (RRF_K + i + 1) if i < words else 0.0) + RRF_WEIGHT / (
            RRF_K + by_cosine[i] + 1
        )
        bonus[_key(address)] = low + spread * fused / best - score
    return bonus


def _rescaled(cosines: np.ndarray, present: np.ndarray) -> np.ndarray:
    """The candidates' cosines min-max scaled to 0..1 (those without a vector stay 0): e5's
    cosines crowd into a narrow band (0.75-0.86 for one request against 199 tools), so raw
    they add nearly the same to every candidate and reorder little."""
    low, high = cosines[present].min(), cosines[present].max()
    return np.where(present, (cosines - low) / ((high - low) or 1.0), 0.0)


def explained(bonus: Bonus, address: tantivy.DocAddress) -> list[dict[str, Any]]:
    """The part of an ``explain`` list that meaning added to the hit at ``address``: none when
    meaning did not score it, 0 when it did and left its score (the learned re-rank's first
    candidate, when it is also BM25's)."""
    gain = bonus.get(_key(address))
    if gain is None:
        return []
    return [{"term": "(meaning)", "field": "vec", "weight": 1.0, "score": round(gain, 4)}]
