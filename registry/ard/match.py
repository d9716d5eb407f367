"""The query model's filters (ARD section 5.3.1): parsed once, applied to registry items.

A key's first segment is a term, resolved to its IRI through the query's ``@context`` (plus
the ``actiondex:`` prefix, bound for every query) and matched against each entry's terms by
IRI, through the entry's own ``@context``; the rest of a dot-path is a literal JSON path
(``trustManifest.attestations.type``). Values are OR'ed within a key, keys AND'ed; an array
matches when any element does. ``publisher`` is the URN's publisher segment; ``type`` is
compared in one spelling (registry.model.ard_terms). The bare names of our terms (``effect``,
``method``, ``format``, ``site``, ``auth``) mean the ``actiondex:`` ones, and select by the
action behind the entry (``Item.facts``), whichever entry stands for it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from registry.ard.entries import FACT_TERMS, Item
from registry.model import ard_terms as terms

MAX_KEYS, MAX_VALUES, MAX_KEY_CHARS, MAX_VALUE_CHARS = 20, 20, 200, 512
ALIASES = frozenset({"effect", "method", "format", "site", "auth"})
PUBLISHER, TYPE = terms.ARD_NS + "publisher", terms.ARD_NS + "type"


class FilterError(ValueError):
    """A filter that cannot be read (the API answers 400 INVALID_ARGUMENT)."""


@dataclass(frozen=True)
class Clause:
    key: str  # as the client wrote it
    iri: str  # its first segment's IRI
    rest: tuple[str, ...]  # the literal path below it
    values: frozenset[str]
    literal: str | None = None  # a prefixed key whose prefix the query did not bind

    @property
    def fact(self) -> str | None:
        """Which of our terms the clause is about (``effect``...), or None."""
        name = self.iri.removeprefix(terms.ACTIONDEX_NS)
        return name if name != self.iri and not self.rest and name in FACT_TERMS else None


def query_prefixes(context: Any) -> dict[str, str]:
    return terms.PREFIXES | terms.context_prefixes(context)


def resolve(key: str, prefixes: dict[str, str]) -> tuple[str, tuple[str, ...]]:
    """(IRI of the first segment, the literal rest) of a filter or facet key."""
    if not 0 < len(key) <= MAX_KEY_CHARS:  # as the schema says: any 1 to 200 characters
        raise FilterError(f"a filter key must be 1 to {MAX_KEY_CHARS} characters")
    # An absolute IRI holds dots of its own: it is read whole, as a term.
    head, *rest = [key] if "://" in key else key.split(".")
    if head in ALIASES and head not in prefixes:
        return terms.ACTIONDEX_NS + head, tuple(rest)
    return terms.term_iri(head, prefixes), tuple(rest)


def unbound(key: str, prefixes: dict[str, str]) -> str | None:
    """``wx:region`` when the query binds no ``wx``: then it matches an entry's ``wx:region``
    by name, whatever the entry binds ``wx`` to (List's expression has no ``@context``)."""
    head = key.split(".")[0]
    prefix, sep, _ = head.partition(":")
    return head if sep and "://" not in key and prefix not in prefixes else None


def clauses(
    filters: dict[str, Any] | None, context: Any = None, bounded: bool = True
) -> list[Clause]:
    """The clauses of a query's ``filter`` (values: a string or a list of strings). Unbounded
    for List's filter expression, whose length bounds it."""
    filters = filters or {}
    if bounded and len(filters) > MAX_KEYS:
        raise FilterError(f"a filter has at most {MAX_KEYS} keys")
    prefixes = query_prefixes(context)
    found = []
    for key, raw in filters.items():
        values = raw if isinstance(raw, list) else [raw]
        if (bounded and len(values) > MAX_VALUES) or not all(
            isinstance(v, str) and len(v) <= MAX_VALUE_CHARS for v in values
        ):
            raise FilterError(
                f"filter {key[:MAX_KEY_CHARS]!r}: at most {MAX_VALUES} strings "
                f"of at most {MAX_VALUE_CHARS} characters"
            )
        iri, rest = resolve(key, prefixes)
        found.append(
            Clause(key, iri, rest, frozenset(_spelled(iri, rest, values)), unbound(key, prefixes))
        )
    return found


def _spelled(iri: str, rest: tuple[str, ...], values: list[str]) -> Iterator[str]:
    for value in values:
        if iri == TYPE and not rest:
            yield terms.media_type(value) or value
        elif iri in (PUBLISHER, terms.ACTIONDEX_NS + "site"):
            yield value.lower()
        elif iri == terms.ACTIONDEX_NS + "method":
            yield value.upper()
        else:
            yield value


def matches(item: Item, found: list[Clause]) -> bool:
    return all(
        any(v in clause.values for v in values_at(item, clause.iri, clause.rest, clause.literal))
        for clause in found
    )


def values_at(
    item: Item, iri: str, rest: tuple[str, ...] = (), literal: str | None = None
) -> list[str]:
    """The item's values of a term (and path below it), as strings."""
    name = iri.removeprefix(terms.ACTIONDEX_NS)
    if name != iri and not rest and name in FACT_TERMS:
        value = item.facts.get(name)
        return [] if value is None else [_text(value)]
    if iri == PUBLISHER and not rest:
        return [terms.publisher(item.identifier)]
    if iri == TYPE and not rest:
        media = terms.media_type(item.entry.get("type"))
        return [media] if media else []
    prefixes = terms.context_prefixes(item.entry.get("@context"))
    tops = [
        v
        for k, v in item.entry.items()
        if isinstance(k, str)
        and not k.startswith("@")
        and (k == literal or terms.term_iri(k, prefixes) == iri)
    ]
    return [_text(v) for top in tops for v in _walk(top, rest) if not isinstance(v, dict)]


def _walk(value: Any, path: tuple[str, ...]) -> Iterator[Any]:
    if isinstance(value, list):
        for element in value[:256]:
            yield from _walk(element, path)
    elif not path:
        yield value
    elif isinstance(value, dict) and path[0] in value:
        yield from _walk(value[path[0]], path[1:])


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return value if isinstance(value, str) else str(value)
