"""``sanitize._visible`` skips its character loop for text that is all printable (issue 24:
the loop was a third of an ingest's time). What it keeps must be what the loop kept, for every
code point and for mixed text."""

from __future__ import annotations

import random
import unicodedata

from registry.model.sanitize import _DROP_CATEGORIES, _SPACES, _is_variation_selector, _visible


def by_character(text: str) -> str:
    """The rule, one character at a time (the loop ``_visible`` ran before)."""
    out = []
    for char in text:
        if char in _SPACES:
            out.append(" ")
        elif unicodedata.category(char) not in _DROP_CATEGORIES and not _is_variation_selector(
            char
        ):
            out.append(char)
    return "".join(out)


def test_every_code_point_alone_and_beside_printable_text() -> None:
    for code in range(0x110000):
        char = chr(code)
        assert _visible(char) == by_character(char), hex(code)
    for code in (0x85, 0x200B, 0x202E, 0xE000, 0xD800, 0xFE0F, 0xE0101, 0xE0041, 0x2028):
        text = f"Find a table\u00e9 {chr(code)} for two"
        assert _visible(text) == by_character(text), hex(code)
        assert chr(code) not in _visible(text)


def test_random_mixed_text() -> None:
    rng = random.Random(24)
    pools = [
        lambda: rng.randrange(0x20, 0x7F),
        lambda: rng.randrange(0x110000),
        lambda: rng.randrange(0xFE00, 0xFE10),
        lambda: rng.choice([0x09, 0x0A, 0x85, 0x2028, 0x2029, 0x200D, 0xA0, 0x3000]),
    ]
    for _ in range(5000):
        text = "".join(chr(rng.choice(pools)()) for _ in range(rng.randrange(40)))
        assert _visible(text) == by_character(text), ascii(text)
    plain = "Search flights between two airports,\tcheapest first (EUR 20-40).\n"
    assert _visible(plain) == "Search flights between two airports, cheapest first (EUR 20-40). "
