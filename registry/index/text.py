"""Text analysis shared by the index and the query side, so both see the same terms.

``en_fold`` (registered on every opened index) = simple tokenizer, lower case, ASCII folding
(café -> cafe), English stop words, Snowball English stemming. Type words come from the
Schema.org Action hierarchy; verb synonyms expand a query at a lower weight than its own words.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

import tantivy

from registry.model.identifiers import split_identifier

ANALYZER = "en_fold"
NO_TERMS = "no_terms"  # for fields only stored (see _no_terms)
MAX_TERMS = 32  # bounds the work one request can ask for, whatever the API lets through
EXPANSION_WEIGHT = 0.35

# Schema.org Action subtypes -> their parent (https://schema.org/Action, "More specific
# Types"); an action typed BuyAction is also found by "trade", a CheckAction by "find".
SCHEMA_PARENTS = {
    "Buy": "Trade",
    "Donate": "Trade",
    "Order": "Trade",
    "Pay": "Trade",
    "PreOrder": "Trade",
    "Quote": "Trade",
    "Rent": "Trade",
    "Sell": "Trade",
    "Tip": "Trade",
    "Check": "Find",
    "Discover": "Find",
    "Track": "Find",
    "Cancel": "Plan",
    "Reserve": "Plan",
    "Schedule": "Plan",
    "Ask": "Communicate",
    "CheckIn": "Communicate",
    "CheckOut": "Communicate",
    "Comment": "Communicate",
    "Inform": "Communicate",
    "Invite": "Communicate",
    "Reply": "Communicate",
    "Share": "Communicate",
    "Follow": "Interact",
    "Join": "Interact",
    "Register": "Interact",
    "Subscribe": "Interact",
    "UnRegister": "Interact",
    "Listen": "Consume",
    "Read": "Consume",
    "View": "Consume",
    "Watch": "Consume",
    "Add": "Update",
    "Delete": "Update",
    "Replace": "Update",
    "Insert": "Add",
    "Download": "Transfer",
    "Send": "Transfer",
    "Receive": "Transfer",
    "Return": "Transfer",
    "Login": "Control",
    "Authenticate": "Control",
    "Arrive": "Move",
    "Depart": "Move",
    "Travel": "Move",
    "Review": "Assess",
    "Like": "React",
    "React": "Assess",
    "Vote": "Choose",
}
# Common ways of saying the same action verb. Each group is symmetric; multi-word entries
# ("add to cart") are matched as their words.
VERB_GROUPS = (
    ("buy", "purchase", "order", "checkout", "shop", "cart"),
    ("book", "reserve", "reservation", "schedule", "appointment"),
    ("search", "find", "lookup", "query", "discover", "browse"),
    ("pay", "payment", "checkout", "charge"),
    ("send", "message", "notify", "email"),
    ("delete", "remove", "erase"),
    ("cancel", "revoke", "abort"),
    ("subscribe", "signup", "register", "join", "enroll"),
    ("login", "signin", "authenticate"),
    ("create", "add", "new", "make"),
    ("update", "edit", "modify", "change"),
    ("track", "trace", "status"),
    ("rent", "hire", "lease"),
    ("share", "post", "publish"),
    ("comment", "reply", "review"),
    ("download", "export"),
    ("upload", "import", "attach"),
    ("donate", "give", "tip"),
    ("watch", "stream", "play"),
    ("compare", "contrast"),
    ("translate", "convert"),
)
EFFECT_WORDS = {
    "read": "read",
    "write": "write change",
    "send": "send",
    "spend": "spend pay money",
    "delete": "delete remove",
}
# Request filler an agent's sentence carries on top of English stop words.
QUERY_STOP_WORDS = frozenset(
    {
        "am",
        "can",
        "could",
        "do",
        "does",
        "get",
        "help",
        "how",
        "i",
        "im",
        "i'm",
        "like",
        "me",
        "my",
        "need",
        "please",
        "some",
        "want",
        "we",
        "what",
        "which",
        "would",
        "you",
        "your",
    }
)


def build_analyzer() -> tantivy.TextAnalyzer:
    return (
        tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
        .filter(tantivy.Filter.remove_long(40))
        .filter(tantivy.Filter.lowercase())
        .filter(tantivy.Filter.ascii_fold())
        .filter(tantivy.Filter.stopword("english"))
        .filter(tantivy.Filter.stemmer("english"))
        .build()
    )


def register(index: tantivy.Index) -> tantivy.Index:
    """Every Index object needs the analyzers before it is written to or queried."""
    index.register_tokenizer(ANALYZER, build_analyzer())
    index.register_tokenizer(NO_TERMS, _no_terms())
    return index


def _no_terms() -> tantivy.TextAnalyzer:
    # tantivy-py cannot declare a text field stored but not indexed; a field analysed into no
    # terms is one. Only tokens shorter than 0 bytes pass remove_long(0): none.
    return (
        tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.raw())
        .filter(tantivy.Filter.remove_long(0))
        .build()
    )


_ANALYZER = build_analyzer()
_WORDS = (
    tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
    .filter(tantivy.Filter.remove_long(40))
    .filter(tantivy.Filter.lowercase())
    .filter(tantivy.Filter.ascii_fold())
    .build()
)


# A word the analyzer keeps whole but identifier splitting cuts: a case change inside it or
# letters next to digits ("PayPal", "HTTPServer", "wgs84"). Anchored at a word's start.
_COMPOUND = re.compile(
    r"(?<![^\W_])[^\W_]*?(?:[a-z][A-Z]|[A-Z]{2}[a-z]|[A-Za-z][0-9]|[0-9][A-Za-z])[^\W_]*"
)


def analyze(text: str) -> list[str]:
    return _ANALYZER.analyze(text)


def type_base(action_type: str | None) -> str:
    """``https://schema.org/BuyAction`` -> ``Buy``; '' when there is no type."""
    if not action_type:
        return ""
    return re.split(r"[/#:]", action_type)[-1].removesuffix("Action")


def type_words(action_type: str | None, effect: str | None = None) -> str:
    """``SearchAction`` -> ``search find``: the type, its parents, its closest synonym."""
    base, words = type_base(action_type), list[str]()
    while base and len(words) < 4:
        words.append(split_identifier(base))
        base = SCHEMA_PARENTS.get(base, "")
    if words:
        # The closest synonym only (SearchAction -> "search find"): the query side expands
        # further, and each word added here to every typed action lengthens a posting list.
        words += _EXPANSIONS_BY_WORD.get(words[0], ())[:1]
    return " ".join([*dict.fromkeys(words), EFFECT_WORDS.get(effect or "", "")]).strip()


def query_words(q: str, cap: int | None = MAX_TERMS) -> list[str]:
    """Lower-case, folded words of ``q``: identifiers split, filler dropped if others remain;
    the first ``cap`` of them (None: all, for a caller that picks which to keep).

    A word that splits ("PayPal", "iPhone", "getProducts", "wgs84") is kept whole as well as
    split: the index holds descriptions and site names whole ("paypal") and action names
    split ("get products"), and the query cannot tell which one it will meet."""
    # Accents go before identifier splitting, which reads "CAFÉ" as "CAF" + "É" otherwise.
    plain = "".join(c for c in unicodedata.normalize("NFKD", q) if not unicodedata.combining(c))
    # Word by word: split_identifier reads an identifier's first 256 characters only.
    words = _WORDS.analyze(" ".join(split_identifier(part) for part in plain.split()))
    compounds = _COMPOUND.findall(plain)
    if compounds:  # after the parts, so a leading "addToCart" still leads with "add"
        words += _WORDS.analyze(" ".join(compounds))
    words = list(dict.fromkeys(words))
    # One-letter words are mostly split contractions ("I'm" -> "i", "m").
    kept = [w for w in words if len(w) > 1 and w not in QUERY_STOP_WORDS and analyze(w)]
    return (kept or words)[:cap]


def _groups() -> dict[str, tuple[str, ...]]:
    by_word: dict[str, list[str]] = {}
    for group in VERB_GROUPS:
        for word in group:
            by_word.setdefault(word, []).extend(w for w in group if w != word)
    return {w: tuple(dict.fromkeys(vs)) for w, vs in by_word.items()}


_EXPANSIONS_BY_WORD = _groups()


def _stem(word: str) -> str:
    terms = analyze(word)
    return terms[0] if terms else word


# Keyed by stem, so "searching" expands like "search".
_EXPANSIONS = {_stem(k): tuple(_stem(v) for v in vs) for k, vs in _EXPANSIONS_BY_WORD.items()}
# Stems of action verbs: the Schema.org Action types and the verb groups. A query's action
# verb says which action it wants, so search weighs it where an action names itself.
ACTION_VERBS = frozenset(
    _stem(split_identifier(t))
    for t in [*SCHEMA_PARENTS, *SCHEMA_PARENTS.values()]
    if " " not in split_identifier(t)
) | frozenset(_EXPANSIONS)


def weighted_terms(words: Sequence[str]) -> dict[str, float]:
    """Index terms with their weight: the query's own words 1.0, their synonyms lower."""
    terms = {t: 1.0 for w in words for t in analyze(w)} or {w: 1.0 for w in words}
    for stem in list(terms):
        for synonym in _EXPANSIONS.get(stem, ()):
            terms.setdefault(synonym, EXPANSION_WEIGHT)
    return terms
