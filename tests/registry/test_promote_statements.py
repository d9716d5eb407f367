"""What promoting a new site asks the store (SQLite and PostgreSQL): an ingest promotes
thousands of new sites one transaction each, and each statement is a tenth of a millisecond
of Python. Nothing is asked whose answer is known: a new document has no actions to delete, a
site with no naming document names no one, a new site without flows has none to settle."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from registry.db.tables import FlowRow, Site
from registry.store.promotion import promote_site
from tests.helpers.promote import Statements, manifest, update


def promoted(session: Session, *names: str, flows: bool = False) -> list[str]:
    log = Statements(session)
    try:
        result = promote_site(session, update(manifest(*names, flows=flows)))
    finally:
        log.close()
    assert result.changed and result.actions == len(names) and result.flows == int(flows)
    return log.sent


def test_a_new_site_without_flows_asks_only_what_it_must(session: Session) -> None:
    sent = promoted(session, "search", "add_to_cart")
    assert not [s for s in sent if s.startswith("DELETE")]
    assert not [s for s in sent if "DOCUMENTS.RAW" in s]  # no naming document to read
    # The flows are read once, by the history's snapshot (with its CASTs), not to settle them.
    assert len([s for s in sent if " FROM FLOWS" in s and "CAST(" not in s]) == 1  # the count
    assert len([s for s in sent if "COUNT(" in s]) == 1
    assert session.scalars(select(Site.version)).one() == 1


def test_a_new_site_with_flows_settles_them(session: Session) -> None:
    sent = promoted(session, "search", "add_to_cart", flows=True)
    assert any(s.startswith("SELECT FLOWS.ID") for s in sent)
    assert session.scalars(select(FlowRow.name)).one() == "buy"


def test_a_known_document_has_its_actions_replaced(session: Session) -> None:
    promoted(session, "search", "add_to_cart")
    sent = promoted(session, "search")
    assert any(s.startswith("DELETE FROM ACTIONS") for s in sent)
