"""The validator page: a pasted manifest or a URL, every diagnostic shown with its hint, as
POST /validate reports it; what the owner pasted comes back as text, never as markup."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from actiondex.demo.web import DemoWeb
from api.app import create_app
from api.routes.validate import fetch_flags
from registry.config import Settings
from registry.formats import MAX_BYTES
from tests.helpers.paths import FIXTURES
from tests.helpers.validate import SITES, resolve_flags

BROKEN = FIXTURES / "web" / "broken-agent-actions.json"


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(Settings(data_dir=tmp_path))) as test_client:
        yield test_client


def test_the_page_is_a_labelled_form(client: TestClient) -> None:
    html = client.get("/validator").text
    for name in ("url", "manifest", "origin"):
        assert f'<label for="{name}">' in html and f'name="{name}"' in html
    assert 'method="post" action="/validator"' in html


def test_each_diagnostic_is_shown_with_its_hint(client: TestClient) -> None:
    manifest = BROKEN.read_text()
    api = client.post("/validate", content=manifest).json()
    response = client.post("/validator", data={"manifest": manifest})
    assert response.status_code == 200
    html = response.text.replace("&#39;", "'")
    assert api["diagnostics"]
    for diagnostic in api["diagnostics"]:
        assert f"<code>{diagnostic['code']}</code>" in html
        assert f"<code>{diagnostic['path']}</code>" in html
        assert diagnostic["message"] in html and diagnostic["hint"] in html
    assert "<code>order_cake</code>" in html  # the action agents will see


def test_a_broken_document_is_an_error_in_words(client: TestClient) -> None:
    html = client.post("/validator", data={"manifest": '{"schema": "agent-actions/0.1",'}).text
    assert "<code>json-parse-error</code>" in html and ">error<" in html
    assert "1 error: agents will miss part of it" in html


def test_the_pasted_manifest_comes_back_as_text(client: TestClient) -> None:
    html = client.post("/validator", data={"manifest": BROKEN.read_text()}).text
    assert "<script>" not in html
    assert "&lt;/textarea&gt;&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert html.count("</textarea>") == 1


def test_the_origin_places_the_manifest(client: TestClient) -> None:
    manifest = '{"schema": "agent-actions/0.1", "actions": [{"name": "ping", "path": "/p"}]}'
    html = client.post(
        "/validator", data={"manifest": manifest, "origin": "https://ping.example"}
    ).text
    assert "https://ping.example/p" in html
    bad = client.post("/validator", data={"manifest": manifest, "origin": "ftp://x"})
    assert bad.status_code == 422 and 'role="alert"' in bad.text


def test_nothing_to_validate_or_a_bad_url_is_a_422_page(client: TestClient) -> None:
    for data in ({"manifest": "  "}, {"url": "--allow-private"}, {"url": "file:///etc/passwd"}):
        response = client.post("/validator", data=data)
        assert response.status_code == 422, data
        assert 'role="alert"' in response.text and "<h1>Validate a manifest</h1>" in response.text


def test_a_manifest_past_the_limit_is_refused_unread(client: TestClient) -> None:
    response = client.post("/validator", data={"manifest": "x" * (MAX_BYTES + 1)})
    assert response.status_code == 413 and "larger than" in response.text


def test_a_private_url_is_refused_as_post_validate_refuses_it(client: TestClient) -> None:
    response = client.post("/validator", data={"url": "http://127.0.0.1:9/"})
    api = client.post("/validate", json={"url": "http://127.0.0.1:9/"})
    assert response.status_code == api.status_code == 403  # a policy's refusal (RELIABILITY 57)
    api = api.json()
    assert api["error"]["message"].replace("'", "&#39;") in response.text


@pytest.mark.timeout(300)
def test_a_url_is_fetched_and_every_document_reported(client: TestClient) -> None:
    with DemoWeb(root=SITES) as web:
        client.app.dependency_overrides[fetch_flags] = lambda: resolve_flags(web)  # type: ignore[attr-defined]
        html = client.post("/validator", data={"url": f"http://inkpot.test:{web.port}/"}).text
    assert f"http://inkpot.test:{web.port}/.well-known/ai-plugin.json" in html
    assert "<code>searchInks</code>" in html and "<code>ai-plugin</code>" in html
