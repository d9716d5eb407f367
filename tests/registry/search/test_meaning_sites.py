"""The site stage by meaning (registry.index.vector_index with ``actions=False``,
registry.search.meaning): the sites whose vector is nearest a request are candidates even when
none of their actions' words meet it. The ``sites`` fixture keeps the sites' vectors only, as
the searching processes do by default (ACTIONDEX_MEANING_SITES); ``words`` keeps none."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy.orm import Session

from actiondex.runtime import open_index
from registry.config import Settings
from registry.index import ActionIndex
from registry.search import FindQuery, search
from tests.helpers.stores import add_site, committed_store

# Each shares no word with the site that answers it (query_words: "cheap way fly lisbon");
# a distractor shares one, so BM25 alone finds only it.
LISBON = "cheap way to fly to Lisbon"
# A sentence of five words or more after filler (a re-rank by meaning runs).
RAIN = "tell me whether rain is coming to Porto tomorrow morning, the picnic depends on it"

# Topics that share no word with either request: the nearest sites must be chosen by meaning,
# not taken whole (a search asks for 10 sites).
OTHERS = (
    ("books", "Used books", "Second-hand novels and textbooks shipped to your door"),
    ("pets", "Pet food", "Dog and cat food delivered monthly"),
    ("tax", "Tax returns", "File your income tax return online"),
    ("gym", "Gym classes", "Book yoga and spin classes at a gym near you"),
    ("code", "Code hosting", "Git repositories, pull requests and code review"),
    ("music", "Music streaming", "Stream songs, albums and playlists"),
    ("recipes", "Recipes", "Dinner recipes with shopping lists"),
    ("jobs", "Job board", "Search job openings and apply with your resume"),
    ("bank", "Banking", "Check your account balance and transfer money"),
    ("cars", "Car parts", "Brake pads, tyres and filters for your car"),
    ("plants", "Garden plants", "Seeds, bulbs and potted plants for your garden"),
    ("fonts", "Fonts", "Download typefaces for your website"),
)


def _sites(session: Session) -> None:
    add_site(
        session,
        "flights.example",
        [
            {
                "name": "search_airfares",
                "title": "Airfare search",
                "description": "Compare airline tickets between two airports by date and price",
            }
        ],
        name="Skyfare",
        description="Airfare search across airlines",
    )
    add_site(
        session,
        "sky.example",
        [
            {
                "name": "forecast",
                "title": "Weather forecast",
                "description": "Precipitation, temperature and wind for any city, hour by hour",
            }
        ],
        name="Sky",
        description="Weather forecasts",
    )
    add_site(
        session,
        "deals.example",
        [{"name": "coupons", "title": "Coupons", "description": "Cheap coupons for shoes"}],
        name="Deals",
        description="Shoe coupons",
    )
    for slug, title, description in OTHERS:
        add_site(
            session,
            f"{slug}.example",
            [{"name": f"{slug}_search", "title": title, "description": description}],
            name=title,
            description=description,
        )


def _index(session: Session, path: Path, sites: bool) -> ActionIndex:
    _sites(session)
    index = ActionIndex.open(path, sites=sites)
    index.sync(session)
    return index


def _sites_for(index: ActionIndex, q: str, **filters: object) -> list[str]:
    page = search(index, FindQuery(q=q, group="site", **filters))  # type: ignore[arg-type]
    return [entry.site for entry in page.sites or []]


def test_a_short_request_finds_a_site_none_of_whose_words_it_uses(
    session: Session, tmp_path: Path
) -> None:
    index = _index(session, tmp_path / "index", sites=True)
    assert index.vectors is not None and not index.vectors.actions  # sites searched only
    found = _sites_for(index, LISBON)
    assert found[0] == "deals.example"  # the word match stays first
    assert "flights.example" in found[1:5]


def test_without_the_site_stage_words_alone_find(session: Session, tmp_path: Path) -> None:
    index = _index(session, tmp_path / "index", sites=False)
    assert _sites_for(index, LISBON) == ["deals.example"]
    assert "sky.example" not in _sites_for(index, RAIN)


def test_a_sentence_ranks_a_site_found_by_meaning_alone(session: Session, tmp_path: Path) -> None:
    index = _index(session, tmp_path / "index", sites=True)
    assert "sky.example" in _sites_for(index, RAIN)[:3]
    keys = [hit.key for hit in search(index, FindQuery(q=RAIN, explain=True)).hits]
    assert "forecast" in keys[:3]
    for hit in search(index, FindQuery(q=RAIN, explain=True)).hits:  # explain still sums
        assert sum(p["score"] for p in hit.explain) == pytest.approx(hit.score, rel=1e-3, abs=1e-4)


def test_a_site_found_by_meaning_meets_the_filters(session: Session, tmp_path: Path) -> None:
    index = _index(session, tmp_path / "index", sites=True)
    assert "flights.example" not in _sites_for(index, LISBON, effect=["write"])
    assert "sky.example" not in _sites_for(index, RAIN, site=["books.example"])


def test_the_setting_decides_whether_site_vectors_are_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = committed_store(tmp_path, _sites)
    monkeypatch.delenv("ACTIONDEX_MEANING_SITES", raising=False)
    monkeypatch.delenv("ACTIONDEX_MEANING_FIRST_STAGE", raising=False)
    assert Settings(_env_file=None).meaning_sites is True  # type: ignore[call-arg]
    on = open_index(Settings(data_dir=tmp_path / "on"), engine, searching=True)
    assert on.vectors is not None and not on.vectors.actions and len(on.vectors) == 15
    assert "flights.example" in _sites_for(on, LISBON)
    monkeypatch.setenv("ACTIONDEX_MEANING_SITES", "false")
    off = open_index(Settings(data_dir=tmp_path / "off"), engine, searching=True)
    assert off.vectors is None and _sites_for(off, LISBON) == ["deals.example"]
    # A command that only writes (ingest, crawl) never keeps one, whatever the setting.
    monkeypatch.delenv("ACTIONDEX_MEANING_SITES")
    assert open_index(Settings(data_dir=tmp_path / "w"), engine).vectors is None
    engine.dispose()
