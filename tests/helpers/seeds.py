"""The seed documents (../shared/seeds, read in place: never copied into the repository) and
the examples printed in them, as JSON objects in the order they are printed.

A seed is prose with its examples inline (a fenced block, a bare object on its own lines, or
fragments run into the text as seed 001 prints them); ``examples`` finds every JSON object
in it. Tests that need a seed call ``seed_examples``, which skips with a message saying where
the seeds were looked for when they are absent.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.paths import SHARED

SEEDS = SHARED / "seeds"


def seed_file(number: str) -> Path:
    """The seed ``number`` ("000" .. "003"); the test skips when it is not there."""
    found = sorted(SEEDS.glob(f"{number}_*.txt"))
    if not found:
        pytest.skip(f"seed {number} not found: the seeds are read in place from {SEEDS}")
    return found[0]


def examples(text: str) -> list[dict[str, Any]]:
    """Every JSON object printed in ``text``, outermost only, in order."""
    decoder, found, at = json.JSONDecoder(), [], 0
    while (at := text.find("{", at)) != -1:
        try:
            value, end = decoder.raw_decode(text, at)
        except ValueError:
            at += 1
            continue
        if isinstance(value, dict) and value:
            found.append(value)
            at = end
        else:
            at += 1
    return found


def seed_examples(number: str) -> list[dict[str, Any]]:
    return examples(seed_file(number).read_text(encoding="utf-8"))


def seed_body(number: str) -> str:
    """Seed 003 is an article stored as JSON: its text is ``body_md``."""
    text = seed_file(number).read_text(encoding="utf-8")
    return str(json.loads(text)["body_md"]) if text.lstrip().startswith("{") else text


def wildcard_document() -> dict[str, Any]:
    """Seed 001's fragments put together as one agents.json, as its prose assembles them:
    ``info``, ``sources``, ``overrides`` and the flow (the fragment with an ``id``), still
    without the ``agentsJson`` key."""
    document: dict[str, Any] = {}
    for fragment in seed_examples("001"):
        if "id" in fragment and "actions" in fragment:
            document.setdefault("flows", []).append(fragment)
        elif fragment.keys() & {"info", "sources", "overrides"}:
            document.update(fragment)
    return document
