"""Sites, not only actions: a site whose whole manifest is about the request ranks above a
site with one stray matching word, the first page takes turns across sites, and group=site
answers one entry per site, paged by sites."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.orm import Session

from registry.index import ActionIndex
from registry.search import FindQuery, search, sites
from tests.helpers.stores import add_site

WEATHER, STRAY = "skycast.example", "trailhead.example"


def _weather(session: Session) -> None:
    """A weather service, every action about weather, beside a shop selling hiking gear whose
    one widget says "city weather"; and a few sites of their own around them."""
    add_site(session, WEATHER, [
        {"name": "daily_forecast", "title": "Daily forecast",
         "description": "Temperature, rain and wind for the next ten days in any city, from "
                        "our own weather stations and the national weather service."},
        {"name": "hourly_forecast", "title": "Hourly forecast",
         "description": "Hour by hour temperature, rain chance and wind for one city, for the "
                        "next two days, from the weather models we run."},
        {"name": "weather_alerts", "title": "Severe weather alerts",
         "description": "Storm, flood and heat warnings issued for a city or region, with "
                        "the time each one starts and ends."},
        {"name": "radar_map", "title": "Radar map",
         "description": "Rain and snow radar tiles of the last hours over a city, for a map "
                        "layer, refreshed every five minutes."},
    ], name="Skycast", description="Weather forecasts, radar and alerts for every city")
    add_site(session, STRAY, [
        {"name": "search_gear", "title": "Search gear", "description": "Find boots and tents."},
        {"name": "city_weather_widget", "title": "City weather widget",
         "description": "City weather on the store page."},
        {"name": "view_cart", "title": "View cart", "description": "What is in the cart."},
    ], name="Trailhead Outfitters", description="Hiking gear shop")
    for i, thing in enumerate(["tram tickets", "city tours", "museum passes", "bike rental"]):
        add_site(session, f"city{i}.example", [
            {"name": f"book_{i}", "title": f"Book {thing}",
             "description": f"Book {thing} in the city centre."},
            {"name": f"list_{i}", "title": f"List {thing}",
             "description": f"Every one of our {thing}, with prices."}])


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


