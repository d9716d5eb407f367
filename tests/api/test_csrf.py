"""No cross-site POST to /submissions, /validate or the /validator form (issue 25 item 5): a
page elsewhere could make its visitors' browsers submit a form or text/plain there (no CORS
preflight for those), spending their addresses' quotas. A foreign Origin is 403, a media
type a browser sends without asking is 415; curl and agents (no Origin) and this server's
own page pass. The last test is the attack itself, in chromium, against `actiondex serve`."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from actiondex.submitting import target_check
from api.app import create_app
from api.csrf import own_origin
from harness.db import engine_for
from harness.procs import serving
from harness.web import LoopbackWeb, Site, html_reply
from registry.config import Settings
from registry.db.engine import migrate, reading
from registry.db.tables import Submission
from tests.helpers.paths import FIXTURES

pytestmark = pytest.mark.timeout(180)
FOREIGN = {"Origin": "https://evil.example"}
OWN = {"Origin": "http://testserver"}  # TestClient's Host
JSON = {"Content-Type": "application/json"}
MANIFEST = (FIXTURES / "web" / "broken-agent-actions.json").read_text()


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    engine = engine_for(f"sqlite:///{tmp_path / 'csrf.db'}", tmp_path)
    migrate(engine)
    settings = Settings(data_dir=tmp_path, rate_limit=0)
    app = create_app(settings, engine=engine, target_check=target_check(settings))
    with TestClient(app, raise_server_exceptions=False) as test_client:
        test_client.submissions = lambda: _count(engine)  # type: ignore[attr-defined]
        yield test_client
    engine.dispose()


def _count(engine: object) -> int:
    with reading(engine) as session:  # type: ignore[arg-type]
        return session.scalar(select(func.count()).select_from(Submission)) or 0


def _code(response: object) -> tuple[int, str]:
    return response.status_code, response.json()["error"]["code"]  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "headers,body",
    [
        ({"Content-Type": "text/plain", **FOREIGN}, '{"url": "a.example.org"}'),
        ({"Content-Type": "application/x-www-form-urlencoded", **FOREIGN}, "url=a.example.org"),
        ({**JSON, **FOREIGN}, '{"url": "a.example.org"}'),
        ({**JSON, "Origin": "null"}, '{"url": "a.example.org"}'),
        ({**JSON, "Origin": "http://testserver:8080"}, '{"url": "a.example.org"}'),
    ],
)
def test_a_submission_from_another_origin_is_403(
    client: TestClient, headers: dict[str, str], body: str
) -> None:
    response = client.post("/submissions", content=body, headers=headers)
    assert _code(response) == (403, "cross-origin")
    assert response.json()["error"]["field"] == "Origin"
    assert client.submissions() == 0  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "media",
    [
        "text/plain",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        "application/yaml",
        "",
    ],
)
def test_a_submission_that_is_not_json_is_415(client: TestClient, media: str) -> None:
    headers = {"Content-Type": media} if media else {}
    response = client.post("/submissions", content='{"url": "b.example.org"}', headers=headers)
    assert _code(response) == (415, "unsupported-media-type")
    assert "application/json" in response.json()["error"]["message"]
    assert client.submissions() == 0  # type: ignore[attr-defined]


def test_json_with_no_origin_or_our_own_is_taken(client: TestClient) -> None:
    assert client.post("/submissions", json={"url": "c.example.org"}).status_code == 202
    assert (
        client.post("/submissions", json={"url": "d.example.org"}, headers=OWN).status_code == 202
    )
    assert (
        client.post(
            "/submissions",
            content='{"url": "e.example.org"}',
            headers={"Content-Type": "application/merge-patch+json; charset=utf-8"},
        ).status_code
        == 202
    )


@pytest.mark.parametrize(
    "headers,status",
    [
        ({"Content-Type": "text/plain"}, 415),
        ({"Content-Type": "application/x-www-form-urlencoded"}, 415),
        ({"Content-Type": "multipart/form-data; boundary=x"}, 415),
        ({**JSON, **FOREIGN}, 403),
        ({"Content-Type": "text/plain", **FOREIGN}, 403),
        ({**JSON, "Origin": "null"}, 403),
        ({}, 200),
        (JSON, 200),
        ({**JSON, **OWN}, 200),
        ({"Content-Type": "application/yaml"}, 200),
        ({"Content-Type": "text/html"}, 200),
        ({"Content-Type": "text/markdown"}, 200),
    ],
)
def test_validate_takes_documents_from_no_origin_or_its_own(
    client: TestClient, headers: dict[str, str], status: int
) -> None:
    response = client.post("/validate", content=MANIFEST, headers=headers)
    assert response.status_code == status, response.text
    if status != 200:
        assert response.json()["error"]["code"] in ("cross-origin", "unsupported-media-type")


def test_the_validator_form_is_refused_from_another_origin_only(client: TestClient) -> None:
    form = {"manifest": MANIFEST}
    assert client.post("/validator", data=form, headers=FOREIGN).status_code == 403
    assert client.post("/validator", data=form, headers={"Origin": "null"}).status_code == 403
    assert client.post("/validator", data=form, headers=OWN).status_code == 200
    assert client.post("/validator", data=form).status_code == 200


@pytest.mark.parametrize(
    "origin,host,own",
    [
        ("http://127.0.0.1:8000", "127.0.0.1:8000", True),
        ("https://registry.example", "registry.example", True),  # TLS ended by a proxy
        ("https://registry.example", "registry.example:443", True),
        ("http://registry.example:8443", "registry.example:8443", True),
        ("http://[::1]:8000", "[::1]:8000", True),
        ("https://registry.example.evil.example", "registry.example", False),
        ("https://registry.example:8443", "registry.example", False),
        ("http://registry.example", "registry.example:8000", False),
        ("null", "registry.example", False),
        ("ftp://registry.example", "registry.example", False),
        ("http://registry.example:99999", "registry.example", False),
    ],
)
def test_own_origin(origin: str, host: str, own: bool) -> None:
    assert own_origin(origin, host) is own


CHROMIUM = Path("/usr/bin/chromium")


@pytest.mark.skipif(
    not CHROMIUM.exists() and not os.environ.get("CI"),
    reason=f"{CHROMIUM} is absent: `make browser` installs Debian's chromium",
)
def test_a_page_elsewhere_cannot_submit_through_its_visitors_browser(tmp_path: Path) -> None:
    """A page on another origin (127.0.0.2) auto-submits a text/plain form whose body is
    the JSON a submission takes (the classic trick); the visitor's chromium sends it with the
    page's Origin, and nothing is queued. The server's own validator page still posts."""
    sync_api = pytest.importorskip("playwright.sync_api")
    with serving(tmp_path) as base:
        attack = (
            f'<form method="post" action="{base}/submissions" enctype="text/plain">'
            "<input name='{\"url\": \"csrf.example.org?' value='\"}'>"
            "<button>Win a prize</button></form>"
        )
        evil = Site({"/": html_reply(f"<!doctype html><title>Prize</title>{attack}")})
        with (
            LoopbackWeb({"127.0.0.2": evil}, host="127.0.0.2") as web,
            sync_api.sync_playwright() as playwright,
        ):
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM))
            page = browser.new_page()
            page.goto(web.url("127.0.0.2"))
            with page.expect_response(f"{base}/submissions") as answer:
                page.get_by_role("button", name="Win a prize").click()
            refused = answer.value
            assert refused.status == 403 and refused.json()["error"]["code"] == "cross-origin"
            assert refused.request.all_headers()["origin"] == web.url("127.0.0.2").rstrip("/")
            page.goto(f"{base}/validator")  # our own page: its form posts, with our Origin
            page.get_by_label("A manifest to paste", exact=False).fill(MANIFEST)
            with page.expect_response(f"{base}/validator") as answer:
                page.get_by_role("button", name="Validate").click()
            assert answer.value.status == 200
            assert answer.value.request.all_headers()["origin"] == base
            assert "missing-field" in page.locator("section.report").inner_text()
            browser.close()
    assert _count(engine_for(f"sqlite:///{tmp_path / 'actiondex.db'}", tmp_path)) == 0
