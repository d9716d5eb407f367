"""The index reads the publisher's whole text (Action.about, sites.about) where results show
only the display text: a plugin is found by what its description_for_model says past the
display cap, on every action of its site, and the text stays out of results and payloads.
Stores are built through the ``session`` fixture: SQLite and PostgreSQL."""

from __future__ import annotations

import json
from pathlib import Path

from sqlalchemy import update
from sqlalchemy.orm import Session

from registry.db.tables import ActionRow, Site
from registry.index import ActionIndex
from registry.index.parts import INDEX_VERSION, SITE_VECTOR_MAX, site_words
from registry.index.text import analyze
from registry.model.sanitize import DESCRIPTION_MAX
from registry.model.schemas import RawDocument, SiteCrawl
from registry.normalising import normalise_site
from registry.search import FindQuery, find
from registry.store.parts_refresh import refresh_index_parts
from registry.store.promotion import promote_site
from tests.helpers.stores import documents

HOST = "meals.example"
WORD = "zanzibarite"  # said only past char 320 of description_for_model
FILLER = "Plans dinners for the week from what is in the fridge and the pantry. " * 6
OPENAPI = {
    "openapi": "3.1.0",
    "info": {"title": "Meals API"},
    "paths": {
        "/plan": {
            "get": {
                "operationId": "getPlan",
                "summary": "Get a plan",
                "description": "A week of dinners.",
            }
        }
    },
}


def store_plugin(session: Session, model: str, human: str = "Meal plans.") -> None:
    plugin = {
        "schema_version": "v1",
        "name_for_model": "meals",
        "name_for_human": "Meals",
        "description_for_model": model,
        "description_for_human": human,
        "auth": {"type": "none"},
        "api": {"type": "openapi", "url": f"https://{HOST}/openapi.json"},
    }
    docs = [
        RawDocument(
            url=f"https://{HOST}/.well-known/ai-plugin.json",
            body=json.dumps(plugin).encode(),
            content_type="application/json",
        ),
        RawDocument(
            url=f"https://{HOST}/openapi.json",
            body=json.dumps(OPENAPI).encode(),
            content_type="application/json",
        ),
    ]
    update_ = normalise_site(SiteCrawl(host=HOST, origin=f"https://{HOST}", documents=docs))
    promote_site(session, update_)


def indexed(session: Session, tmp_path: Path) -> ActionIndex:
    index = ActionIndex.open(tmp_path / "index")
    index.sync(session)
    return index


def test_a_word_past_the_display_cap_finds_every_action_of_the_plugin(
    session: Session, tmp_path: Path
) -> None:
    store_plugin(session, f"{FILLER} Also knows {WORD} recipes.")
    results = find(indexed(session, tmp_path), FindQuery(q=WORD)).results
    assert {(r.site, r.name) for r in results} == {(HOST, "meals"), (HOST, "getPlan")}
    for result in results:
        assert len(result.description or "") <= DESCRIPTION_MAX
        assert WORD not in result.model_dump_json()  # nor in the payload agents read
    site = session.query(Site).filter_by(host=HOST).one()
    assert WORD in (site.about or "") and WORD not in (site.description or "")


def test_stored_parts_and_parts_worked_out_at_build_time_agree(session: Session) -> None:
    store_plugin(session, f"{FILLER} {WORD}")
    stored = documents(session, HOST)
    # Past the display cap: in ``about`` (scored with its own weight), not in ``all``.
    assert all(WORD in doc["about"] and WORD not in doc["all"] for doc in stored)
    session.execute(update(ActionRow).values(index_version=INDEX_VERSION - 1))
    assert documents(session, HOST) == stored  # worked out from the columns
    assert refresh_index_parts(session) == 2
    assert documents(session, HOST) == stored


def test_markup_and_invisible_characters_never_reach_the_index(
    session: Session, tmp_path: Path
) -> None:
    model = (
        f"{FILLER} <script>stealcookies()</script> <b>bold</b> zero\u200bwidth "
        f"\u202ereversed\u202c &lt;em&gt;emphasis&lt;/em&gt; {WORD}"
    )
    store_plugin(session, model)
    searcher = indexed(session, tmp_path).searcher()

    def held(word: str) -> int:  # documents holding the word, as the analyzer indexes it
        return sum(searcher.doc_freq(field, analyze(word)[0]) for field in ("all", "about"))

    assert held(WORD) == 2 and held("reversed") == 2 and held("emphasis") == 2
    for word in ("stealcookies", "script", "em"):
        assert held(word) == 0, word
    assert held("zerowidth") == 2 and held("bold") == 2  # a zero-width space is dropped
    for doc in documents(session, HOST):
        for bad in ("<", ">", "\u200b", "\u202e"):
            assert bad not in doc["all"] + doc["about"] and bad not in json.dumps(doc["payload"])


def test_the_sites_about_follows_its_newest_manifest(session: Session) -> None:
    store_plugin(session, f"{FILLER} {WORD}")
    store_plugin(session, "Plans meals.", "Dinner plans.")
    site = session.query(Site).filter_by(host=HOST).one()
    assert site.about == "Dinner plans. Plans meals. Meals API"  # and its API's title
    assert not any(WORD in json.dumps(doc) for doc in documents(session, HOST))


def test_a_long_about_adds_only_its_start_to_the_vectors() -> None:
    about = "x" * (SITE_VECTOR_MAX * 4)
    assert len(site_words("Meals", "Meal plans.", about)) == len("Meals ") + SITE_VECTOR_MAX
    assert site_words("Meals", "Meal plans.") == "Meals Meal plans."


def test_an_actions_own_long_description_is_found_past_the_cap(
    session: Session, tmp_path: Path
) -> None:
    tool = {
        "name": "plan",
        "description": f"{FILLER} Knows {WORD} recipes.",
        "inputSchema": {"type": "object"},
    }
    card = {"name": "meals", "description": "Meal plans.", "tools": [tool]}
    doc = RawDocument(
        url=f"https://{HOST}/.well-known/mcp.json",
        body=json.dumps(card).encode(),
        content_type="application/json",
    )
    promote_site(
        session, normalise_site(SiteCrawl(host=HOST, origin=f"https://{HOST}", documents=[doc]))
    )
    [result] = find(indexed(session, tmp_path), FindQuery(q=f"{WORD} recipes")).results
    assert (result.name, len(result.description or "")) == ("plan", DESCRIPTION_MAX)
    assert WORD not in result.model_dump_json()
