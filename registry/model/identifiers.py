"""The words of a machine name: how "add_to_cart", "addToCart" and "add-to-cart" are read."""

from __future__ import annotations

import re

# Words of an identifier: an acronym run, a (capitalised) word, or digits. Each alternative
# backtracks at most one character, so the scan is linear.
_WORDS = re.compile(r"[A-Z]+(?![^\W\d_A-Z])|[A-Z]?[^\W\d_A-Z]+|\d+")


def split_identifier(name: str) -> str:
    """Identifier words, lower case: "add_to_cart", "addToCart", "add-to-cart" -> "add to cart"."""
    return " ".join(word.lower() for word in _WORDS.findall(name[:256]))
