"""Registrable domains (the Public Suffix List's "eTLD+1"): whether an endpoint on another
host still belongs to the site's owner. The list is the one bundled in the publicsuffixlist
wheel: nothing is downloaded."""

from __future__ import annotations

from functools import lru_cache

from publicsuffixlist import PublicSuffixList


@lru_cache(maxsize=1)
def suffixes() -> PublicSuffixList:
    """The bundled list, parsed once, when first needed (0.2 s that a search never pays)."""
    return PublicSuffixList()


@lru_cache(maxsize=4096)
def registrable(host: str) -> str | None:
    """``host``'s registrable domain ("api.shop.example.co.uk" -> "example.co.uk");
    None for a public suffix itself, an address literal or an empty name."""
    host = host.strip("[]").rstrip(".").lower()
    if not host or ":" in host or host.replace(".", "").isdigit():
        return None
    found: str | None = suffixes().privatesuffix(host)
    return found


def same_registrable(one: str, other: str) -> bool:
    """Whether two hosts share a registrable domain (so one owner): never for addresses."""
    mine = registrable(one)
    return mine is not None and mine == registrable(other)
