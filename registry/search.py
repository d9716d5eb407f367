"""BM25 search over the action index: ``find(index, q)`` -> FindResponse.

The user's text never reaches tantivy's query parser (it chokes on quotes, colons, brackets):
it is split into plain words with the index's own analysis (identifier splitting, English
stemming) and the query is built from term queries, so no input can make it raise.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence

import tantivy

from registry.index import ActionIndex
from registry.index_docs import SCHEMA
from registry.schemas import FindResponse, FindResult
from registry.urls import split_identifier

# name and title say what an action is; type words and flow titles nearly as much; the
# description and parameter names add recall; site text mostly disambiguates.
FIELD_BOOSTS = {
    "name": 3.0, "title": 3.0, "type": 2.0, "flow": 2.0,
    "description": 1.0, "params": 0.7, "site_text": 0.5,
}
TIE_BREAKER = 0.3  # a word found in several fields scores a little above one found in one
MAX_TERMS = 32  # bounds the work one request can ask for, whatever the API lets through
MAX_LIMIT = 100
EXPANSION_WEIGHT = 0.4
# Action-verb expansion: agents say "buy", sites say "checkout" or "order".
SYNONYMS: dict[str, tuple[str, ...]] = {
    "buy": ("purchase", "order", "checkout"),
    "purchase": ("buy", "order", "checkout"),
    "order": ("buy", "purchase"),
    "checkout": ("buy", "purchase", "pay"),
    "pay": ("checkout", "payment"),
    "search": ("find", "lookup"),
    "find": ("search", "lookup"),
    "book": ("reserve", "reservation"),
    "reserve": ("book", "reservation"),
    "delete": ("remove",),
    "remove": ("delete",),
    "subscribe": ("signup", "newsletter"),
}
STOP_WORDS = frozenset({
    "a", "an", "and", "are", "as", "at", "be", "by", "can", "do", "for", "from", "how", "i",
    "in", "is", "it", "me", "my", "of", "on", "or", "the", "to", "want", "what", "with",
})
# Together these are tantivy's "en_stem" chain, which the text fields are indexed with; split
# so stop words and synonyms can be applied to the words before stemming.
_WORDS = (
    tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
    .filter(tantivy.Filter.remove_long(40))
    .filter(tantivy.Filter.lowercase())
    .build()
)
_STEM = tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.raw()).filter(
    tantivy.Filter.stemmer("english")
).build()


def query_words(q: str) -> list[str]:
    """Plain lower-case words of ``q``: identifiers split, stop words dropped if others remain."""
    words = list(dict.fromkeys(_WORDS.analyze(split_identifier(q))))[:MAX_TERMS]
    return [w for w in words if w not in STOP_WORDS] or words


def _stem(word: str) -> str:
    return _STEM.analyze(word)[0]


# Keyed by stem, so "searching" expands like "search".
_EXPANSIONS = {_stem(k): tuple(_stem(v) for v in vs) for k, vs in SYNONYMS.items()}


def weighted_terms(words: Sequence[str]) -> dict[str, float]:
    """Stemmed index terms with their weight: the words themselves, then their synonyms."""
    terms = {_stem(w): 1.0 for w in words}
    for stem in list(terms):
        for synonym in _EXPANSIONS.get(stem, ()):
            terms.setdefault(synonym, EXPANSION_WEIGHT)
    return terms


def _text_query(terms: dict[str, float]) -> tantivy.Query:
    clauses = []
    for term, weight in terms.items():
        fields = [
            tantivy.Query.boost_query(tantivy.Query.term_query(SCHEMA, name, term), boost)
            for name, boost in FIELD_BOOSTS.items()
        ]
        best = tantivy.Query.disjunction_max_query(fields, TIE_BREAKER)
        if weight != 1.0:
            best = tantivy.Query.boost_query(best, weight)
        clauses.append((tantivy.Occur.Should, best))
    return tantivy.Query.boolean_query(clauses)


def _term(field: str, value: str) -> tantivy.Query:
    return tantivy.Query.term_query(SCHEMA, field, value)


def build_query(
    terms: dict[str, float], effects: Sequence[str] | None, site: str | None, cross_origin: bool
) -> tantivy.Query:
    """The text query, with filters as MUST / MUST_NOT clauses (they do not add to the score)."""
    clauses = [(tantivy.Occur.Must, _text_query(terms))]
    if effects:
        any_effect = [(tantivy.Occur.Should, _term("effect", e)) for e in dict.fromkeys(effects)]
        clauses.append((tantivy.Occur.Must, tantivy.Query.boolean_query(any_effect)))
    if site:
        clauses.append((tantivy.Occur.Must, _term("site", site.lower())))
    if not cross_origin:
        # Endpoints on another registrable domain are left out of default results (DESIGN.md).
        clauses.append((tantivy.Occur.MustNot, _term("same_origin", "false")))
    return tantivy.Query.boolean_query(clauses)


def find(
    index: ActionIndex,
    q: str,
    *,
    limit: int = 10,
    effects: list[str] | None = None,
    site: str | None = None,
    cross_origin: bool = False,
) -> FindResponse:
    """The best ``limit`` actions and flows for ``q``, scored by BM25. Never raises on ``q``."""
    started = time.perf_counter()
    results: list[FindResult] = []
    words = query_words(q)
    if words:
        searcher = index.searcher()
        query = build_query(weighted_terms(words), effects, site, cross_origin)
        # tantivy panics on a limit of 0, so clamp rather than trust the caller.
        hits = searcher.search(query, max(1, min(limit, MAX_LIMIT))).hits
        results = [_result(searcher, score, address) for score, address in hits]
    took_ms = round((time.perf_counter() - started) * 1000, 3)
    return FindResponse(query=q, results=results[: max(limit, 0)], took_ms=took_ms)


def _result(searcher: tantivy.Searcher, score: float, address: tantivy.DocAddress) -> FindResult:
    payload = json.loads(searcher.doc(address).get_first("payload"))
    return FindResult.model_validate({**payload, "score": float(score)})
