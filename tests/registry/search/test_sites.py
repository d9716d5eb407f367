"""Sites, not only actions: a site whose whole manifest is about the request ranks above a
site with one stray matching word, the first page takes turns across sites, and group=site
answers one entry per site, paged by sites. And a long request keeps its rarest words."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.orm import Session

from registry.index import ActionIndex
from registry.index.text import MAX_TERMS
from registry.search import FindQuery, page, search, sites
from registry.search.page import Hit, arrange
from registry.search.terms import informative
from tests.helpers.stores import add_site

WEATHER, STRAY = "skycast.example", "trailhead.example"


def _weather(session: Session) -> None:
    """A weather service, every action about weather, beside a shop selling hiking gear whose
    one widget says "city weather"; and a few sites of their own around them."""
    add_site(
        session,
        WEATHER,
        [
            {
                "name": "daily_forecast",
                "title": "Daily forecast",
                "description": "Temperature, rain and wind for the next ten days in any city, from "
                "our own weather stations and the national weather service.",
            },
            {
                "name": "hourly_forecast",
                "title": "Hourly forecast",
                "description": "Hour by hour temperature, rain chance and wind for one city, for "
                "the next two days, from the weather models we run.",
            },
            {
                "name": "weather_alerts",
                "title": "Severe weather alerts",
                "description": "Storm, flood and heat warnings issued for a city or region, with "
                "the time each one starts and ends.",
            },
            {
                "name": "radar_map",
                "title": "Radar map",
                "description": "Rain and snow radar tiles of the last hours over a city, for a map "
                "layer, refreshed every five minutes.",
            },
        ],
        name="Skycast",
        description="Weather forecasts, radar and alerts for every city",
    )
    add_site(
        session,
        STRAY,
        [
            {"name": "search_gear", "title": "Search gear", "description": "Find boots and tents."},
            {
                "name": "city_weather_widget",
                "title": "City weather widget",
                "description": "City weather on the store page.",
            },
            {"name": "view_cart", "title": "View cart", "description": "What is in the cart."},
        ],
        name="Trailhead Outfitters",
        description="Hiking gear shop",
    )
    for i, thing in enumerate(["tram tickets", "city tours", "museum passes", "bike rental"]):
        add_site(
            session,
            f"city{i}.example",
            [
                {
                    "name": f"book_{i}",
                    "title": f"Book {thing}",
                    "description": f"Book {thing} in the city centre.",
                },
                {
                    "name": f"list_{i}",
                    "title": f"List {thing}",
                    "description": f"Every one of our {thing}, with prices.",
                },
            ],
        )


@pytest.fixture
def index(session: Session, tmp_path: Path) -> ActionIndex:
    _weather(session)
    built = ActionIndex.open(tmp_path / "index")
    built.sync(session)
    return built


def ranked_sites(index: ActionIndex, q: str, **kw: Any) -> list[str]:
    return list(dict.fromkeys(h.site for h in search(index, FindQuery(q=q, **kw)).hits))


def test_a_site_about_the_request_beats_one_stray_word(
    index: ActionIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    q = "city weather"
    assert ranked_sites(index, q)[0] == WEATHER
    grouped = search(index, FindQuery(q=q, group="site")).sites
    assert grouped and grouped[0].site == WEATHER
    # It is the site's evidence that does it: one action against one, the stray one wins.
    monkeypatch.setattr(sites, "SUPPORT", 0.0)
    assert ranked_sites(index, q)[0] == STRAY


def test_the_site_evidence_is_explained_and_the_scores_still_sum(index: ActionIndex) -> None:
    [best] = search(index, FindQuery(q="city weather", limit=1, explain=True)).hits
    parts = {part["term"]: part for part in best.explain or []}
    assert parts["(site)"]["field"] == "site" and parts["(site)"]["score"] > 0
    assert sum(p["score"] for p in parts.values()) == pytest.approx(best.score, rel=1e-3)


def test_group_site_is_one_entry_per_site_best_first_paged_by_sites(index: ActionIndex) -> None:
    def entries(**kw: Any) -> list[sites.SiteHits]:
        return search(index, FindQuery(q="city weather forecast", group="site", **kw)).sites

    every = entries(limit=50)
    hosts = [entry.site for entry in every]
    assert len(hosts) == len(set(hosts)) >= 3 and hosts[0] == WEATHER
    assert [e.score for e in every] == sorted((e.score for e in every), reverse=True)
    assert all(len(e.hits) <= 3 and {h.site for h in e.hits} == {e.site} for e in every)
    assert len(every[0].hits) == 3  # its best three of four
    paged = [e.site for offset in (0, 2, 4) for e in entries(limit=2, offset=offset)]
    assert paged == hosts[:6]
    assert [len(e.hits) for e in entries(per_site=1)] == [1] * len(hosts)


def _hit(site: str, score: float) -> Hit:
    return Hit(score, None, "action", site, f"{site}-{score}", (), b"{}")  # type: ignore[arg-type]


def test_sites_take_turns_on_a_page(monkeypatch: pytest.MonkeyPatch) -> None:
    ranking = [_hit("a", 10), _hit("a", 9.5), _hit("a", 9.4), _hit("b", 8.8), _hit("c", 5)]

    def order(diversity: float) -> list[tuple[str, float]]:
        monkeypatch.setattr(page, "DIVERSITY", diversity)
        hits, _ = arrange(iter(ranking), 5, 0, 3)
        return [(h.site, h.score) for h in hits]

    # a's second must beat b's best by a tenth: 9.5 x 0.9 < 8.8 < 9.5
    assert order(0.9) == [("a", 10), ("b", 8.8), ("a", 9.5), ("a", 9.4), ("c", 5)]
    assert order(1.0) == [("a", 10), ("a", 9.5), ("a", 9.4), ("b", 8.8), ("c", 5)]


def test_a_page_draws_only_the_hits_it_may_place() -> None:
    drawn = []

    def ranking() -> Iterator[Hit]:
        for i in range(1000):
            drawn.append(i)
            yield _hit(f"s{i}", 1000.0 - i)

    hits, crowded = arrange(ranking(), 10, 0, 3)
    assert len(hits) == 10 and not crowded and len(drawn) == 10  # none past the page


def test_a_long_request_keeps_its_rarest_words_in_its_own_order(index: ActionIndex) -> None:
    filler = [f"word{chr(97 + i // 26)}{chr(97 + i % 26)}" for i in range(40)]  # in no action
    words = ["city", *filler, "radar"]  # "city" is in most actions, "radar" in one
    kept, shortened = informative(index.searcher(), words)
    assert shortened is not None and shortened.terms == kept and shortened.dropped == 10
    assert kept[0] == "city" and kept[-1] == "radar" and kept[1:-1] == filler[:30]
    assert informative(index.searcher(), words[:MAX_TERMS]) == (words[:MAX_TERMS], None)
    hits = search(index, FindQuery(q=" ".join(words))).hits
    assert hits[0].key == "radar_map"
