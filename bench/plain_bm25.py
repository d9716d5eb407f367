"""The plain BM25 every relevance table is measured against: rank-bm25's BM25Okapi over a tool's
name and description, or over all of its text with the plain tokenisation of ToolLens's README.
Shared by bench.relevance, bench.realsites and bench.meaning_bench."""

from __future__ import annotations

import re
from collections.abc import Callable

from rank_bm25 import BM25Okapi

# ~40 common English words, the kind any plain BM25 set-up removes (as in the sanity check
# of ToolLens's README); not tuned to any query set.
_STOP = frozenset(
    {
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "but",
        "by",
        "for",
        "from",
        "has",
        "have",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "so",
        "that",
        "the",
        "their",
        "then",
        "there",
        "these",
        "this",
        "to",
        "was",
        "were",
        "will",
        "with",
        "you",
        "your",
    }
)


def tokens(text: str) -> list[str]:
    """Lower case, camelCase and snake_case split, [a-z0-9]+ words, common words dropped."""
    text = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", " ", text)
    return [w for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in _STOP]


def tool_text(tool: dict) -> str:
    """What a fair plain BM25 indexes of a tool: name, provider, description, parameters."""
    props = (tool.get("parameters") or {}).get("properties") or {}
    params = " ".join(
        f"{k} {v.get('description', '') if isinstance(v, dict) else ''}" for k, v in props.items()
    )
    return f"{tool['name']} {tool['provider']} {tool['description']} {params}"


def baseline(tools: list[dict], full: bool = False, n: int = 10) -> Callable[[str], list[str]]:
    """rank-bm25 BM25Okapi over name + description as issue 5 names it (defaults k1 1.5,
    b 0.75), or (``full``) over all of a tool's text with the plain tokenisation and settings
    of ToolLens's README (k1 0.9, b 0.4); its first ``n`` tool ids for a query."""
    if full:
        tokenise, texts = tokens, [tool_text(t) for t in tools]
    else:
        tokenise = lambda text: re.findall(r"\w+", text.lower())  # noqa: E731
        texts = [f"{t['name']} {t['description']}" for t in tools]
    settings = {"k1": 0.9, "b": 0.4} if full else {}
    bm25 = BM25Okapi([tokenise(text) for text in texts], **settings)
    ids = [t["id"] for t in tools]
    return lambda q: bm25.get_top_n(tokenise(q), ids, n=n)
