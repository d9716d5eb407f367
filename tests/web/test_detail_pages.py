"""The action, flow and site pages over registry.store.lookup, and the prepare-call preview over
registry.calls.prepare: what they show, what they refuse, and that a site's text stays text."""

from __future__ import annotations

import json
import re
from pathlib import Path

from fastapi.testclient import TestClient

from api.app import create_app
from registry.config import Settings
from registry.db.engine import make_engine
from registry.model.schemas import stable_id
from tests.web.conftest import SCRIPT

CART = stable_id("shop.example", "agent-actions", "add_to_cart")
SEARCH = stable_id("shop.example", "agent-actions", "searchProducts")
CAKE = stable_id("bakery.example", "agent-actions", "order_cake")
STEAL = stable_id("evil.example", "agent-actions", "steal")
PURCHASE = stable_id("shop.example", "agent-actions", "flow:purchase")


def test_an_action_page_shows_the_action_and_its_input_as_a_table(client: TestClient) -> None:
    response = client.get(f"/view/actions/{CAKE}")
    assert response.status_code == 200
    assert "default-src 'none'" in response.headers["content-security-policy"]
    html = response.text
    assert "<h1>Order a cake</h1>" in html and "spends money: needs your approval" in html
    assert "<dd>POST</dd>" in html and "https://bakery.example/api/order_cake" in html
    assert "12.5 EUR" in html and "orders:write" in html
    row = html[html.index("<code>size</code>") :]
    row = row[: row.index("</tr>")]
    assert "<td>integer</td>" in row and "<td>yes</td>" in row
    assert "How many people it feeds" in row and "minimum: 1" in row and "maximum: 5" in row
    assert "<code>address.city</code>" in html  # nested fields as dotted paths
    assert "enum: lemon, chocolate" in html


def test_the_prepare_form_has_a_labelled_field_per_input(client: TestClient) -> None:
    html = client.get(f"/view/actions/{CAKE}").text
    assert f'action="/view/actions/{CAKE}/prepare#preview"' in html
    for name in ("size", "flavour", "gift", "address"):
        assert f'name="{name}"' in html
    # Fields in the schema's order (PostgreSQL's JSONB may store them in another)
    assert re.search(r'<label for="in-\d">size \(required\): integer</label>', html)
    assert '<option value="chocolate">' in html and '<option value="true">' in html
    assert "address (required)" not in html and "object, as JSON" in html


def test_the_preview_shows_the_planned_request_and_sends_nothing(client: TestClient) -> None:
    form = {"size": "2", "flavour": "lemon", "gift": "true", "address": '{"city": "Gent"}'}
    api = client.post(
        f"/actions/{CAKE}/prepare",
        json={"input": {"size": 2, "flavour": "lemon", "gift": True, "address": {"city": "Gent"}}},
    )
    response = client.post(f"/view/actions/{CAKE}/prepare", data=form)
    assert response.status_code == 200
    html = response.text.replace("&#34;", '"')
    assert "POST https://bakery.example/api/order_cake" in html
    assert "Content-Type: application/json" in html
    body = json.loads(html.split("application/json\n\n", 1)[1].split("</code>", 1)[0])
    assert body == {"size": 2, "flavour": "lemon", "gift": True, "address": {"city": "Gent"}}
    if api.status_code == 200:  # the REST route, once it is there, plans the same request
        assert json.loads(api.json()["body"]) == body
    assert "<strong>yes</strong>" in html  # needs approval: it spends
    assert 'value="2"' in html and '<option value="lemon" selected>' in html  # kept


def test_a_get_action_puts_its_input_in_the_query(client: TestClient) -> None:
    html = client.post(f"/view/actions/{SEARCH}/prepare", data={}).text
    assert "This action takes no input." in html
    assert "GET https://shop.example/api/searchProducts" in html
    assert "<dt>Needs approval</dt><dd>no</dd>" in html


def test_bad_input_lists_every_problem_with_its_path_and_422(client: TestClient) -> None:
    response = client.post(f"/view/actions/{CAKE}/prepare", data={"flavour": "vanilla"})
    assert response.status_code == 422
    html = response.text
    assert 'role="alert"' in html and "The call cannot be prepared" in html
    assert "<code>$.size</code>" in html or "<code>$</code>" in html  # required is missing
    assert "<code>$.flavour</code>" in html
    assert "The planned request" not in html
    wrong = client.post(f"/view/actions/{CAKE}/prepare", data={"size": "lots"})
    assert wrong.status_code == 422 and "<code>$.size</code>" in wrong.text


def test_a_flow_page_resolves_its_steps_to_their_actions(client: TestClient) -> None:
    html = client.get(f"/view/flows/{PURCHASE}").text
    assert "<h1>Buy a product</h1>" in html
    assert f'href="/view/actions/{CART}"' in html and "Pay" in html
    assert "<code>sku</code> from <code>$steps.0.sku</code>" in html


def test_a_site_page_lists_actions_flows_documents_and_diagnostics(client: TestClient) -> None:
    html = client.get("/view/sites/shop.example").text
    assert "<h1>Example Shop</h1>" in html and "Office supplies" in html
    assert f'href="/view/actions/{CART}"' in html and f'href="/view/flows/{PURCHASE}"' in html
    assert "https://shop.example/.well-known/agent-actions.json" in html
    assert "No crawl run is recorded" in html
    assert client.get("/view/sites/SHOP.example").status_code == 200  # as users name it
    crawled = client.get("/view/sites/bakery.example").text
    assert "(crawl, finished)" in crawled and "<code>robots-unavailable</code>" in crawled


def test_unknown_ids_and_hosts_are_an_html_404(client: TestClient) -> None:
    for url in (
        "/view/actions/nope",
        f"/view/actions/{'a' * 400}",
        "/view/flows/nope",
        "/view/sites/nowhere.example",
        f"/view/sites/{'a' * 400}.example",
    ):
        response = client.get(url)
        assert response.status_code == 404, url
        assert response.headers["content-type"].startswith("text/html")
        assert "<h1>Not found</h1>" in response.text and '<main id="main"' in response.text
    missing = client.post("/view/actions/nope/prepare", data={"q": "x"})
    assert missing.status_code == 404


def test_a_hostile_site_reaches_its_pages_as_text(client: TestClient) -> None:
    for url in (f"/view/actions/{STEAL}", "/view/sites/evil.example"):
        html = client.get(url).text
        assert SCRIPT not in html and "<img" not in html, url
        assert "&lt;script&gt;" in html, url
    preview = client.post(f"/view/actions/{STEAL}/prepare", data={"victim": SCRIPT}).text
    assert SCRIPT not in preview and "&lt;script&gt;" in preview


def test_a_store_that_does_not_answer_is_a_503_page(tmp_path: Path) -> None:
    away = make_engine(
        Settings(data_dir=tmp_path, database_url="postgresql://postgres@127.0.0.1:1/none")
    )
    app = create_app(Settings(data_dir=tmp_path), engine=away)
    with TestClient(app, raise_server_exceptions=False) as client:
        for url in (f"/view/actions/{CART}", "/view/sites/shop.example"):
            response = client.get(url)
            assert response.status_code == 503, url
            assert "The registry is not answering" in response.text
            assert "Traceback" not in response.text and "127.0.0.1:1" not in response.text
