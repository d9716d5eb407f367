"""Sites, not only actions: site-level evidence in the ranking, and ``group=site``.

Every action's ``all`` text already holds its site's name and description, so BM25 sees what
a site says it is for; what one action cannot show is how much of its site matches. A site
whose manifest is about the request has several actions among the candidates, a site with one
stray matching word has one. So among the first CANDIDATES candidates, each site's best gains
SUPPORT x the scores of the site's next SUPPORTERS candidates, the k-th of them divided by k
(each more action says less: a site repeating one action 200 times, docs/RELIABILITY.md 30, gains
at most SUPPORT x 2.08 x its best score, and the per-site cap still holds). Only the best: the
gain ranks the site, whose best action stands for it; its other actions keep their own scores,
so a site that matches well does not crowd the page. The gain is in BM25's units and named in
``explain``. Measured (README, Benchmarks): larger gains, or a gain for every action of the
site, lost on ToolLens (0.3 of the tail: -0.02 NDCG@10), whose requests mostly want one
action of each of several sites; MetaTool has one action per site, so it cannot move.
"""

from __future__ import annotations

import heapq
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import tantivy

from registry.search.page import Docs, Hit, load, unfolded

CANDIDATES, SUPPORT, SUPPORTERS = 20, 0.05, 4
# An action whose endpoint did not answer its last liveness probe scores this much of its score,
# wherever it is among the candidates: below an equal one that answers, above a much weaker one.
UNREACHABLE = 0.5


def supported(docs: Docs, found: Sequence[tuple[float, tantivy.DocAddress]]) -> Iterator[Hit]:
    """``found`` (best first) as hits, best first, each site's best among the first
    CANDIDATES with its site's support, and every unreachable one demoted (``_demoted``)."""
    top = [load(docs, score, address) for score, address in found[:CANDIDATES]]
    top.sort(key=lambda hit: (-hit.score, hit.cross))  # at equal score, same origin first
    scores: dict[str, list[float]] = {}
    for hit in top:
        scores.setdefault(hit.site, []).append(hit.score)
    for hit in top:
        tail = scores.pop(hit.site, [])[1 : SUPPORTERS + 1]  # popped: only at its site's best
        hit.support = SUPPORT * sum(score / k for k, score in enumerate(tail, 1))
        hit.score += hit.support
    return _demoted(top, docs, found[CANDIDATES:])


def _demoted(
    top: list[Hit], docs: Docs, rest: Sequence[tuple[float, tantivy.DocAddress]]
) -> Iterator[Hit]:
    """``top`` then ``rest``, every unreachable hit at UNREACHABLE of its score, best first
    across all of them: a hit waits until no hit not yet loaded can score more (a demoted
    score is at most the score it had), so ``rest`` is read only as far as a page draws."""
    waiting: list[tuple[float, bool, int, Hit]] = []
    for order, hit in enumerate(top):
        heapq.heappush(waiting, (-_demote(hit), hit.cross, order, hit))
    for order, (score, address) in enumerate(rest, len(top)):
        while waiting and -waiting[0][0] >= score:
            yield heapq.heappop(waiting)[-1]
        hit = load(docs, score, address)
        heapq.heappush(waiting, (-_demote(hit), hit.cross, order, hit))
    while waiting:
        yield heapq.heappop(waiting)[-1]


def _demote(hit: Hit) -> float:
    if hit.live == "unreachable":  # it may be gone: below one that answers
        hit.score *= UNREACHABLE
    return hit.score


@dataclass
class SiteHits:
    """One site's entry of a ``group=site`` page: its best actions, best first."""

    site: str
    rank: int  # among the sites of the ranking, from 0
    hits: list[Hit] = field(default_factory=list)

    @property
    def score(self) -> float:
        return self.hits[0].score

    def json(self) -> bytes:
        actions = b",".join(hit.json() for hit in self.hits)
        return b'{"site":%s,"score":%s,"actions":[%s]}' % (
            json.dumps(self.site).encode(),
            repr(self.score).encode(),
            actions,
        )


def grouped(
    hits: Iterator[Hit], limit: int, offset: int, per_site: int
) -> tuple[list[SiteHits], bool]:
    """The sites [offset, offset + limit) in the order of their best hit, each with its
    first ``per_site`` hits (a flow's steps folded under it), and whether ``hits`` ran out
    before a page of sites was whole (more candidates may hold more). Stops drawing once
    every site up to the page's last has its ``per_site``: what follows could add to none."""
    want, full = offset + limit, 0
    sites: dict[str, SiteHits] = {}
    for hit in unfolded(hits):
        entry = sites.setdefault(hit.site, SiteHits(hit.site, len(sites)))
        if len(entry.hits) < per_site:
            entry.hits.append(hit)
            full += len(entry.hits) == per_site and entry.rank < want
            if full == want:
                break
    ordered = list(sites.values())
    return ordered[offset:want], len(ordered) < want
