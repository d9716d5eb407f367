"""The pages in a real headless browser: Debian's chromium driven by Playwright, against a
live `actiondex serve` over two ingested shops. A person searches, filters by effect, opens a
result, previews a call, opens the site, validates a broken manifest; another uses only the
keyboard. Screenshots go under the test's tmp dir, and to $ACTIONDEX_SCREENSHOTS if set.

`make test` installs chromium when /usr/bin/chromium is absent (the Makefile's `browser`
step); run by hand without it, these tests skip and say so (under CI they fail instead).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.procs import serving
from tests.helpers.cli import run
from tests.helpers.paths import FIXTURES

CHROMIUM = Path("/usr/bin/chromium")
BROKEN = FIXTURES / "web" / "broken-agent-actions.json"

if not CHROMIUM.exists() and not os.environ.get("CI"):
    pytest.skip(
        f"{CHROMIUM} is absent: `make browser` installs Debian's chromium", allow_module_level=True
    )
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is in the test extra")
pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    data_dir = tmp_path_factory.mktemp("web-data")
    for shop in ("shop", "checkout"):
        assert run(data_dir, "ingest", str(FIXTURES / "ingest" / shop)).returncode == 0
    with serving(data_dir) as url:
        yield url


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM))
        yield launched
        launched.close()


class Shots:
    """Saves numbered screenshots of a page, and checks it never logged an error (a blocked
    stylesheet, a CSP violation) along the way."""

    def __init__(self, page: object, folder: Path) -> None:
        self.page, self.folder, self.errors, self.count = page, folder, [], 0
        folder.mkdir(parents=True, exist_ok=True)
        page.on("console", lambda m: m.type == "error" and self.errors.append(m.text))
        page.on("pageerror", lambda e: self.errors.append(str(e)))

    def take(self, name: str) -> None:
        self.count += 1
        path = self.folder / f"{self.count:02d}-{name}.png"
        self.page.screenshot(path=str(path), full_page=True)
        if os.environ.get("ACTIONDEX_SCREENSHOTS"):
            target = Path(os.environ["ACTIONDEX_SCREENSHOTS"])
            target.mkdir(parents=True, exist_ok=True)
            shutil.copy(path, target / f"{self.folder.name}-{path.name}")
        assert not self.errors, self.errors


@pytest.fixture
def page(browser: object, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[object]:
    context = browser.new_context(
        java_script_enabled=False, viewport={"width": 1100, "height": 800}
    )
    opened = context.new_page()
    opened.shots = Shots(opened, tmp_path / "screenshots" / request.node.name)
    yield opened
    context.close()


def test_search_filter_open_prepare_site_and_validate(page: object, base: str) -> None:
    shots = page.shots
    page.goto(base + "/")
    shots.take("home")
    # The stylesheet loaded under the page's CSP: the skip link is moved off screen.
    assert page.eval_on_selector(".skip", "e => e.getBoundingClientRect().right") < 0

    page.get_by_label("What do you want to do?").fill("buy printer paper")
    page.get_by_role("button", name="Search").click()
    results = page.locator("ol.results > li")
    assert results.count() >= 2
    assert "paperworks.example" in page.locator("ol.results").inner_text()
    shots.take("results")
    results_url = page.url

    page.get_by_role("link", name="Search the catalogue").click()
    assert page.get_by_role("heading", level=1).inner_text() == "Search the catalogue"
    table = page.get_by_role("table", name="The fields it takes")
    assert "q" in table.inner_text() and "yes" in table.inner_text()  # required
    page.get_by_label("q (required): string").fill("fountain pens")
    page.get_by_role("button", name="Show the request").click()
    planned = page.locator("#preview").inner_text()
    assert "GET https://inkwell.example/api/search?q=fountain+pens" in planned
    assert "not sent" in planned
    shots.take("prepared-call")

    page.get_by_role("link", name="inkwell.example").first.click()
    assert page.get_by_role("heading", level=1).inner_text() == "Inkwell Stationers"
    assert "https://inkwell.example/.well-known/agent-actions.json" in page.inner_text("main")
    assert page.get_by_role("link", name="Place an order").count() == 1
    shots.take("site")
    page.goto(results_url)

    page.get_by_label("spend (spends money: needs your approval)").check()
    page.get_by_role("button", name="Search").click()
    effects = page.locator("ol.results .effect").all_inner_texts()
    assert effects and set(effects) == {"spend"}
    assert "needs your approval" in page.locator("ol.results").inner_text()
    shots.take("spend-only")

    page.get_by_role("link", name="Validator").click()
    page.get_by_label("A manifest to paste", exact=False).fill(BROKEN.read_text())
    page.get_by_role("button", name="Validate").click()
    report = page.locator("section.report").inner_text()
    assert "missing-field" in report
    assert "give every item a machine name like search_products" in report
    assert page.locator("script").count() == 0  # the pasted <script> stayed text
    shots.take("validator-report")


def test_the_keyboard_reaches_the_search_box_and_the_results(page: object, base: str) -> None:
    shots = page.shots
    page.goto(base + "/")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.className") == "skip"
    assert page.eval_on_selector(".skip", "e => e.getBoundingClientRect().left") >= 0  # shown
    shots.take("skip-link-focused")
    page.keyboard.press("Enter")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "q"
    page.keyboard.type("find paper")
    page.keyboard.press("Enter")
    page.wait_for_selector("ol.results")
    for _ in range(40):
        page.keyboard.press("Tab")
        if page.evaluate("!!document.activeElement.closest('ol.results h3')"):
            break
    else:
        pytest.fail("Tab never reached a result")
    outline = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
    assert outline not in ("", "none")  # focus is visible
    shots.take("result-focused")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert "/view/" in page.url


@pytest.mark.parametrize(
    "path,rendered",
    [
        ("/docs", ".opblock-summary-path"),  # an operation of Swagger UI
        ("/redoc", "[data-section-id^='operation/']"),  # an operation of Redoc
    ],
)
def test_the_api_docs_render_under_their_csp(
    browser: object, base: str, tmp_path: Path, path: str, rendered: str
) -> None:
    """/docs and /redoc send a Content-Security-Policy and X-Frame-Options (issue 25 item
    10): both still render, from this server's files only, with no CSP violation."""
    context = browser.new_context(viewport={"width": 1100, "height": 800})  # scripts on
    opened = context.new_page()
    shots = Shots(opened, tmp_path / "screenshots" / path.strip("/"))
    outside: list[str] = []
    opened.on(
        "requestfinished",
        lambda r: (
            r.url.startswith(base) or r.url.startswith(("data:", "blob:")) or outside.append(r.url)
        ),
    )
    answer = opened.goto(base + path)
    assert "content-security-policy" in answer.headers
    opened.wait_for_selector(rendered, timeout=30_000)
    assert opened.locator(rendered).count() >= 5
    # Redoc's footer links its maker's logo on a CDN: the policy blocks it, so the page stays
    # offline; that refusal is the one error allowed.
    shots.errors = [e for e in shots.errors if "cdn.redoc.ly/redoc/logo-mini.svg" not in e]
    shots.take("rendered")
    assert not outside
    context.close()
