"""POST /validate through the ASGI app: a posted manifest, or a URL fetched by a child
`actiondex validate` behind the crawler's address guard."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from actiondex.demo.web import DemoWeb
from actiondex.validating import validate_file
from api.app import create_app
from api.routes.validate import URL_FORM, fetch_flags
from registry.config import Settings
from tests.helpers.validate import FILES, REPORT_KEYS, SITES, codes, resolve_flags

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def web() -> Iterator[DemoWeb]:
    with DemoWeb(root=SITES) as served:
        yield served


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    app = create_app(Settings(data_dir=tmp_path))
    with TestClient(app, raise_server_exceptions=False) as test_client:
        yield test_client


def test_post_a_manifest(client: TestClient) -> None:
    response = client.post("/validate", content=(FILES / "shop.json").read_bytes())
    assert response.status_code == 200 and set(response.json()) == REPORT_KEYS
    response = client.post(
        "/validate",
        params={"origin": "https://ping.example"},
        content=(FILES / "no-site.json").read_bytes(),
    )
    assert codes(response.json()) == {}
    broken = client.post("/validate", content=(FILES / "broken.json").read_bytes()).json()
    assert codes(broken) == {"json-parse-error": "error"}


@pytest.mark.parametrize("body", [b"\x00", b"{not json", b"NaN", b'{"a": Infinity}'])
def test_a_body_sent_as_json_must_be_json(client: TestClient, body: bytes) -> None:
    """Issue 21 (schemathesis): bytes that are no JSON sent as application/json were a 200
    report. The OpenAPI document says where such bytes go (application/octet-stream, or no
    Content-Type), and there they are reported."""
    as_json = client.post("/validate", content=body, headers={"content-type": "application/json"})
    error = as_json.json()["error"]
    assert as_json.status_code == 422 and error["field"] == "body", as_json.text
    assert "application/octet-stream" in error["message"]
    raw = client.post(
        "/validate", content=body, headers={"content-type": "application/octet-stream"}
    )
    assert raw.status_code == 200 and any(codes(raw.json()).values()), raw.text


@pytest.mark.parametrize(
    "body,status,field",
    [
        ({"url": "http://127.0.0.1:9/"}, 403, "url"),  # the guard's refusal (issue 21)
        ({"url": "--allow-private"}, 422, "url"),
        ({"url": "pyproject.toml/x"}, 422, "url"),
        ({"url": "http://shop.invalid:0/"}, 403, "url"),  # issue 25 item 10; 21: fits the schema
        ({"url": "https://shop.invalid/a%0d%0ab.json"}, 403, "url"),
        # the guard let it pass, the crawl could not read the host: was 200 `internal-error`
        ({"url": "http://127%2e0.0.1:9/"}, 403, "url"),
        ({"url": "https://shop%2eexample/"}, 403, "url"),
    ],
)
def test_post_bad_urls_are_structured_errors(
    client: TestClient, body: dict[str, Any], status: int, field: str
) -> None:
    response = client.post("/validate", json=body)
    error = response.json()["error"]
    assert response.status_code == status and error["field"] == field and error["message"]
    # Issue 21: a url that fits the published schema is refused (403), never a 422
    assert (status == 422) == (re.fullmatch(URL_FORM, body["url"]) is None), body


def test_post_with_an_origin_at_port_0_is_422(client: TestClient) -> None:
    """Issue 25 item 10: ``:0`` was read as the default port and the manifest placed there."""
    response = client.post(
        "/validate",
        params={"origin": "https://ping.example:0"},
        content=(FILES / "no-site.json").read_bytes(),
    )
    error = response.json()["error"]
    assert response.status_code == 422 and error["field"] == "origin"
    assert "a port from 1 to 65535" in error["message"]  # said by the published pattern


def test_post_too_large_is_413(client: TestClient) -> None:
    response = client.post("/validate", content=b" " * (2 << 20))
    assert response.status_code == 413 and response.json()["error"]["code"] == "too-large"


def test_post_url_never_reaches_private_addresses(client: TestClient, web: DemoWeb) -> None:
    before = len(web.requests())
    response = client.post("/validate", json={"url": f"http://localhost:{web.port}/"})
    # localhost names are loopback (RFC 6761): refused up front, as 127.0.0.1 is
    assert response.status_code == 403 and "loopback" in response.json()["error"]["message"]
    assert len(web.requests()) == before  # the server saw nothing


def test_post_url_validates_a_site(client: TestClient, web: DemoWeb) -> None:
    client.app.dependency_overrides[fetch_flags] = lambda: resolve_flags(web)  # type: ignore[attr-defined]
    report = client.post("/validate", json={"url": f"http://inkpot.test:{web.port}/"}).json()
    assert report["site"] == f"inkpot.test:{web.port}"  # its key: the web is not on port 80
    [plugin] = [d for d in report["documents"] if d["format"] == "ai-plugin"]
    # the OpenAPI the crawler fetched as a reference is read through the ai-plugin.json
    assert {a["name"] for a in plugin["actions"]} == {"inkpot", "searchInks"}


def test_post_deeply_nested_json_is_the_cli_s_depth_limit_report(
    client: TestClient, tmp_path: Path
) -> None:
    """1,000 nested brackets once overflowed the {"url"} sniff's json.loads: a 500."""
    body = b"[" * 1000 + b"]" * 1000
    response = client.post("/validate", content=body)
    assert response.status_code == 200
    deep = tmp_path / "deep.json"
    deep.write_bytes(body)
    assert response.json() == validate_file(deep, None).public()
    assert codes(response.json()) == {"depth-limit": "error"}


def test_post_an_html_page_reads_its_schema_org_actions(client: TestClient) -> None:
    page = (FILES / "page.html").read_bytes()
    report = client.post("/validate", content=page).json()
    assert report == validate_file(FILES / "page.html", None).public()
    assert report["format"] == "schemaorg" and report["actions"][0]["type"] == "SearchAction"
    bare = client.post("/validate", content=(FILES / "bare.html").read_bytes()).json()
    assert codes(bare) == {"no-actions": "warning"}


def test_post_with_a_bare_host_as_origin_is_that_site(client: TestClient) -> None:
    """Issue 21: `?origin=shop.example` was "must be an http(s) URL" while the CLI's --origin
    and the web validator take a bare host (meaning https)."""
    body = (FILES / "no-site.json").read_bytes()
    bare = client.post("/validate", params={"origin": "ping.example"}, content=body)
    assert bare.status_code == 200, bare.text
    full = client.post("/validate", params={"origin": "https://ping.example"}, content=body)
    assert bare.json() == full.json() and "ping.example" in bare.text
    port = client.post("/validate", params={"origin": "ping.example:8080"}, content=body)
    assert port.status_code == 200, port.text
    refused = client.post("/validate", params={"origin": "not a host!"}, content=body)
    assert refused.status_code == 422 and refused.json()["error"]["field"] == "origin"


@pytest.mark.parametrize(
    "body",
    [
        b'{"schema": "agent-actions/0.1", "site": "shop.example", "actions": []}',
        b'<html><head><script type="application/ld+json">{"@context": "https://schema.org", '
        b'"@type": "Organization", "name": "Shop", "url": "https://shop.example/"}'
        b"</script></head><body>Shop</body></html>",
    ],
)
def test_a_document_without_actions_gets_a_diagnostic(client: TestClient, body: bytes) -> None:
    """Issue 21: a manifest with no actions, or a page without any, was reported clean."""
    response = client.post("/validate", content=body)
    assert response.status_code == 200, response.text
    report = response.json()
    assert report["actions"] == [] and codes(report).get("no-actions") == "warning", report
