"""registry.store.crawl_state: what the crawler reads and writes between runs, on both databases."""

from __future__ import annotations

import time

from sqlalchemy.orm import Session

from registry.model.schemas import RawDocument, SiteCrawl
from registry.normalising import normalise_site
from registry.store.crawl_state import (
    changed_since,
    crawl_states,
    save_crawl_state,
    stored_validators,
)
from registry.store.promotion import promote_site

HOST = "state.example"
URL = f"https://{HOST}/.well-known/agent-actions.json"
BODY = (
    b'{"schema": "agent-actions/0.1", "actions": '
    b'[{"name": "search", "method": "GET", "path": "/s{?q}", "effect": "read"}]}'
)


def _store(session: Session, **headers: str | None) -> None:
    raw = RawDocument(url=URL, body=BODY, content_type="application/json", **headers)
    promote_site(
        session, normalise_site(SiteCrawl(host=HOST, origin=f"https://{HOST}", documents=[raw]))
    )


def test_validators_are_those_the_stored_documents_came_with(session: Session) -> None:
    assert stored_validators(session, [HOST]) == {}
    _store(session, etag='"v1"', last_modified=None)
    assert stored_validators(session, [HOST, "other.example"]) == {URL: ('"v1"', None)}
    assert stored_validators(session, ["other.example"]) == {}


def test_crawl_state_round_trips_and_an_unknown_host_has_none(session: Session) -> None:
    _store(session)
    assert crawl_states(session, [HOST]) == {}  # nothing remembered yet
    state = {"missing": {"https://state.example/x": 1.0}, "probe": {"catch_all": None, "at": 2}}
    save_crawl_state(session, HOST, state)
    save_crawl_state(session, "unknown.example", state)  # no row: nothing written
    assert crawl_states(session, [HOST, "unknown.example"]) == {HOST: state}


def test_changed_since_compares_with_the_last_promotion(session: Session) -> None:
    before = time.time() - 60
    _store(session)
    assert changed_since(session, HOST, before)
    assert not changed_since(session, HOST, time.time() + 60)
    assert not changed_since(session, "unknown.example", before)
