"""`actiondex find`: every GET /find filter as an option, one-line errors from the same
contract, and results that say what calling an action needs and costs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.api import LONG_REQUEST
from tests.helpers.cli import one_line_error, run
from tests.helpers.paths import FIXTURES

INGEST = FIXTURES / "ingest"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data dir holding the paperworks shop: a checkout that costs money and needs
    oauth2, and a flow whose second step has no title of its own."""
    data_dir = tmp_path_factory.mktemp("data")
    proc = run(data_dir, "ingest", str(INGEST / "checkout"))
    assert proc.returncode == 0, proc.stderr
    return data_dir


def found(store: Path, *args: str) -> list[dict[str, Any]]:
    proc = run(store, "find", *args, "--json")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)["results"]  # type: ignore[no-any-return]


def test_results_say_what_calling_needs_and_costs(store: Path) -> None:
    # --method: flows have none, so the checkout is not folded under its flow
    [checkout] = found(store, "check out the basket", "--method", "POST")
    assert checkout["auth"] == "oauth2" and checkout["scope"] == "orders:write"
    assert checkout["cost"] == {"amount": 3.95, "currency": "EUR"}
    [paper] = found(store, "find paper", "--method", "GET")
    assert paper["output_schema"] == {"type": "object", "properties": {"items": {"type": "array"}}}


def test_every_filter_of_the_api_is_an_option(store: Path) -> None:
    # every option at once, the repeatable ones twice: no action here has a type
    assert (
        found(
            store,
            "paper",
            "--type",
            "SearchAction",
            "--type",
            "BuyAction",
            "--format",
            "agent-actions",
            "--method",
            "GET",
            "--auth",
            "none",
            "--site",
            "paperworks.example",
            "--site",
            "other.example",
            "--effect",
            "read",
            "--effect",
            "write",
            "--origin",
            "any",
            "--offset",
            "0",
            "--per-site",
            "2",
            "--limit",
            "1",
            "--explain",
        )
        == []
    )
    [hit] = found(
        store,
        "paper",
        "--format",
        "agent-actions",
        "--method",
        "GET",
        "--auth",
        "none",
        "--site",
        "paperworks.example",
        "--origin",
        "same",
        "--explain",
    )
    assert hit["name"] == "find_paper" and hit["explain"][0]["term"] == "paper"
    assert found(store, "paper", "--origin", "cross") == []
    assert found(store, "paper", "--offset", "5") == []


def test_flow_steps_show_their_titles(store: Path) -> None:
    [flow] = [r for r in found(store, "buy paper") if r["kind"] == "flow"]
    assert [s["title"] for s in flow["steps"]] == ["Pick the paper", "Check out the basket"]
    proc = run(store, "find", "buy paper")
    assert "Pick the paper -> Check out the basket" in column(proc.stdout, "how")
    checkout = run(store, "find", "checkout", "--method", "POST").stdout
    assert "oauth2 (orders:write)" in column(checkout, "needs")


def column(table: str, header: str) -> str:
    """The text of one column of a printed table, its wrapped lines joined by spaces."""
    rows = [line.split("│") for line in table.splitlines() if line.startswith("│")]
    heads = [line.split("┃") for line in table.splitlines() if line.startswith("┃")]
    at = [cell.strip() for cell in heads[0]].index(header)
    return " ".join(" ".join(row[at].split()) for row in rows if row[at].strip())


def test_explain_in_the_table(store: Path) -> None:
    proc = run(store, "find", "paper", "--explain")
    assert proc.returncode == 0 and "1. paper in all +" in proc.stdout


@pytest.mark.parametrize(
    ("args", "expect"),
    [
        (["--limit", "51"], "--limit: Input should be less than or equal to 50"),
        (["--limit", "0"], "--limit: Input should be greater than or equal to 1"),
        (["--offset", "201"], "--offset: Input should be less than or equal to 200"),
        (["--per-site", "0"], "--per-site: Input should be greater than or equal to 1"),
        (["--site", "shop.example/x"], "--site: must be a host or domain"),
        (["--type", "two words"], "--type: must be a short name"),
        (["--auth", "password"], "--auth: Input should be 'none'"),
        (["--origin", "sideways"], "--origin: Input should be 'same', 'cross' or 'any'"),
    ],
)
def test_bad_options_are_one_line_from_the_contract(
    data_dir: Path, args: list[str], expect: str
) -> None:
    proc = run(data_dir, "find", "paper", *args)
    assert proc.returncode == 2
    assert one_line_error(proc).startswith(f"actiondex: error: {expect}")


def test_an_overlong_query_is_one_line(data_dir: Path) -> None:
    line = one_line_error(run(data_dir, "find", "paper " * 200))
    assert line == "actiondex: error: the query: must be at most 1024 characters (it has 1200)"


def test_a_long_query_is_answered_and_says_it_was_shortened(store: Path) -> None:
    proc = run(store, "find", LONG_REQUEST)
    assert proc.returncode == 0, proc.stderr
    assert "A long request: searched by its 32 rarest words" in " ".join(proc.stderr.split())
    proc = run(store, "find", LONG_REQUEST, "--json")
    body = json.loads(proc.stdout)
    assert len(body["shortened"]["terms"]) == 32 and body["shortened"]["dropped"] > 0
    assert "shortened" not in json.loads(run(store, "find", "paper", "--json").stdout)


def test_group_site_lists_each_site_once(store: Path) -> None:
    body = json.loads(run(store, "find", "paper", "--group", "site", "--json").stdout)
    assert body["results"] == [] and [s["site"] for s in body["sites"]] == ["paperworks.example"]
    proc = run(store, "find", "paper", "--group", "site")
    assert proc.returncode == 0 and "paperworks.example" in proc.stdout
    assert one_line_error(run(store, "find", "paper", "--group", "page")).startswith(
        "actiondex: error: --group: Input should be 'action' or 'site'"
    )
