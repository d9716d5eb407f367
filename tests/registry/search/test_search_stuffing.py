"""Keyword stuffing (docs/RELIABILITY.md 30): a site repeating "flight" in 200 actions beside an
honest site with one flight action, in a 200-site corpus. Each of 10 seeded corpora varies the
filler sites and how the stuffer stuffs; the per-site cap must hold in every one, and the honest
action must rank above every stuffed one in at least 9 of the 10."""

from __future__ import annotations

import random
from pathlib import Path

from sqlalchemy.orm import Session

from registry.index import ActionIndex
from registry.search import PER_SITE, FindQuery, search
from tests.helpers.stores import add_site

VERBS = [
    "search",
    "list",
    "view",
    "create",
    "update",
    "cancel",
    "track",
    "order",
    "rent",
    "share",
    "compare",
    "send",
    "reserve",
    "buy",
    "delete",
]
THINGS = [
    "invoice",
    "recipe",
    "playlist",
    "parcel",
    "hotel room",
    "bike",
    "concert ticket",
    "apartment",
    "tax return",
    "doctor visit",
    "train ticket",
    "car",
    "course",
    "gift card",
    "ferry ticket",
    "taxi",
    "laptop",
    "podcast",
    "insurance quote",
    "museum ticket",
]
HONEST, STUFFED = "skyways.test", "cheap-flightz.test"
QUERIES = ["book a flight", "flight booking", "book flight tickets"]


def _corpus(session: Session, rng: random.Random) -> None:
    for s in range(198):
        actions = []
        for i in range(rng.randint(1, 4)):
            verb, thing = rng.choice(VERBS), rng.choice(THINGS)
            actions.append(
                {
                    "name": f"{verb}_{thing.replace(' ', '_')}_{i}",
                    "title": f"{verb.title()} a {thing}",
                    "description": f"{verb.title()} a {thing} for the user.",
                }
            )
        add_site(session, f"site{s}.test", actions, name=f"Site {s}")
    add_site(
        session,
        HONEST,
        [
            {
                "name": "book_flight",
                "title": "Book a flight",
                "effect": "spend",
                "description": "Book a seat on a scheduled flight between two airports.",
            },
            {
                "name": "flight_status",
                "title": "Flight status",
                "description": "Departure and arrival times of a flight.",
            },
        ],
        name="Skyways",
    )
    repeat, with_verb = rng.randint(10, 60), rng.random() < 0.5
    stuffing = " ".join(["flight"] * repeat) + " cheap flights flight deals"
    add_site(
        session,
        STUFFED,
        [
            {
                "name": f"{'book_' if with_verb else ''}cheap_flight_{i}",
                "title": f"{'Book cheap' if with_verb else 'Cheap'} flights {i}",
                "description": (f"book {stuffing}" if with_verb else stuffing),
                "effect": "spend",
            }
            for i in range(200)
        ],
        name="Cheap Flightz",
    )


def test_stuffed_site_is_capped_and_ranks_below_the_honest_one(
    session: Session,
    tmp_path: Path,
) -> None:
    honest_first = 0
    for seed in range(10):
        rng = random.Random(seed)
        savepoint = session.begin_nested()
        _corpus(session, rng)
        index = ActionIndex.open(tmp_path / f"index{seed}")
        index.sync(session)
        ranks = []
        for q in QUERIES:
            hits = search(index, FindQuery(q=q, limit=10)).hits
            assert sum(h.site == STUFFED for h in hits) <= PER_SITE, (seed, q)
            sites = [h.site for h in hits]
            assert HONEST in sites, (seed, q, sites)
            ranks.append(sites.index(HONEST) < (sites + [STUFFED]).index(STUFFED))
        honest_first += all(ranks)
        savepoint.rollback()
    assert honest_first >= 9, honest_first
