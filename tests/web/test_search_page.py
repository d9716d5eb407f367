"""The search page at /: results, effect filters, the same bounds and messages as GET /find,
escaping, headers, and a form that works without JavaScript."""

from __future__ import annotations

from html.parser import HTMLParser
from urllib.parse import urlencode

from fastapi.testclient import TestClient

from registry.search.contract import MAX_QUERY_CHARS
from tests.helpers.api import LONG_REQUEST
from tests.web.conftest import SCRIPT


def test_the_empty_page_is_a_search_form_with_landmarks(client: TestClient) -> None:
    response = client.get("/")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    html = response.text
    assert '<html lang="en">' in html
    assert '<a class="skip" href="#main">' in html and '<main id="main"' in html
    assert '<label for="q">' in html and 'id="q" name="q"' in html
    assert "Results for" not in html


def test_every_page_carries_a_strict_content_security_policy(client: TestClient) -> None:
    for url in ("/", "/?q=search", "/validator", "/?q="):
        csp = client.get(url).headers["content-security-policy"]
        assert "default-src 'none'" in csp and "script-src" not in csp, url
        assert "frame-ancestors 'none'" in csp and "form-action 'self'" in csp


def test_results_show_site_action_effect_method_endpoint_inputs_and_cost(
    client: TestClient,
) -> None:
    html = client.get("/?q=add+to+cart").text
    assert 'href="/view/sites/shop.example"' in html
    assert "<code>add_to_cart</code>" in html
    assert "changes data on the site" in html  # the effect in words, not only a colour
    assert "<dd>POST</dd>" in html and "https://shop.example/api/add_to_cart" in html
    assert "<code>sku</code>" in html
    assert "none stated" in html  # no cost given


def test_the_results_link_to_the_same_search_as_json(client: TestClient) -> None:
    html = client.get("/?q=add+to+cart&effect=write").text
    link = html.split('as JSON: <a href="', 1)[1].split('"', 1)[0].replace("&amp;", "&")
    assert link == "/find?q=add+to+cart&effect=write&limit=10"
    assert client.get(link).json()["results"][0]["name"] == "add_to_cart"


def test_an_effect_filter_keeps_only_that_effect(client: TestClient) -> None:
    every = client.get("/?q=search").text
    assert "searchProducts" in every
    html = client.get("/?" + urlencode([("q", "account"), ("effect", "delete")])).text
    assert "<code>delete_account</code>" in html
    assert 'value="delete" checked' in html  # the form remembers the filter
    read_only = client.get("/?" + urlencode([("q", "account"), ("effect", "read")])).text
    assert "delete_account" not in read_only


def test_a_query_find_refuses_is_explained_on_the_page_with_422(client: TestClient) -> None:
    for params in (
        {"q": ""},
        {"q": "x " * 520},
        {"q": "x", "effect": "maybe"},
        {"q": "x", "site": "not a host!"},
        {"q": "x", "offset": "9999"},
    ):
        page = client.get("/", params=params)
        api = client.get("/find", params=params)
        assert page.status_code == api.status_code == 422, params
        message = api.json()["error"]["message"]
        assert message.replace("'", "&#39;") in page.text, (params, message)
        assert 'role="alert"' in page.text


def test_a_long_request_is_searched_and_the_page_says_it_was_shortened(client: TestClient) -> None:
    html = client.get("/", params={"q": LONG_REQUEST}).text
    assert 'id="shortened"' in html and "searched by its 32 rarest words" in html
    assert 'id="shortened"' not in client.get("/?q=add+to+cart").text
    assert f'maxlength="{MAX_QUERY_CHARS}"' in html


def test_hostile_text_reaches_the_page_as_text(client: TestClient) -> None:
    html = client.get("/?q=steal+cookies").text
    assert "Steal cookies" in html
    assert SCRIPT not in html and "<img" not in html
    assert "&lt;script&gt;alert(&#39;owned&#39;)&lt;/script&gt;" in html
    asked = client.get("/", params={"q": '"><script>alert(2)</script>'}).text
    assert "<script>alert(2)" not in asked and "&lt;script&gt;alert(2)" in asked


class _Form(HTMLParser):
    """The search form's action and the values it would submit as it stands."""

    def __init__(self) -> None:
        super().__init__()
        self.action, self.fields = "", []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "form" and a.get("role") == "search":
            self.action = a["action"] or ""
        if tag == "input" and a.get("name"):
            if a.get("type") == "checkbox" and "checked" not in a:
                return
            self.fields.append((a["name"], a.get("value") or ""))


def test_the_form_works_without_javascript(client: TestClient) -> None:
    """A browser with scripts off submits a GET form by its names: do what it would do."""
    form = _Form()
    form.feed(client.get("/").text)
    assert form.action == "/" and [n for n, _ in form.fields] == ["q", "site"]
    values = [(n, "place the order" if n == "q" else v) for n, v in form.fields]
    values.append(("effect", "spend"))
    html = client.get(form.action + "?" + urlencode(values)).text
    assert "<code>checkout</code>" in html and "subscribe" not in html


def test_further_pages_are_links(client: TestClient) -> None:
    html = client.get("/?q=search").text
    assert "More results" not in html and "Earlier" not in html  # less than a page
    later = client.get("/?q=search&offset=10").text
    assert later.count('<li class="result">') == 0
    assert '<a href="/?q=search">Earlier results</a>' in later


def test_the_pages_are_not_in_the_openapi_document(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    assert "/" not in paths and "/validator" not in paths
    assert not [p for p in paths if p.startswith("/view")]
