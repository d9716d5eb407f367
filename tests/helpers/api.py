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
