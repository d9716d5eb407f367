"""An operator's removal of a site (`actiondex sites remove HOST`): its documents, actions and
flows are withdrawn, the site's row stays with ``removed_at`` set, so its history keeps the
record (an entry "removed") and the index drops it at its next sync. Schedules skip a removed
site; an explicit crawl or ingest of it brings it back (registry.store.promotion.promote_site clears
``removed_at``). Takes a Session and at most flushes, as registry.store.promotion does.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from registry.db.tables import Document
from registry.store.history import Changes
from registry.store.promotion import NotFound, count_site
from registry.store.rows import mark_changed, utcnow
from registry.store.site_list import find_site


@dataclass
class Removal:
    host: str
    removed_at: datetime
    already_removed: bool  # it was removed before: nothing was done now
    documents: int = 0  # what was withdrawn now
    actions: int = 0
    flows: int = 0
    version: int = 0  # the site's version after it


def remove_site(session: Session, host: str, now: datetime | None = None) -> Removal:
    """Withdraw the site ``host`` (as users name it: any case, a URL, an IDN). NotFound when
    the store does not know it; a site removed already is left as it is."""
    site = find_site(session, host)
    if site is None:
        raise NotFound(f"no site {host[:300]!r} in the registry")
    if site.removed_at is not None:
        return Removal(site.host, site.removed_at, True, version=site.version)
    now = now or utcnow()
    changes = Changes(session, site)
    changes.begin()  # locks the site; what it had is the entry's "removed"
    actions, flows = count_site(session, site.id)
    documents = session.scalar(select(func.count()).where(Document.site_id == site.id)) or 0
    session.execute(delete(Document).where(Document.site_id == site.id))  # actions, flows too
    site.removed_at = now
    mark_changed(session, site, now)
    changes.close("removed", always=True)
    changes.write(now)
    session.flush()
    return Removal(site.host, now, False, documents, actions, flows, site.version)
