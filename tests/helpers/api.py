"""The API in-process: GET /find over the shop and news sites, and the error shape it answers."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from api.app import create_app
from registry.config import Settings
from registry.index import ActionIndex
from tests.helpers.stores import shop_and_news


@contextmanager
def find_client(session: Session, tmp_path: Path) -> Iterator[TestClient]:
    """A client of the app over an index of ``shop_and_news``, built from ``session``."""
    shop_and_news(session)
    index = ActionIndex.open(tmp_path / "index")
    index.sync(session)
    app = create_app(Settings(data_dir=tmp_path), index=index)
    with TestClient(app, raise_server_exceptions=False) as test_client:
        yield test_client


def error(response: object) -> dict[str, object]:
    """The body's one ``error`` object (code, message, field), its shape checked."""
    body = response.json()  # type: ignore[attr-defined]
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message", "field"}
    return body["error"]  # type: ignore[no-any-return]


# An agent's long request (84 words, 569 characters): what it wants, "fountain pens", comes
# last, after more than 32 other words (the most one search scores).
LONG_REQUEST = (
    "Good morning, our small design studio in Leeds keeps running out of basic supplies "
    "because nobody tracks them, and last week three colleagues missed deadlines while waiting "
    "for deliveries from a wholesaler across town. The accountant insists every purchase "
    "follows the quarterly budget, the office manager wants fewer suppliers, and the interns "
    "simply want something reliable to sketch with during client workshops, presentations, "
    "brainstorming sessions and long afternoons of drafting. Honestly, what would solve "
    "everything right now is a good supply of fountain pens."
)
