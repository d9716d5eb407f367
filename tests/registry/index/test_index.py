"""The tantivy index follows the store: incremental sync, atomic rebuild, safe queries.

Stores are built through the ``session`` fixture, so every test runs on SQLite and PostgreSQL.
Rows are written with the models directly: the index reads tables, not manifests.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
import tantivy
from pydantic import ValidationError
from sqlalchemy import delete, update
from sqlalchemy.orm import Session

import registry.index.handle as index_module
from registry.db.tables import ActionRow, Site
from registry.index import ActionIndex, IndexBusy
from registry.index.files import read_state, write_state
from registry.index.parts import INDEX_VERSION
from registry.index.text import type_words
from registry.model.results import FindResult
from registry.model.schemas import Action, Flow, FlowStep, Manifest, RawDocument, stable_id
from registry.normalising import NormalisedDocument, SiteUpdate, content_hash
from registry.search import FindQuery, find, search
from registry.search.contract import SPACE
from registry.store.parts_refresh import refresh_index_parts, stale_index_parts
from registry.store.promotion import promote_site
from registry.store.rows import mark_changed, utcnow
from tests.helpers.stores import add_site, documents, shop_and_news


@pytest.fixture
def index(session: Session, tmp_path: Path) -> ActionIndex:
    shop_and_news(session)
    idx = ActionIndex.open(tmp_path / "index")
    idx.sync(session)
    return idx


def found(index: ActionIndex, q: str, **kw: Any) -> list[FindResult]:
    """``find``'s results for a FindQuery of ``q`` and ``kw``."""
    return find(index, FindQuery(q=q, **kw)).results


def names(index: ActionIndex, q: str, **kw: Any) -> list[str]:
    return [r.name for r in found(index, q, **kw)]


def promote_shop(session: Session) -> None:
    """A shop stored the way crawls store it: promote_site fills the actions' index parts."""
    url = "https://parts.example/.well-known/agent-actions.json"
    manifest = Manifest(
        site="parts.example",
        url=url,
        format="agent-actions",
        site_name="PaperWorld",
        site_description="Office supplies",
        actions=[
            Action(
                name="searchProducts",
                title="Search the catalogue",
                type="SearchAction",
                effect="read",
                method="GET",
                endpoint="https://parts.example/search",
                description="Find printer paper and toner.",
                input_schema={
                    "type": "object",
                    "properties": {"q": {"type": "string", "description": "words to look for"}},
                },
            ),
            Action(
                name="checkout",
                title="Checkout",
                effect="spend",
                method="POST",
                auth="oauth2",
                endpoint="https://pay.example.net/checkout",
                same_origin=False,
            ),
        ],
        flows=[
            Flow(
                name="buy",
                title="Buy a product",
                effect="spend",
                steps=[FlowStep(action="searchProducts"), FlowStep(action="checkout")],
            )
        ],
    )
    body = manifest.model_dump_json().encode()
    raw = RawDocument(url=url, body=body, content_type="application/json")
    promote_site(
        session,
        SiteUpdate(
            "parts.example",
            "https://parts.example",
            [NormalisedDocument(raw, manifest, content_hash(body))],
        ),
    )


def test_stored_index_parts_make_the_documents_a_build_would(session: Session) -> None:
    promote_shop(session)
    stored = documents(session, "parts.example")
    assert len(stored) == 3 and "buy a product" in stored[-1]["all"].lower()  # flow title
    # Parts stored under another version are not used: the build works them out again.
    session.execute(
        update(ActionRow).values(index_version=INDEX_VERSION - 1, index_text="stale", payload="{}")
    )
    assert documents(session, "parts.example") == stored


def test_refreshing_index_parts_stores_what_builds_work_out(session: Session) -> None:
    shop_and_news(session)  # rows written directly: no index parts
    promote_shop(session)  # rows with parts
    before = {h: documents(session, h) for h in ("shop.example", "parts.example")}
    assert stale_index_parts(session) == 7
    assert refresh_index_parts(session, batch=2) == 7  # only the rows without parts
    assert session.query(ActionRow).filter(ActionRow.index_version != INDEX_VERSION).count() == 0
    assert {h: documents(session, h) for h in before} == before
    assert refresh_index_parts(session) == 0 == stale_index_parts(session)


def test_stored_only_fields_have_no_terms(index: ActionIndex) -> None:
    searcher = index.searcher()
    assert searcher.doc_freq("key", "add_to_cart") == 0  # no query asks for a key
    assert searcher.doc_freq("site", "shop.example") == 4  # deleting a site's documents does
    [hit] = search(index, FindQuery(q="add to cart", limit=1)).hits
    assert (hit.key, hit.site) == ("add_to_cart", "shop.example")
    assert [s for h in search(index, FindQuery(q="buy a product")).hits for s in h.steps][:1] == [
        "searchProducts"
    ]


def test_open_creates_an_empty_generation(tmp_path: Path) -> None:
    idx = ActionIndex.open(tmp_path / "index")
    assert idx.generation == 1
    assert idx.count() == 0
    assert (tmp_path / "index" / "current").is_symlink()
    assert found(idx, "anything") == []
    assert ActionIndex.open(tmp_path / "index").generation == 1  # reopening reuses it


def test_type_words() -> None:
    assert type_words("SearchAction").split()[:2] == ["search", "find"]  # its synonyms
    assert type_words("https://schema.org/AddToCartAction") == "add to cart"
    assert type_words("CheckAction").split()[:2] == ["check", "find"]  # its Schema.org parent
    assert type_words("BuyAction", "spend").split()[:2] == ["buy", "trade"]
    assert type_words("BuyAction", "spend").endswith("spend pay money")  # effect words


def test_split_identifiers_are_found_by_words(index: ActionIndex) -> None:
    assert names(index, "add to cart")[0] == "add_to_cart"
    assert names(index, "search products")[0] == "searchProducts"
    assert names(index, "addToCart")[0] == "add_to_cart"


def test_stemming_types_and_synonyms(index: ActionIndex) -> None:
    assert "searchProducts" in names(index, "searching printers")
    assert names(index, "purchase", site=["shop.example"])[0] in ("purchase", "checkout")
    # type word "buy" from BuyAction; the flow holding checkout ranks first and folds it in
    results = found(index, "buying")
    assert "checkout" in {r.name for r in results} | {
        s.action for r in results for s in r.steps or []
    }


def test_flows_are_results_with_steps(index: ActionIndex) -> None:
    [flow] = [r for r in found(index, "buy a product") if r.kind == "flow"]
    assert flow.name == "purchase" and flow.site == "shop.example"
    assert [s.action for s in flow.steps or []] == ["searchProducts", "add_to_cart", "checkout"]
    assert flow.source.format == "agent-actions"
    # step action names are searchable too
    assert "purchase" in names(index, "add to cart checkout")


def test_effect_and_site_filters(index: ActionIndex) -> None:
    assert {r.effect for r in found(index, "search subscribe delete", effect=["read"])} == {"read"}
    both = found(index, "search subscribe delete account", effect=["send", "delete"])
    assert {r.name for r in both} == {"subscribe", "delete_account"}
    assert {r.site for r in found(index, "search", site=["news.example"])} == {"news.example"}
    assert found(index, "search", site=["nowhere.example"]) == []


def test_cross_origin_endpoints_are_in_default_results_and_out_of_the_strict_view(
    index: ActionIndex,
) -> None:
    # Issue 20 changed the default from `same` to `any`: cross-origin actions are shown, marked.
    assert names(index, "track article view")[0] == "track_event"
    assert "track_event" not in names(index, "track article view", origin="same")


def test_result_carries_everything_without_the_database(index: ActionIndex) -> None:
    [hit] = found(index, "add to cart", limit=1)
    assert hit.kind == "action" and hit.method == "POST" and hit.effect == "write"
    assert hit.endpoint == "https://shop.example/api/add_to_cart"
    assert hit.input_schema["properties"] == {"sku": {"type": "string"}}
    assert hit.source.url == "https://shop.example/.well-known/agent-actions.json"
    assert hit.score > 0 and hit.steps is None


def test_sync_reindexes_only_changed_sites(session: Session, index: ActionIndex) -> None:
    before = index.count()
    shop = session.query(Site).filter_by(host="shop.example").one()
    news = session.query(Site).filter_by(host="news.example").one()
    cart = session.get(ActionRow, stable_id("shop.example", "agent-actions", "add_to_cart"))
    assert cart is not None
    cart.title = "Put in basket"
    mark_changed(session, shop, utcnow())
    # Changed WITHOUT mark_changed: if sync rebuilt news, this title would become findable.
    sub = session.get(ActionRow, stable_id("news.example", "agent-actions", "subscribe"))
    assert sub is not None
    sub.title = "Zebra mailing"
    session.flush()
    stats = index.sync(session)
    assert (stats.sites_indexed, stats.sites_removed, stats.documents) == (1, 0, 4)
    assert names(index, "basket") == ["add_to_cart"]
    assert names(index, "zebra") == []
    assert index.count() == before
    assert read_state(index.root / "current")["watermark"] == shop.change_seq
    assert stats.sites_read == 1 and not stats.full  # only the changed site was read
    again = index.sync(session)
    assert (again.sites_indexed, again.sites_read) == (0, 0)  # nothing changed since
    assert news.version == 1


def test_new_and_deleted_sites(session: Session, index: ActionIndex) -> None:
    add_site(session, "travel.example", [{"name": "book_hotel", "title": "Book a hotel"}])
    session.execute(delete(Site).where(Site.host == "news.example"))
    stats = index.sync(session)
    assert (stats.sites_indexed, stats.sites_removed) == (1, 0)  # the watermark sees no deletes
    assert names(index, "subscribe newsletter") == ["subscribe"]
    stats = index.sync(session, full=True)  # ...a reconcile does
    assert (stats.sites_indexed, stats.sites_removed, stats.full) == (0, 1, True)
    assert names(index, "subscribe newsletter") == []
    assert names(index, "reserve hotel") == ["book_hotel"]
    assert index.count() == 4  # three shop actions and the hotel


def test_crash_between_commit_and_state_write_is_harmless(
    session: Session, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shop_and_news(session)
    idx = ActionIndex.open(tmp_path / "index")

    def killed(*_: Any) -> None:
        raise KeyboardInterrupt  # stands for the process dying after the tantivy commit

    monkeypatch.setattr(index_module, "_save_state", killed)
    with pytest.raises(KeyboardInterrupt):
        idx.sync(session)
    monkeypatch.undo()
    assert idx.count() == 7  # committed, yet state.json does not know it
    stats = ActionIndex.open(tmp_path / "index").sync(session)  # "the next process"
    assert stats.sites_indexed == 2
    assert idx.count() == 7  # redone, not duplicated
    assert len(found(idx, "add to cart")) == 2  # the action and the flow, once each


def test_rebuild_swaps_while_open_readers_keep_answering(
    session: Session, index: ActionIndex, tmp_path: Path
) -> None:
    reader = ActionIndex.open(tmp_path / "index")  # e.g. the API's handle
    old_snapshot = reader.searcher()
    generation = reader.generation
    shop = session.query(Site).filter_by(host="shop.example").one()
    shop.name = "Paperworld"
    session.flush()
    stats = ActionIndex.rebuild(tmp_path / "index", session)
    assert stats.generation == generation + 1 and stats.documents == 8
    assert (tmp_path / "index" / f"gen-{generation}").exists()  # spared until the next rebuild
    assert reader.generation == generation + 1  # followed the symlink
    assert "purchase" in names(reader, "paperworld")  # the renamed site, from the new generation
    assert reader.sync(session).sites_indexed == 0  # the new generation's state is complete
    ActionIndex.rebuild(tmp_path / "index", session)
    left = sorted(p.name for p in (tmp_path / "index").iterdir())
    assert left == ["current", f"gen-{generation + 1}", f"gen-{generation + 2}"]
    assert old_snapshot.num_docs == 8  # still readable after its files were unlinked


def test_failed_rebuild_leaves_the_old_generation_serving(
    session: Session, index: ActionIndex, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*_: Any) -> Any:
        yield from ()
        raise RuntimeError("database went away")

    monkeypatch.setattr(index_module, "site_documents", broken)
    with pytest.raises(RuntimeError):
        ActionIndex.rebuild(tmp_path / "index", session)
    assert sorted(p.name for p in (tmp_path / "index").iterdir()) == ["current", "gen-1"]
    assert names(index, "add to cart")[0] == "add_to_cart"


def test_a_held_writer_lock_is_reported_and_changes_nothing(
    session: Session, index: ActionIndex
) -> None:
    shop = session.query(Site).filter_by(host="shop.example").one()
    mark_changed(session, shop, utcnow())
    session.flush()
    holder = tantivy.Index.open(str(index.root / "current")).writer(15_000_000, 1)
    with pytest.raises(IndexBusy):
        index.sync(session)
    holder.wait_merging_threads()  # releases the lock
    assert index.sync(session).sites_indexed == 1


def test_an_index_of_another_schema_version_is_replaced(
    session: Session, index: ActionIndex, tmp_path: Path
) -> None:
    folder = tmp_path / "index" / "current"
    write_state(folder.resolve(), {"schema": -1, "sites": {}})
    fresh = ActionIndex.open(tmp_path / "index")
    assert fresh.generation == 2 and fresh.count() == 0
    assert fresh.sync(session).sites_indexed == 2 and fresh.count() == 7


HOSTILE = [
    '"',
    '"unbalanced',
    "site:shop.example",
    "effect:read OR",
    "(",
    "((cart",
    ")",
    "[1 TO",
    "*",
    "cart*",
    "?",
    "~2",
    "^3",
    "+-!",
    "\\",
    "\x00",
    "cart\x00cart",
    "a" * 1000,
    " ".join(["cart"] * 500),
    "‮evil",
    "🛒 cart",
    "AND OR NOT",
    "",
    "   ",
    "'; DROP TABLE",
    "{}",
    "title:",
    ":",
    "/regex/",
    "`",
    "add_to_cart:*",
]


@pytest.mark.parametrize("q", HOSTILE)
def test_hostile_queries_never_raise(index: ActionIndex, q: str) -> None:
    # The engine takes any text, even past the contract's bounds (model_construct skips them)...
    unchecked = find(index, FindQuery.model_construct(q=q, limit=5))
    assert unchecked.query == q and len(unchecked.results) <= 5
    # ...and the contract either takes the text or refuses it as a validation error.
    try:
        query = FindQuery(q=q, limit=5)
    except ValidationError:
        return
    assert find(index, query).query == q.strip(SPACE)


def test_concurrent_readers_during_syncs_and_rebuilds(session: Session, index: ActionIndex) -> None:
    errors: list[BaseException] = []
    stop = threading.Event()

    def read() -> None:
        while not stop.is_set():
            try:
                assert found(index, "add to cart")
            except BaseException as exc:  # collected and asserted on below
                errors.append(exc)
                return

    threads = [threading.Thread(target=read) for _ in range(4)]
    for thread in threads:
        thread.start()
    for _ in range(3):
        ActionIndex.rebuild(index.root, session)
        index.sync(session)
    stop.set()
    for thread in threads:
        thread.join()
    assert errors == []
