"""Which words of a long request are searched: at most MAX_TERMS, the rarest in the index.

One search scores at most MAX_TERMS of the request's own words (registry.index.text), which
bounds its work whatever the request's length. A request of more words is not refused: an
agent's long request ("I'm planning a trip to Lisbon next week and need ...") says what it
wants in a few rare words among many common ones, so the words the fewest documents hold are
kept (highest IDF: the ones BM25 would weigh most anyway), in the request's own order (the
leading verb still leads). Words no document holds are left out first: they score nothing. The
meaning re-rank still reads the whole request (registry.search.meaning).
"""

from __future__ import annotations

from dataclasses import dataclass

import tantivy

from registry.index.text import MAX_TERMS, analyze


@dataclass(frozen=True)
class Shortened:
    terms: list[str]  # the words searched, in the request's order
    dropped: int  # how many of the request's words were left out

    def json(self) -> dict[str, object]:
        return {"terms": self.terms, "dropped": self.dropped}


def informative(searcher: tantivy.Searcher, words: list[str]) -> tuple[list[str], Shortened | None]:
    """``words`` (a request's, uncapped) as searched: all of them when they are at most
    MAX_TERMS, else the MAX_TERMS rarest in the index, and what was left out."""
    if len(words) <= MAX_TERMS:
        return words, None
    freq = []
    for word in words:
        terms = analyze(word)
        count = searcher.doc_freq("all", terms[0]) if terms else 0
        freq.append(count or searcher.num_docs + 1)  # held by none: scores nothing, goes first
    ranked = sorted(range(len(words)), key=lambda i: (freq[i], i))
    kept = [words[i] for i in sorted(ranked[:MAX_TERMS])]
    return kept, Shortened(kept, len(words) - len(kept))
