"""Make untrusted text safe for agents to read: no markup, no invisible characters, bounded.

Everything here runs in time linear in a bounded slice of the input: an attacker's 10 MB
description costs the same as a 4 KB one.
"""

from __future__ import annotations

import html
import re
import unicodedata
from typing import Any

DESCRIPTION_MAX = 320  # what a result shows of a description
# What the index reads of one field of publisher text (registry.model.schemas Action.about): the
# words that say what a plugin is for are often past the display cap (an ai-plugin's
# description_for_model runs to 8,000 characters; its median is 220, its 90th percentile
# 1,700), but the last few thousand are mostly instructions to the model, not its purpose.
INDEX_TEXT_MAX = 4000
TITLE_MAX = 120
NAME_MAX = 64
# Work on at most this many characters: room for markup and entities around the kept text.
_SLICE_FACTOR, _SLICE_MIN = 16, 4096

# A tag starts with a letter, "/", "!" or "?" so that "a < b" survives. `[^<>]*` cannot
# overlap between attempts, which keeps the pattern linear.
_TAG = re.compile(r"<[A-Za-z/!?][^<>]*>")
# Script and style bodies are code, not text: drop them whole (only when they hold no "<",
# which keeps this linear too).
_CODE = re.compile(r"<(script|style)\b[^<>]*>[^<]*</\1\s*>", re.IGNORECASE)
_DROP_CATEGORIES = frozenset({"Cc", "Cf", "Co", "Cs"})  # controls, format (ZW, bidi, tags), PUA
_SPACES = frozenset("\t\n\r\x0b\x0c\x85\u2028\u2029")
_NAME_OK = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_NAME_BAD_RUN = re.compile(r"[^A-Za-z0-9_-]+")


def _is_variation_selector(char: str) -> bool:
    code = ord(char)
    return 0xFE00 <= code <= 0xFE0F or 0xE0100 <= code <= 0xE01EF


_SPACE_TABLE = str.maketrans(dict.fromkeys(_SPACES, " "))
_VARIATION_SELECTOR = re.compile("[\ufe00-\ufe0f\U000e0100-\U000e01ef]")


def _visible(text: str) -> str:
    """Drop control, format, private-use and surrogate characters; line breaks become spaces."""
    text = text.translate(_SPACE_TABLE)
    # A printable character is never one of the categories dropped (str.isprintable is false
    # for every Cc, Cf, Co and Cs): most text is all printable and skips the character loop.
    if text.isprintable() and (text.isascii() or not _VARIATION_SELECTOR.search(text)):
        return text
    return "".join(
        char
        for char in text
        if unicodedata.category(char) not in _DROP_CATEGORIES and not _is_variation_selector(char)
    )


def _strip_markup(text: str) -> str:
    # Twice: descriptions are often entity-encoded HTML ("&lt;b&gt;"), once decoded it is markup.
    text = html.unescape(_TAG.sub(" ", _CODE.sub(" ", text)))
    return _TAG.sub(" ", _CODE.sub(" ", text))


def clean_text_checked(value: Any, max_len: int = DESCRIPTION_MAX) -> tuple[str, bool]:
    """Like :func:`clean_text`, also saying whether the text was cut to ``max_len``."""
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        return "", False
    text = str(value)
    limit = max(_SLICE_MIN, max_len * _SLICE_FACTOR)
    sliced = len(text) > limit
    text = text[:limit]
    if "<" in text or "&" in text:  # no tag nor entity otherwise: nothing to strip
        text = _strip_markup(text)
    # NFKC before filtering: normalisation can map a character onto one we must drop.
    text = " ".join(_visible(unicodedata.normalize("NFKC", text)).split())
    return shorten(text, max_len), sliced or len(text) > max_len


def shorten(text: str, max_len: int) -> str:
    """Clean ``text`` cut to ``max_len`` characters, an ellipsis saying so."""
    return text if len(text) <= max_len else text[: max_len - 1].rstrip() + "…"


def clean_text(value: Any, max_len: int = DESCRIPTION_MAX) -> str:
    """Plain, visible, single-line text of at most ``max_len`` characters ('' for non-text)."""
    return clean_text_checked(value, max_len)[0]


def safe_name(value: Any, fallback: str = "action") -> str:
    """A machine name matching ``^[A-Za-z0-9_-]{1,64}$`` derived from ``value``.

    A name that already matches is kept as is; anything else is transliterated to ASCII,
    lower-cased, with runs of other characters turned into ``_``.
    """
    if isinstance(value, str) and _NAME_OK.match(value):
        return value
    text = unicodedata.normalize("NFKD", clean_text(value, 4 * NAME_MAX))
    ascii_text = text.encode("ascii", "ignore").decode().lower()
    name = _NAME_BAD_RUN.sub("_", ascii_text).strip("_-")[:NAME_MAX].strip("_-")
    return name or fallback


def clean_schema(schema: dict[str, Any], depth: int = 0) -> dict[str, Any]:
    """A JSON Schema with its human-readable texts (title, description) sanitised.

    Keys are freed of invisible characters; other values are kept: patterns and enums are
    data, not prose, and are never shown as instructions.
    """
    out: dict[str, Any] = {}
    for key, value in schema.items():
        key = _visible(str(key))[: NAME_MAX * 2]
        if key in ("title", "description") and isinstance(value, str):
            out[key] = clean_text(value, TITLE_MAX if key == "title" else DESCRIPTION_MAX)
        else:
            out[key] = _clean_value(value, depth + 1)
    return out


def _clean_value(value: Any, depth: int) -> Any:
    if depth > 64:  # callers already bound JSON depth; this is only a backstop
        return None
    if isinstance(value, dict):
        return clean_schema(value, depth)
    if isinstance(value, list):
        return [_clean_value(item, depth + 1) for item in value]
    if isinstance(value, str):
        return _visible(value)
    return value
