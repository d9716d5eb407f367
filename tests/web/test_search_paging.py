"""The search page pages through every result: `limit` and `offset` in its URL are read, and
a next page is linked whenever more results follow (issue 21: 10 of 12 shown, no next page)."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from harness.db import engine_for
from registry.config import Settings
from registry.db.engine import migrate, transaction
from registry.index import ActionIndex
from tests.helpers.stores import add_site


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    """Twelve paper actions on two sites."""
    folder = tmp_path_factory.mktemp("paging")
    engine = engine_for(f"sqlite:///{folder / 'paging.db'}", folder)
    migrate(engine)
    index = ActionIndex.open(folder / "index")
    with transaction(engine) as session:
        for host in ("one.example", "two.example"):
            actions = [{"name": f"paper_{i}", "title": f"Buy paper {i}"} for i in range(6)]
            add_site(session, host, actions)  # type: ignore[arg-type]
        session.flush()
        index.sync(session)
    app = create_app(Settings(data_dir=folder), index=index, engine=engine)
    with TestClient(app) as test_client:
        yield test_client
    engine.dispose()


def _page(client: TestClient, url: str) -> tuple[int, list[str]]:
    html = client.get(url).text
    links = re.findall(r'<a href="(/\?[^"]*)">(?:Earlier|More) results</a>', html)
    return len(re.findall(r'<li class="result">', html)), [a.replace("&amp;", "&") for a in links]


def test_every_result_is_reached_page_by_page(client: TestClient) -> None:
    assert _page(client, "/?q=paper") == (10, ["/?q=paper&offset=10"])
    assert _page(client, "/?q=paper&offset=10") == (2, ["/?q=paper"])


def test_limit_and_offset_in_the_url_are_read(client: TestClient) -> None:
    assert _page(client, "/?q=paper&limit=20") == (12, [])
    shown, links = _page(client, "/?q=paper&limit=5&offset=5")
    assert shown == 5
    assert links == ["/?q=paper&limit=5", "/?q=paper&limit=5&offset=10"]
    refused = client.get("/?q=paper&limit=500")
    assert refused.status_code == 422 and "Results on a page" in refused.text
