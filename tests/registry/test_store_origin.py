"""A site is its origin (issue 20): the scheme and port that last answered are stored, a
crawl that could not connect (tls-invalid) keeps them, and every recrawl uses them:
``actiondex crawl --due`` (actiondex.due) and the workers read ``Site.origin``."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from actiondex.due import crawl_selection
from registry.db.tables import Site
from registry.model.schemas import FetchFailure, RawDocument, SiteCrawl
from registry.normalising import normalise_site
from registry.store.promotion import promote_site
from registry.store.rows import utcnow

HOST = "kites.test"
HTTPS, HTTP = f"https://{HOST}:18111", f"http://{HOST}:18111"
MANIFEST = b'{"version": "agent-actions/0.1", "site": "kites.test", "actions": [{"name": "fly"}]}'


def crawl(session: Session, origin: str, ok: bool) -> None:
    url = origin + "/.well-known/agent-actions.json"
    if ok:
        crawl_ = SiteCrawl(
            host=HOST, origin=origin, documents=[RawDocument(url=url, body=MANIFEST)]
        )
    else:
        failure = FetchFailure(url=url, code="tls-invalid", message="certificate verify failed")
        crawl_ = SiteCrawl(host=HOST, origin=origin, failures=[failure])
    promote_site(session, normalise_site(crawl_))


def stored_origin(session: Session) -> str:
    return session.scalars(select(Site.origin).where(Site.host == HOST)).one()


def due_now(session: Session) -> list[str]:
    site = session.scalars(select(Site).where(Site.host == HOST)).one()
    site.next_crawl_at = utcnow() - timedelta(minutes=1)
    session.flush()
    return crawl_selection(session, 10)


def test_the_origin_that_answered_is_kept_and_recrawled(session: Session) -> None:
    crawl(session, HTTPS, ok=False)  # a new user's first try: tls-invalid
    assert stored_origin(session) == HTTPS
    crawl(session, HTTP, ok=True)
    assert stored_origin(session) == HTTP
    assert due_now(session) == [HTTP]
    crawl(session, HTTPS, ok=False)  # a later failed try over https changes nothing
    assert stored_origin(session) == HTTP
    assert due_now(session) == [HTTP]
    crawl(session, HTTPS, ok=True)  # the site moved to https: from then on, https
    assert stored_origin(session) == HTTPS
