"""Changing a store the way a crawl does, and waiting for a live API to find the change: for
the living-index tests and bench/freshness.py."""

from __future__ import annotations

import json
import time
import urllib.request
from urllib.parse import urlencode

from sqlalchemy import Engine

from registry.db.engine import transaction
from registry.model.schemas import Action, Manifest, RawDocument
from registry.normalising import NormalisedDocument, SiteUpdate, content_hash
from registry.store.promotion import promote_site


def promote(engine: Engine, host: str, word: str) -> None:
    """Store ``host`` with one action named after ``word``, as a crawl promotes it."""
    url = f"https://{host}/.well-known/agent-actions.json"
    manifest = Manifest(
        site=host,
        url=url,
        format="agent-actions",
        actions=[
            Action(
                name=f"order_{word}",
                title=f"Order {word}",
                effect="spend",
                method="POST",
                description=f"Order a {word} today.",
                endpoint=f"https://{host}/order",
            )
        ],
    )
    body = manifest.model_dump_json().encode()
    raw = RawDocument(url=url, body=body, content_type="application/json")
    update = SiteUpdate(
        host, f"https://{host}", [NormalisedDocument(raw, manifest, content_hash(body))]
    )
    with transaction(engine) as session:
        promote_site(session, update)


def finds(base: str, word: str) -> bool:
    """Whether GET /find answers ``word`` with its action (raises on a non-2xx answer)."""
    url = f"{base}/find?{urlencode({'q': word, 'limit': 5})}"
    with urllib.request.urlopen(url, timeout=5) as answer:
        results = json.load(answer)["results"]
    return any(r["name"] == f"order_{word}" for r in results)


def wait_found(base: str, word: str, seconds: float = 30, every: float = 0.05) -> float:
    """Seconds until GET /find answers ``word``; raises TimeoutError after ``seconds``."""
    start = time.monotonic()
    while not finds(base, word):
        if time.monotonic() - start > seconds:
            raise TimeoutError(f"{word!r} not found at {base} within {seconds:.0f} s")
        time.sleep(every)
    return time.monotonic() - start
