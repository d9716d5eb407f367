"""Pages newest first by id, for crawl runs (GET /runs) and a site's history
(GET /sites/{host}/history): one keyset and one cursor rule for both.

A page is the rows with an id below the cursor, highest first; the cursor of the next page is
the last row's id, in decimal, and there is none after the last page. Functions take a
Session and only read.
"""

from __future__ import annotations

import re
from typing import Any

from sqlalchemy import Select
from sqlalchemy.orm import InstrumentedAttribute, Session

from registry.model.bounds import MAX_PAGE, MAX_ROW_ID

# A row id as a cursor: positive, no leading zero, as many digits as MAX_ROW_ID has. One
# larger than any id a column holds stands before every row (the first page): it is not put in
# the query, where PostgreSQL would refuse it.
CURSOR_PATTERN = r"^[1-9][0-9]{0,9}$"
_CURSOR = re.compile(CURSOR_PATTERN)


class BadCursor(ValueError):
    """A cursor this registry did not hand out (or one from an older version of it)."""


def before(cursor: str | None) -> int | None:
    """The id a ``next_cursor`` names, or None for the first page; BadCursor if it names none."""
    if cursor is None:
        return None
    if not _CURSOR.fullmatch(cursor):
        raise BadCursor("cursor must be a next_cursor an earlier answer gave")
    return int(cursor)


def newest_first(
    session: Session,
    query: Select[Any],
    id_column: InstrumentedAttribute[int],
    limit: int,
    cursor: str | None,
) -> tuple[list[Any], str | None]:
    """(one page of ``query``'s rows, highest id first, at most ``limit`` and MAX_PAGE; the
    cursor of the next page, or None on the last)."""
    limit = max(1, min(limit, MAX_PAGE))
    last = before(cursor)
    if last is not None and last <= MAX_ROW_ID:
        query = query.where(id_column < last)
    rows = list(session.scalars(query.order_by(id_column.desc()).limit(limit + 1)))
    page = rows[:limit]
    return page, (str(page[-1].id) if len(rows) > limit else None)
