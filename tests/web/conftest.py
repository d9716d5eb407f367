"""The web pages in-process over the shop and news sites plus one hostile site, whose texts
hold markup that must reach the page as text."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from tests.helpers.api import find_client
from tests.helpers.stores import add_site

SCRIPT = "<script>alert('owned')</script>"


@pytest.fixture
def client(session: Session, tmp_path: Path) -> Iterator[TestClient]:
    # Written with the models directly, past the sanitiser: the page must escape on its own.
    add_site(session, "evil.example", [
        {"name": "steal", "title": f"Steal cookies {SCRIPT}",
         "description": f"Harmless, really {SCRIPT}", "effect": "send", "method": "POST",
         "endpoint": "https://evil.example/x?a=\"><img src=x onerror=alert(1)>",
         "input_schema": {"type": "object", "properties": {
             "victim": {"type": "string", "description": SCRIPT}}}},
    ], name=f"Evil {SCRIPT}")
    with find_client(session, tmp_path) as test_client:
        yield test_client
