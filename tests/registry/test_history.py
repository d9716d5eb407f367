"""A site's history on SQLite and PostgreSQL: one entry per change of its action set, with
the diff; nothing for a recrawl that changed nothing; tombstones and robots withdrawals."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from registry.db.tables import Site, SiteHistory
from registry.model.schemas import Action, FetchFailure, Manifest, RawDocument
from registry.normalising import NormalisedDocument, SiteUpdate, content_hash
from registry.store.crawl_state import start_run
from registry.store.history import list_history
from registry.store.promotion import promote_site
from registry.store.rows import utcnow
from tests.helpers.promote import (
    HOST,
    URL,
    Statements,
    WriteCounter,
    failure,
    manifest,
    names,
    update,
)

PAGE = f"https://{HOST}/help.html"


def entries(session: Session) -> list[SiteHistory]:
    return list(session.scalars(select(SiteHistory).order_by(SiteHistory.id)))


def two_documents(first: Manifest, second: Manifest) -> SiteUpdate:
    """The agent-actions file and a page, each with its own actions."""
    docs = []
    for url, m in ((URL, first), (PAGE, second.model_copy(update={"url": PAGE}))):
        body = m.model_dump_json().encode()
        docs.append(NormalisedDocument(RawDocument(url=url, body=body), m, content_hash(body)))
    return SiteUpdate(HOST, f"https://{HOST}", docs)


def test_a_new_site_is_its_first_entry_with_everything_added(session: Session) -> None:
    promote_site(session, update(manifest("search", "add_to_cart", flows=True)))
    (entry,) = entries(session)
    assert (entry.reason, entry.version, entry.actions, entry.flows) == ("crawl", 1, 2, 1)
    assert entry.added == ["add_to_cart", "flow:buy", "search"]
    assert (entry.removed, entry.changed, entry.run_id) == ([], {}, None)


def test_the_diff_names_added_removed_and_changed_fields(session: Session) -> None:
    promote_site(session, update(manifest("search", "add_to_cart", flows=True)))
    new = manifest("search", "checkout", flows=True)
    search = new.actions[0].model_copy(
        update={"endpoint": f"https://{HOST}/find", "description": "Search the shop."}
    )
    new = new.model_copy(update={"actions": [search, new.actions[1]]})
    promote_site(session, update(new))
    last = entries(session)[-1]
    assert (last.reason, last.version, last.actions) == ("crawl", 2, 2)
    assert last.added == ["checkout"] and last.removed == ["add_to_cart"]
    # The flow's steps name checkout instead of add_to_cart: a changed flow, marked as such.
    assert last.changed == {"flow:buy": ["steps"], "search": ["description", "endpoint"]}


def test_an_unchanged_recrawl_writes_no_history(session: Session) -> None:
    promote_site(session, update(manifest("search", flows=True)))
    session.flush()
    counter = WriteCounter(session)
    try:
        assert not promote_site(session, update(manifest("search", flows=True))).changed
        session.flush()
    finally:
        counter.close()
    assert counter.writes == [] and len(entries(session)) == 1


def test_a_new_document_with_the_same_actions_bumps_the_version_but_adds_no_entry(
    session: Session,
) -> None:
    promote_site(session, update(manifest("search")))
    body = manifest("search").model_dump_json(indent=2).encode()  # other bytes, same set
    assert promote_site(session, update(manifest("search"), body=body)).changed
    assert session.scalars(select(Site.version)).one() == 2
    assert [e.version for e in entries(session)] == [1]


def test_a_tombstone_is_an_entry_of_its_own(session: Session) -> None:
    start = utcnow()
    promote_site(session, two_documents(manifest("search"), manifest("help")), now=start)
    gone = SiteUpdate(
        HOST, f"https://{HOST}", failures=[FetchFailure(url=PAGE, status=404, code="not-found")]
    )
    for hours in (0, 36):
        assert not promote_site(session, gone, now=start + timedelta(hours=hours)).changed
    assert len(entries(session)) == 1  # evidence gathered, nothing removed yet
    run = start_run(session, kind="crawl", targets=[HOST])
    assert promote_site(session, gone, now=start + timedelta(hours=73), run_id=run).changed
    last = entries(session)[-1]
    assert (last.reason, last.removed, last.added, last.run_id) == ("tombstone", ["help"], [], run)
    assert last.at == start + timedelta(hours=73) and last.actions == 1
    assert names(session) == ["search"]


def test_robots_disallow_withdraws_a_document_at_once(session: Session) -> None:
    promote_site(session, two_documents(manifest("search"), manifest("help")))
    result = promote_site(
        session,
        SiteUpdate(
            HOST,
            f"https://{HOST}",
            failures=[
                FetchFailure(url=PAGE, code="robots-disallowed"),
                FetchFailure(url=PAGE, code="robots-disallowed"),
            ],
        ),
    )  # said twice: removed once
    assert result.changed and result.errors == []
    last = entries(session)[-1]
    assert (last.reason, last.removed, last.actions, last.version) == ("robots", ["help"], 1, 2)
    assert names(session) == ["search"]


def test_robots_unavailable_keeps_everything(session: Session) -> None:
    promote_site(session, update(manifest("search")))
    result = promote_site(session, failure("robots-unavailable", 503))
    assert not result.changed and result.errors == ["robots-unavailable"]
    assert names(session) == ["search"] and len(entries(session)) == 1
    assert "robots-unavailable" in (session.scalars(select(Site.last_error)).one() or "")


def test_one_promotion_of_two_kinds_writes_an_entry_for_each(session: Session) -> None:
    start = utcnow()
    promote_site(session, two_documents(manifest("search"), manifest("help")), now=start)
    gone = FetchFailure(url=PAGE, status=410, code="http-error")
    for hours in (0, 40):
        promote_site(
            session,
            SiteUpdate(HOST, f"https://{HOST}", failures=[gone]),
            now=start + timedelta(hours=hours),
        )
    both = update(manifest("search", "checkout"))
    both.failures.append(gone)
    promote_site(session, both, now=start + timedelta(hours=80))
    crawl, tombstone = entries(session)[-2:]
    assert (crawl.reason, crawl.added, crawl.removed) == ("crawl", ["checkout"], [])
    assert (tombstone.reason, tombstone.removed) == ("tombstone", ["help"])
    assert crawl.version == tombstone.version == 2 and tombstone.actions == 2


def test_ingest_is_its_reason_and_same_name_in_two_documents_compares_both(
    session: Session,
) -> None:
    promote_site(session, two_documents(manifest("search"), manifest("search")), reason="ingest")
    first = entries(session)[0]
    assert (first.added, first.reason, first.actions) == (["search"], "ingest", 2)  # 2 rows
    other = Action(
        name="search",
        title="Search help",
        effect="read",
        method="GET",
        endpoint=f"https://{HOST}/help?q={{q}}",
    )
    page = manifest().model_copy(update={"actions": [other]})
    promote_site(session, two_documents(manifest("search"), page), reason="ingest")
    # Fields in registry.store.history.FIELDS' order.
    assert entries(session)[-1].changed == {"search": ["title", "effect", "method", "endpoint"]}


def test_history_pages_newest_first(session: Session) -> None:
    for n in range(5):
        promote_site(session, update(manifest(*(f"a{i}" for i in range(n + 1)))))
    site_id = session.scalars(select(Site.id)).one()
    first, before = list_history(session, site_id, limit=2)
    assert [e["version"] for e in first] == [5, 4] and before is not None
    second, before = list_history(session, site_id, limit=2, cursor=before)
    third, end = list_history(session, site_id, limit=2, cursor=before)
    assert [e["version"] for e in second + third] == [3, 2, 1] and end is None
    assert first[0]["added"] == ["a4"] and first[0]["at"].endswith("+00:00")


def test_the_same_schema_with_its_keys_reordered_is_no_change(session: Session) -> None:
    def with_schema(schema: dict[str, object]) -> Manifest:
        m = manifest("search")
        return m.model_copy(
            update={"actions": [m.actions[0].model_copy(update={"input_schema": schema})]}
        )

    promote_site(
        session,
        update(
            with_schema({"type": "object", "properties": {"q": {"type": "string", "minLength": 1}}})
        ),
    )
    assert promote_site(
        session,
        update(
            with_schema({"properties": {"q": {"minLength": 1, "type": "string"}}, "type": "object"})
        ),
        now=utcnow(),
    ).changed
    assert len(entries(session)) == 1  # another text of the same JSON: nothing to record
    promote_site(
        session,
        update(
            with_schema({"type": "object", "properties": {"q": {"type": "string", "minLength": 2}}})
        ),
    )
    assert entries(session)[-1].changed == {"search": ["input_schema"]}


def test_a_new_site_is_neither_locked_nor_read_before_its_first_write(session: Session) -> None:
    """The site's row was inserted by this transaction: nothing of it to lock, snapshot or
    compare (a tenth of a new site's promotion); its entry is still everything added."""
    log = Statements(session)
    try:
        promote_site(session, update(manifest("search", "add_to_cart", flows=True)))
    finally:
        log.close()
    first_write = next(i for i, s in enumerate(log.sent) if s.startswith("INSERT INTO DOCUMENTS"))
    reads = [s for s in log.sent[:first_write] if s.startswith("SELECT")]
    assert all(" FROM SITES" in s and "FOR UPDATE" not in s for s in reads), reads
    (entry,) = entries(session)
    assert entry.added == ["add_to_cart", "flow:buy", "search"] and entry.actions == 2


def test_a_known_site_is_snapshot_before_it_changes(session: Session) -> None:
    promote_site(session, update(manifest("search")))
    session.flush()
    log = Statements(session)
    try:
        promote_site(session, update(manifest("search", "checkout")))
    finally:
        log.close()
    first_delete = next(i for i, s in enumerate(log.sent) if s.startswith("DELETE FROM ACTIONS"))
    assert any(" FROM ACTIONS" in s for s in log.sent[:first_delete] if s.startswith("SELECT"))
    assert entries(session)[-1].added == ["checkout"]
