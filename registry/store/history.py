"""A site's history: each change of its action set kept as a version with its diff.

A change is recorded around it (``Changes``): a snapshot before (once the service knows the
site will change and has locked it), one after, and a ``site_history`` row with their diff
only when an action or flow was added, removed or changed. A promotion
that rewrote documents but left every action as it was (a reformatted file, a new ETag) adds
no entry, though it bumps ``sites.version``: versions in a history may skip. An operator's
removal is always recorded, even of a site that had nothing left (``always=True``).
One promotion that did several kinds of change (a crawl that replaced one document and
tombstoned another) writes one entry per kind, all at the version it produced.

Actions are compared by name, on the fields an agent relies on (``FIELDS``); flows too, as
``flow:<name>``. Two documents of a site may list one name: then each field compares the set
of its values, so a change in either is seen. Functions take a Session and at most flush().
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Text, cast, select
from sqlalchemy.orm import Session

from registry.db.tables import ActionRow, FlowRow, Site, SiteHistory
from registry.store.keyset import newest_first
from registry.store.rows import lock_site
from registry.store.site_list import find_site, iso

REASONS = ("crawl", "ingest", "tombstone", "robots", "removed", "probe")
FIELDS = (
    "title",
    "description",
    "type",
    "effect",
    "method",
    "endpoint",
    "input_schema",
    "output_schema",
    "scope",
    "auth",
    "cost",
    "same_origin",
    "verified",
)
FLOW_FIELDS = ("title", "description", "effect", "input_schema", "steps", "auth", "scope", "cost")
JSON_FIELDS = frozenset({"input_schema", "output_schema", "cost", "steps"})
FLOW = "flow:"

# "name" | "flow:name" -> its rows, sorted, each a tuple of its FIELDS (FLOW_FIELDS) as text:
# JSON columns as the database's JSON text, the others as their repr.
Snapshot = dict[str, list[tuple[str, ...]]]


@dataclass
class Diff:
    added: list[str]
    removed: list[str]
    changed: dict[str, list[str]]

    def __bool__(self) -> bool:
        return bool(self.added or self.removed or self.changed)


def snapshot(session: Session, site_id: int) -> Snapshot:
    """The site's action set as stored now (flushed rows), in the form ``diff`` compares.
    JSON columns are read as the database's text, not decoded: most of a site's actions are
    the same before and after, and ``diff`` looks into a name's fields only when its rows
    differ, and decodes only the JSON texts that do."""
    session.flush()
    found: dict[str, list[tuple[str, ...]]] = {}
    for model, names, prefix in ((ActionRow, FIELDS, ""), (FlowRow, FLOW_FIELDS, FLOW)):
        columns = [
            cast(getattr(model, n), Text) if n in JSON_FIELDS else getattr(model, n) for n in names
        ]
        texts = [(n in JSON_FIELDS, i + 1) for i, n in enumerate(names)]
        for row in session.execute(select(model.name, *columns).where(model.site_id == site_id)):
            found.setdefault(prefix + row[0], []).append(
                tuple(
                    ("null" if row[i] is None else row[i]) if is_json else repr(row[i])
                    for is_json, i in texts
                )
            )
    return {key: sorted(rows) for key, rows in found.items()}


def _fields_changed(key: str, old: list[tuple[str, ...]], new: list[tuple[str, ...]]) -> list[str]:
    names = FLOW_FIELDS if key.startswith(FLOW) else FIELDS
    return [
        name
        for i, name in enumerate(names)
        if not _same(name, sorted({r[i] for r in old}), sorted({r[i] for r in new}))
    ]


def _same(field: str, old: list[str], new: list[str]) -> bool:
    if old == new:
        return True
    if field not in JSON_FIELDS or len(old) != len(new):
        return False
    # The same JSON in other text (keys in another order, other spacing) is no change.
    return _canonical(old) == _canonical(new)


def _canonical(texts: list[str]) -> list[str]:
    return sorted(json.dumps(json.loads(text), sort_keys=True) for text in texts)


def diff(before: Snapshot, after: Snapshot) -> Diff:
    changed = {}
    for key in sorted(before.keys() & after.keys()):
        if before[key] != after[key] and (fields := _fields_changed(key, before[key], after[key])):
            changed[key] = fields
    return Diff(
        added=sorted(after.keys() - before.keys()),
        removed=sorted(before.keys() - after.keys()),
        changed=changed,
    )


class Changes:
    """The history of one promotion: ``begin`` before the first write (locks the site, takes
    the snapshot), ``close(reason)`` after each kind of change (keeps its diff), ``write``
    once the site's version is bumped (one entry per kind that changed the action set)."""

    def __init__(self, session: Session, site: Site, *, new: bool = False) -> None:
        """``new``: the caller's transaction inserted the site (``rows.site_row``): it is
        locked already and has no actions, so ``begin`` neither locks nor reads it."""
        self.session, self.site = session, site
        self.last: Snapshot | None = None
        self.new = new
        self.dirty = False
        self.diffs: list[tuple[str, Diff, Snapshot]] = []

    def begin(self) -> None:
        if self.last is None and self.new:
            self.last = {}
        elif self.last is None:
            lock_site(self.session, self.site)
            self.last = snapshot(self.session, self.site.id)
        self.dirty = True

    def close(self, reason: str, *, always: bool = False) -> None:
        if reason not in REASONS:
            raise ValueError(f"unknown history reason {reason!r}")
        if self.last is None or not self.dirty:
            return
        after = snapshot(self.session, self.site.id)
        change = diff(self.last, after)
        if change or always:
            self.diffs.append((reason, change, after))
        self.last, self.dirty = after, False

    def write(self, now: datetime, run_id: int | None = None) -> list[SiteHistory]:
        entries = []
        for reason, change, after in self.diffs:
            flows = sum(len(rows) for key, rows in after.items() if key.startswith(FLOW))
            actions = sum(len(rows) for rows in after.values()) - flows  # rows, not names
            entries.append(
                SiteHistory(
                    site_id=self.site.id,
                    version=self.site.version,
                    at=now,
                    reason=reason,
                    run_id=run_id,
                    added=change.added,
                    removed=change.removed,
                    changed=change.changed,
                    actions=actions,
                    flows=flows,
                )
            )
        self.session.add_all(entries)
        self.diffs = []
        return entries


def list_history(
    session: Session, site_id: int, *, limit: int = 50, cursor: str | None = None
) -> tuple[list[dict[str, Any]], str | None]:
    """The site's entries newest first, at most ``limit``, those older than the ``cursor`` of
    an earlier page when given; and the cursor of the next page (None on the last).
    BadCursor for one not handed out (registry.store.keyset)."""
    query = select(SiteHistory).where(SiteHistory.site_id == site_id)
    page, after = newest_first(session, query, SiteHistory.id, limit, cursor)
    return [entry_dict(row) for row in page], after


def entry_dict(row: SiteHistory) -> dict[str, Any]:
    return {
        "id": row.id,
        "version": row.version,
        "at": iso(row.at),
        "reason": row.reason,
        "run_id": row.run_id,
        "added": row.added,
        "removed": row.removed,
        "changed": row.changed,
        "actions": row.actions,
        "flows": row.flows,
    }


def site_history(
    session: Session, host: str, *, limit: int = 50, cursor: str | None = None
) -> dict[str, Any] | None:
    """GET /sites/{host}/history: the site as users name it, its entries newest first and
    the cursor of the next page (the last entry's id; None on the last page). None if the
    store does not know the site."""
    site = find_site(session, host)
    if site is None:
        return None
    items, after = list_history(session, site.id, limit=limit, cursor=cursor)
    return {
        "host": site.host,
        "removed_at": iso(site.removed_at),
        "version": site.version,
        "items": items,
        "next_cursor": after,
    }
