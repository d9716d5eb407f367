"""Planning a query's terms: which (term, field) pairs to score and with what weight, which
terms are common (scored, never required), and the tantivy query built from them with the
filters (``build_query``, or ``all_words_first`` for a request of common words only).

The user's text never reaches tantivy's query parser (it chokes on quotes, colons, brackets):
the query is built from term queries over the index's own analysis (registry.index.text), so
no input can make it raise. ``registry.search.query`` runs the plan for one page.
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet

import tantivy

from registry.index.text import ACTION_VERBS, weighted_terms
from registry.search.contract import FindQuery
from registry.search.filters import filter_clauses, term_query

# Every word is scored by BM25 over ``all`` (every text field of the action in one), which
# normalises length over the whole action; splitting the score per field with dismax and
# boosts let short fields (a name, a title) win on a single word and measured clearly worse
# on ToolLens (NDCG@10 0.30 against 0.35). A small extra for the query's own words met in a
# parameter (what the action takes) helped there (+0.01); expansions are scored on ``all``
# only, since every extra (term, field) pair is another posting list to walk.
# ``about`` holds the publisher's whole text (registry.model.schemas Action.about, the site's too),
# which ``all`` holds only up to its display cap: scored on its own, with its own length norm,
# so thousands of characters of a plugin's description_for_model neither dilute ``all`` nor
# go unread (MetaTool's requests over the plugin-store sites, Success@5 over sites: 0.697
# without it, 0.689 with it in ``all``, 0.702 / 0.714 / 0.718 / 0.713 boosted 0.2 / 0.5 / 1 /
# 1.5 here).
FIELD_BOOSTS = {"all": 1.0, "params": 0.2, "about": 1.0}
# A request that starts with an action verb ("order printer paper", "book a table") names
# the action it wants: that verb met in an action's name or title marks the action that
# does it, above one that merely mentions the object. Only the leading verb: in a sentence
# that describes a situation, verbs further on are mostly context. Only in a short request:
# a long one ("find a hotel near the venue, the weather there on Friday and a taxi from the
# airport") asks for several things, and its first verb names one of them at most (often a
# generic "find" or "check"); boosting the actions named by it pushes one part over the rest.
HEAD_VERB_BOOST, HEAD_VERB_MAX_WORDS = 2.5, 6
# Common terms (Lucene's CommonTermsQuery): a term in more than COMMON_SHARE of all documents
# has a small BM25 weight (low IDF) and the longest posting list there is. An expansion that
# common is left out: it costs the most and changes the order least. A common word of the
# query itself only adds to the score of documents that match one of its rarer words, when
# it has any, so its long list is skipped through, not walked. Lists shorter than
# CHEAP_POSTINGS cost little: small indexes are searched as plain unions.
COMMON_SHARE, CHEAP_POSTINGS = 0.05, 10_000
# A request of common words only is first searched for the documents holding all of them,
# when about this many times the candidates it needs are expected to (see all_words_first).
ALL_WORDS_MARGIN, ALL_WORDS_LEAD = 8, 0.25


def term_parts(terms: dict[str, float]) -> dict[tuple[str, str], tuple[float, tantivy.Query]]:
    """(term, field) -> (the term's weight, its weighted, boosted query)."""
    parts = {
        (term, name): (weight, tantivy.Query.boost_query(term_query(name, term), boost * weight))
        for term, weight in terms.items()
        for name, boost in FIELD_BOOSTS.items()
        if weight == 1.0 or name == "all"
    }
    lead = next(iter(terms), "")  # the first word: "order printer paper", "book a table"
    short = sum(weight == 1.0 for weight in terms.values()) <= HEAD_VERB_MAX_WORDS
    for term in [lead] if short and lead in ACTION_VERBS else []:
        # A boosted term query, not a constant score: anything but term scorers in the
        # clause list moves tantivy off its specialised term union (measured 2x slower at 1M).
        query = tantivy.Query.boost_query(term_query("head", term), HEAD_VERB_BOOST)
        parts[(term, "head")] = (terms[term], query)
    return parts


def _useful(
    searcher: tantivy.Searcher, terms: dict[str, float], freq: dict[tuple[str, str], int]
) -> tuple[dict[str, float], set[str]]:
    """The terms worth scoring, and which of them are common (in more documents than
    COMMON_SHARE of them, and more than CHEAP_POSTINGS). Fills ``freq`` (doc_freq by
    (term, field)) for ``_live``."""
    limit = max(COMMON_SHARE * searcher.num_docs, CHEAP_POSTINGS)
    for t in terms:
        freq[(t, "all")] = searcher.doc_freq("all", t)
    common = {t for t in terms if freq[(t, "all")] > limit}
    useful = {t: w for t, w in terms.items() if w == 1.0 or t not in common}
    if all(t in common or not freq[(t, "all")] for t, w in useful.items() if w == 1.0):
        # No rare word of the query's own that any document holds: a rare synonym ("discover"
        # for "search") must not become the word every result needs, or "search printer
        # paper" finds only the actions that say "discover".
        common = set(useful)
    return useful, common


def _live(
    searcher: tantivy.Searcher,
    parts: dict[tuple[str, str], tuple[float, tantivy.Query]],
    freq: dict[tuple[str, str], int],
) -> dict[tuple[str, str], tuple[float, tantivy.Query]]:
    """``parts`` without the (term, field) pairs no document holds. They add nothing to any
    score, and one left among the rare terms would count as a rare word of the query: a
    synonym no action uses ("lookup") made "search printer paper" at 1M actions require
    it beside its common words, and so match nothing."""
    for term, name in parts.keys() - freq.keys():
        freq[(term, name)] = searcher.doc_freq(name, term)
    return {key: part for key, part in parts.items() if freq[key] > 0}


# (term parts worth scoring, the common terms, doc_freq by (term, field)): what planned answers
Planned = tuple[
    dict[tuple[str, str], tuple[float, tantivy.Query]], set[str], dict[tuple[str, str], int]
]


def planned(searcher: tantivy.Searcher, words: list[str]) -> Planned:
    """(term parts worth scoring, the common terms, doc_freq by (term, field)) of ``words``."""
    freq: dict[tuple[str, str], int] = {}
    terms, common = _useful(searcher, weighted_terms(words), freq)
    return _live(searcher, term_parts(terms), freq), common, freq


def build_query(
    parts: dict[tuple[str, str], tuple[float, tantivy.Query]],
    filters: FindQuery,
    common: AbstractSet[str] = frozenset(),
) -> tantivy.Query:
    """Rare terms must match (any of them), common ones only add to the score (see
    COMMON_SHARE). Without that split, term clauses go flat beside MUST_NOT filters (the usual
    case: only the same-origin one); beside a MUST, SHOULD clauses would become optional, so
    then they nest."""
    rare = [(tantivy.Occur.Should, q) for (t, _), (_, q) in parts.items() if t not in common]
    often = [q for (t, _), (_, q) in parts.items() if t in common]
    clauses = filter_clauses(filters)
    if rare and often:
        return tantivy.Query.boolean_query(
            [(tantivy.Occur.Must, _scored_by(tantivy.Query.boolean_query(rare), often)), *clauses]
        )
    should = rare or [(tantivy.Occur.Should, q) for q in often]
    if all(occur == tantivy.Occur.MustNot for occur, _ in clauses):
        return tantivy.Query.boolean_query(should + clauses)
    return tantivy.Query.boolean_query(
        [(tantivy.Occur.Must, tantivy.Query.boolean_query(should)), *clauses]
    )


def all_words_first(
    parts: dict[tuple[str, str], tuple[float, tantivy.Query]],
    filters: FindQuery,
    common: set[str],
    freq: dict[tuple[str, str], int],
    num_docs: int,
    need: int,
) -> tantivy.Query | None:
    """For a request whose own words are all common, the documents that hold every one of
    them, scored exactly as ``build_query`` scores them; None when that is not worth trying.

    Such a request walks the longest posting lists whole (tantivy-py never prunes: see
    ``_scored_by``); the documents holding every word are a small share of them, and they are
    the top of the union unless too few exist. An intersection is led by its shortest list:
    it saves work when that list is a small share of all the union would walk (at most
    ALL_WORDS_LEAD), and when about ALL_WORDS_MARGIN times ``need`` documents are expected to
    hold every word (word shares taken as independent; words that always go together, such as
    "printer paper", make the intersection larger and slower than expected, which the first
    rule catches). ``search`` falls back to the union when fewer than ``need`` are found."""
    own = [t for (t, name), (weight, _) in parts.items() if name == "all" and weight == 1.0]
    if len(own) < 2 or not common.issuperset(t for t, _ in parts):
        return None
    sizes = [freq[(t, "all")] for t in own]
    if min(sizes) > ALL_WORDS_LEAD * sum(sizes):
        return None
    expected = float(num_docs)
    for size in sizes:
        expected *= size / num_docs
    if expected < ALL_WORDS_MARGIN * need:
        return None
    clauses = [
        (tantivy.Occur.Must if name == "all" and t in own else tantivy.Occur.Should, q)
        for (t, name), (_, q) in parts.items()
    ]
    return tantivy.Query.boolean_query(clauses + filter_clauses(filters))


def _scored_by(required: tantivy.Query, optional: list[tantivy.Query]) -> tantivy.Query:
    """``required``'s matches, each scored with every ``optional`` query it also matches.

    One optional clause per nesting level, not all of them in one boolean query: tantivy-py
    collects every match (its search wraps the top-docs collector in a MultiCollector, which
    never prunes), and a union of optional clauses scores every posting of every common
    term, window by window, while a single optional term query only seeks to the required
    documents (1.6x faster at 1M actions). Same documents, same order; the sums are added in
    another order, so a score can differ in its last float bit."""
    for query in optional:
        required = tantivy.Query.boolean_query(
            [(tantivy.Occur.Must, required), (tantivy.Occur.Should, query)]
        )
    return required
