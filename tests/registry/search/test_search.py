"""Query features of registry.search: filters, pagination, grouping, explain, expansion,
accent folding, and the lean JSON path matching FindResponse.public()."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError
from sqlalchemy.orm import Session
from tantivy import Occur, Query

from registry.index import ActionIndex
from registry.index.documents import domains, name_text, with_parts
from registry.index.text import EXPANSION_WEIGHT, query_words, weighted_terms
from registry.search import MAX_OFFSET, FindQuery, Page, find, page_json, search
from registry.search import plan as search_module
from tests.helpers.stores import add_site, shop_and_news


def _actions(n: int, **extra: Any) -> list[dict[str, Any]]:
    return [{"name": f"book_table_{i}", "title": f"Book a table {i}"} | extra for i in range(n)]


@pytest.fixture
def index(session: Session, tmp_path: Path) -> ActionIndex:
    shop_and_news(session)
    add_site(
        session,
        "api.cafe.example",
        [
            {
                "name": "reserve",
                "title": "Réserver une table au café",
                "type": "ReserveAction",
                "effect": "spend",
                "method": "POST",
                "auth": "oauth2",
            },
        ],
        name="Café Crème",
    )
    add_site(session, "tables.example", _actions(8))
    add_site(session, "other.example", _actions(2))
    add_site(session, "bikes.example", [{"name": "hire_bike", "title": "Hire a bike"}])
    idx = ActionIndex.open(tmp_path / "index")
    idx.sync(session)
    return idx


def ask(index: ActionIndex, q: str, **kw: Any) -> Page:
    """``search`` with a FindQuery of ``q`` and ``kw``."""
    return search(index, FindQuery(q=q, **kw))


def names(index: ActionIndex, q: str, **kw: Any) -> list[str]:
    return [h.key for h in ask(index, q, **kw).hits]


def test_accents_fold_both_ways(index: ActionIndex) -> None:
    assert names(index, "cafe creme")[0] == "reserve"
    assert names(index, "CAFÉ")[0] == "reserve"


def test_query_words_drop_filler_but_keep_something() -> None:
    assert query_words("I'm looking to buy printer paper please") == [
        "looking",
        "buy",
        "printer",
        "paper",
    ]  # "to": an English stop word
    assert query_words("I") == ["i"]


def test_query_words_keep_compounds_whole_and_split() -> None:
    # Descriptions and site names are indexed whole ("paypal"), action names split.
    assert query_words("PayPal getProducts wgs84 HTTPServer") == [
        "pay",
        "pal",
        "products",
        "wgs",
        "84",
        "http",
        "server",
        "paypal",
        "getproducts",
        "wgs84",
        "httpserver",
    ]


def test_index_text_says_each_thing_once() -> None:
    assert name_text("add_to_cart", "add to cart", "Add to cart") == ("add to cart", "")
    assert name_text("getProducts", "get products", "Get products") == (
        "get products getProducts",
        "",
    )
    assert name_text("v1_nutrition", "v 1 nutrition", "/v1/nutrition") == (
        "v 1 nutrition v1_nutrition",
        "",
    )
    assert name_text("reserve", "reserve", "Book a table") == ("reserve", "Book a table")
    assert with_parts("SoundCloud Scraper") == "SoundCloud Scraper sound cloud"
    assert with_parts("Plain words") == "Plain words"


def test_expansion_weighs_less_than_the_words_themselves() -> None:
    terms = weighted_terms(["buy", "paper"])
    assert terms["buy"] == terms["paper"] == 1.0
    assert terms["purchas"] == terms["checkout"] == EXPANSION_WEIGHT < 1.0


def test_expansion_finds_other_verbs(index: ActionIndex) -> None:
    assert "reserve" in names(index, "book a table at the cafe")  # book ~ reserve
    [hit] = ask(index, "rent", explain=True).hits  # rent ~ hire, untyped: query side
    assert hit.key == "hire_bike" and hit.explain
    assert {(p["term"], p["weight"]) for p in hit.explain} == {("hire", EXPANSION_WEIGHT)}


@pytest.mark.parametrize(
    ("filters", "expected"),
    [
        ({"type": ["ReserveAction"]}, {"reserve"}),
        ({"type": ["https://schema.org/ReserveAction"]}, {"reserve"}),
        ({"method": ["post"]}, {"reserve"}),
        ({"auth": ["oauth2"]}, {"reserve"}),
        ({"effect": ["spend"]}, {"reserve"}),
        ({"site": ["cafe.example"]}, {"reserve"}),  # registrable domain of api.cafe.example
        ({"site": ["api.cafe.example"]}, {"reserve"}),
        ({"format": ["schemaorg"]}, set()),
    ],
)
def test_filters(index: ActionIndex, filters: dict[str, Any], expected: set[str]) -> None:
    assert set(names(index, "reserve book table cafe", **filters)) == expected


def test_leading_verb_counts_in_short_requests_only(index: ActionIndex) -> None:
    def fields(q: str) -> set[str]:
        [hit] = ask(index, q, limit=1, explain=True).hits
        return {p["field"] for p in hit.explain or []}

    assert "head" in fields("reserve a table at the cafe")
    # a long request asks for several things; its first verb names one of them at most
    assert "head" not in fields(
        "reserve a table at the cafe creme tonight for four friends visiting from paris"
    )


def test_same_origin_filter(index: ActionIndex) -> None:
    assert "track_event" not in names(index, "track article view", origin="same")
    only_cross = names(index, "track article view", same_origin=False)
    assert only_cross == ["track_event"]
    assert "track_event" not in names(index, "track view", same_origin=True)


def test_domains() -> None:
    assert domains("a.shop.example") == ["a.shop.example", "shop.example"]
    # A site on another port: its own key, then the host (every port of it) and its parents.
    assert domains("localhost:8080") == ["localhost:8080", "localhost"]
    assert domains("a.kites.test:18111") == ["a.kites.test:18111", "a.kites.test", "kites.test"]
    assert domains("[::1]:8080") == ["[::1]:8080", "::1"]


def test_one_site_does_not_crowd_the_first_page(index: ActionIndex) -> None:
    first = ask(index, "book a table", limit=5).hits
    assert sum(h.site == "tables.example" for h in first) <= 3
    assert {h.site for h in first} >= {"tables.example", "other.example"}
    # nothing is lost: the extras come on later pages, every action exactly once
    pages = [ask(index, "book a table", limit=5, offset=o).hits for o in (0, 5, 10)]
    keys = [(h.site, h.key) for page in pages for h in page]
    assert len(keys) == len(set(keys)) == 11  # ten tables and the café (book ~ reserve)


def test_a_site_filter_lifts_the_per_site_cap(index: ActionIndex) -> None:
    hits = ask(index, "book a table", limit=5, site=["tables.example"])
    assert len(hits.hits) == 5


def test_a_flows_steps_fold_under_it(index: ActionIndex) -> None:
    hits = ask(index, "buy a product search add to cart checkout", limit=10).hits
    flow = next(h for h in hits if h.kind == "flow")
    below = hits[hits.index(flow) + 1 :]
    assert not {h.key for h in below} & set(flow.steps)


def test_pagination_is_bounded_and_consistent(index: ActionIndex) -> None:
    def keys(**kw: Any) -> list[tuple[str, str]]:
        return [(h.site, h.key) for h in ask(index, "book table", **kw).hits]

    assert keys(limit=3, offset=3) == keys(limit=3, offset=3)
    assert not set(keys(limit=3)) & set(keys(limit=3, offset=3))
    assert ask(index, "book table", offset=MAX_OFFSET).hits == []  # past the end: empty
    with pytest.raises(ValidationError):  # the contract bounds it, for every caller
        FindQuery(q="book table", offset=MAX_OFFSET + 1)


def test_explain_names_terms_and_fields(index: ActionIndex) -> None:
    [hit] = ask(index, "reserve cafe", limit=1, explain=True).hits
    assert hit.explain
    assert {p["term"] for p in hit.explain} >= {"reserv", "cafe"}
    assert {p["field"] for p in hit.explain} <= {"all", "head", "params"}
    assert sum(p["score"] for p in hit.explain) == pytest.approx(hit.score, rel=1e-3)
    body = json.loads(page_json(ask(index, "reserve", explain=True)))
    assert body["results"][0]["explain"]


@pytest.mark.parametrize("extra", [{}, {"explain": True, "origin": "any"}])
def test_lean_json_equals_the_public_model(index: ActionIndex, extra: dict[str, Any]) -> None:
    for q in ("buy a product", "reserve", "track", "nothing matches this"):
        query = FindQuery(q=q, **extra)
        lean = json.loads(page_json(search(index, query)))
        public = find(index, query).public()
        lean.pop("took_ms"), public.pop("took_ms")
        assert lean == public


def test_a_synonym_no_action_uses_is_not_a_rare_word(
    index: ActionIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At 1M actions "search printer paper" matched nothing: its words were all common, and
    the synonyms of "search" that no action uses ("lookup") counted as the rare words every
    result must hold."""
    monkeypatch.setattr(search_module, "COMMON_SHARE", 0.01)  # every word held is common
    monkeypatch.setattr(search_module, "CHEAP_POSTINGS", 0)
    assert names(index, "search printer paper")[0] == "searchProducts"


def _planned(
    index: ActionIndex, monkeypatch: pytest.MonkeyPatch, share: float, words: list[str]
) -> tuple[Any, dict[tuple[str, str], int], set[str], dict]:
    """(searcher, doc freqs, common terms, term parts) of ``words`` as ``search`` plans them,
    with every word held by more than ``share`` of the index counted common."""
    monkeypatch.setattr(search_module, "COMMON_SHARE", share)
    monkeypatch.setattr(search_module, "CHEAP_POSTINGS", 0)
    searcher, freq = index.searcher(), {}
    terms, common = search_module._useful(searcher, weighted_terms(words), freq)
    return (
        searcher,
        freq,
        common,
        search_module._live(searcher, search_module.term_parts(terms), freq),
    )


def test_common_words_add_to_the_score_as_one_flat_query_would(
    index: ActionIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    # "book" and "table" are in half of this index: common; "hire" and "bike" are rare.
    searcher, _, common, parts = _planned(
        index, monkeypatch, 0.2, query_words("book a table or hire a bike")
    )
    assert {"book", "tabl"} <= common and {"hire", "bike"} - common == {"hire", "bike"}
    rare = [(Occur.Should, q) for (t, _), (_, q) in parts.items() if t not in common]
    flat = Query.boolean_query(
        [
            (Occur.Must, Query.boolean_query(rare)),
            *[(Occur.Should, q) for (t, _), (_, q) in parts.items() if t in common],
        ]
    )
    chained = search_module.build_query(parts, FindQuery(q="x", origin="any"), common)
    want, got = (searcher.search(q, 20, count=False).hits for q in (flat, chained))
    assert [a.doc for _, a in got] == [a.doc for _, a in want] and len(want) > 1
    assert [s for s, _ in got] == pytest.approx([s for s, _ in want], rel=1e-6)


def test_a_rare_synonym_is_not_required_when_the_own_words_are_common(
    index: ActionIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ "book" and "table" are common here, "reserve" (a synonym of "book") is rare: it used
    to count as the rare word every result must hold, and "book table" found only the café."""
    monkeypatch.setattr(search_module, "COMMON_SHARE", 0.3)
    monkeypatch.setattr(search_module, "CHEAP_POSTINGS", 0)
    got = names(index, "book table", per_site=20, limit=20)
    assert got[0].startswith("book_table_") and "reserve" in got
    assert sum(key.startswith("book_table_") for key in got) == 10


def _pages(index: ActionIndex, monkeypatch: pytest.MonkeyPatch, q: str) -> tuple[list, list]:
    """(keys and scores of ``q``'s page searched all-words-first, the same from the union)."""
    page = [(h.key, h.score) for h in ask(index, q, per_site=20, limit=5).hits]
    with monkeypatch.context() as m:
        m.setattr(search_module, "all_words_first", lambda *args: None)
        union = [(h.key, h.score) for h in ask(index, q, per_site=20, limit=5).hits]
    return page, union


def test_all_words_first_gives_the_union_page(
    index: ActionIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every word held is common; all-words-first always worth trying.
    searcher, freq, common, parts = _planned(index, monkeypatch, 0.01, ["book", "table"])
    monkeypatch.setattr(search_module, "ALL_WORDS_MARGIN", 0)
    monkeypatch.setattr(search_module, "ALL_WORDS_LEAD", 1.0)
    first = search_module.all_words_first(
        parts, FindQuery(q="x"), common, freq, searcher.num_docs, 5
    )
    assert first is not None
    holding = [searcher.doc(a).get_first("key") for _, a in searcher.search(first, 50).hits]
    # The ten book_table actions (of two sites), and the café's ReserveAction, whose type
    # words say "book"; nothing that holds one word only.
    assert len(holding) == 11 and set(holding) == {f"book_table_{i}" for i in range(8)} | {
        "reserve"
    }
    page, union = _pages(index, monkeypatch, "book table")
    assert [k for k, _ in page] == [k for k, _ in union] and len(page) == 5
    assert [s for _, s in page] == pytest.approx([s for _, s in union], rel=1e-6)
    # No action holds all of "book table bike": the union answers, as it would alone.
    page, union = _pages(index, monkeypatch, "book table bike")
    assert page == union and "hire_bike" in [k for k, _ in page]


def test_all_words_first_is_not_tried_when_it_would_not_save_work(
    index: ActionIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    searcher, freq, common, parts = _planned(index, monkeypatch, 0.01, ["book", "table"])

    def tried(need: int) -> bool:
        return (
            search_module.all_words_first(
                parts, FindQuery(q="x"), common, freq, searcher.num_docs, need
            )
            is not None
        )

    # "book" and "table" go together: the shorter list is half of what the union walks, an
    # intersection led by it saves nothing.
    assert freq[("book", "all")] > search_module.ALL_WORDS_LEAD * (
        freq[("book", "all")] + freq[("tabl", "all")]
    ) and not tried(1)
    monkeypatch.setattr(search_module, "ALL_WORDS_LEAD", 1.0)
    monkeypatch.setattr(search_module, "ALL_WORDS_MARGIN", 1)
    # Taken as independent, about 6 of the index's actions would hold both words: enough
    # when 5 candidates are needed, too few for 30.
    assert tried(5) and not tried(30)
