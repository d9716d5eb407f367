"""Stores with ARD catalogs for the /ard tests: the two catalogs in tests/fixtures/ard-registry
crawled as their sites would serve them, beside the shop and news sites."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest
import yaml
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from api.app import create_app
from api.deps import get_session
from registry.config import Settings
from registry.index import ActionIndex
from registry.model.schemas import RawDocument, SiteCrawl
from registry.normalising import normalise_site
from registry.store.promotion import promote_site
from tests.helpers.paths import FIXTURES, SHARED
from tests.helpers.stores import shop_and_news

CATALOGS = FIXTURES / "ard-registry"
# host -> (the path it serves its catalog at, the fixture)
SITES = {
    "weather.example": ("/.well-known/ard.json", "weather.json"),
    "tools.example": ("/.well-known/ai-catalog.json", "tools.json"),
}


def store_site(session: Session, host: str, documents: dict[str, bytes]) -> None:
    """``documents`` (path -> body) as one crawl of https://``host``, promoted."""
    origin = f"https://{host}"
    raw = [
        RawDocument(url=origin + path, body=body, status=200) for path, body in documents.items()
    ]
    promote_site(session, normalise_site(SiteCrawl(host=host, origin=origin, documents=raw)))


def ard_store(session: Session) -> None:
    shop_and_news(session)
    for host, (path, name) in SITES.items():
        store_site(session, host, {path: (CATALOGS / name).read_bytes()})
    session.flush()


@contextmanager
def ard_client(session: Session, tmp_path: Path, **settings: Any) -> Iterator[TestClient]:
    """A client of the app over ``ard_store``, reading through ``session``."""
    ard_store(session)
    index = ActionIndex.open(tmp_path / "index")
    index.sync(session)
    app = create_app(Settings(data_dir=tmp_path, **settings), index=index)
    app.dependency_overrides[get_session] = lambda: session
    with TestClient(app, raise_server_exceptions=False) as client:
        yield client


SPEC = SHARED / "specs" / "ard"
# The spec's OpenAPI points at ard-entry.schema.json, which is not published with it; these
# are its two definitions as ard.md section 4.2 states them (all terms open).
_STRINGS = {"type": "array", "items": {"type": "string"}}
ENTRY_DEFS = {
    "EntryFields": {
        "type": "object",
        "properties": {
            "identifier": {"type": "string"},
            "displayName": {"type": "string"},
            "type": {"type": "string"},
            "url": {"type": "string"},
            "description": {"type": "string"},
            "tags": _STRINGS,
            "capabilities": _STRINGS,
            "representativeQueries": _STRINGS,
            "version": {"type": "string"},
            "metadata": {"type": "object"},
            "trustManifest": {"type": "object"},
        },
    },
    "ArdEntry": {
        "allOf": [{"$ref": "#/$defs/EntryFields"}],
        "required": ["identifier", "displayName", "type"],
        "oneOf": [{"required": ["url"]}, {"required": ["data"]}],
    },
}


def spec_validator(name: str) -> Any:
    """A validator of the spec's component schema ``name`` (skips without ../shared)."""
    path = SPEC / "ard.openapi.yaml"
    if not path.exists():
        pytest.skip(f"{path} is absent: the ARD spec lives in ../shared beside the clone")
    text = path.read_text().replace("./ard-entry.schema.json#/$defs/", "#/$defs/")
    text = text.replace("#/components/schemas/", "#/$defs/")
    schemas = yaml.safe_load(text)["components"]["schemas"]
    schemas.update(ENTRY_DEFS)
    return jsonschema_rs.validator_for({"$defs": schemas, "$ref": f"#/$defs/{name}"})
