"""The store clock: a number for every change of a site's action set, given in commit order.

An index that has read every change up to N asks only for sites whose ``change_seq`` is above
N (one range scan of ``ix_sites_change_seq``) instead of every site's version. That is only
safe if no change numbered N or below can still commit after the index read N. A plain
sequence breaks it: transaction A takes 7, B takes 8, B commits first, a poller reads 8 and
moves on, then A commits 7 and is never read.

So the number comes from a one-row table, ``UPDATE store_clock SET seq = seq + 1 RETURNING
seq``. The row lock it takes is held until that transaction ends: a second change waits at
its own UPDATE until the first has committed (or rolled back), and on PostgreSQL (READ
COMMITTED) then re-reads the row and gets the next number. So numbers are given in commit
order: once a number is visible, every smaller one is committed and visible too. On SQLite
the database-wide write lock (BEGIN IMMEDIATE, registry.db.engine) orders them already.

Chosen over PostgreSQL's ``pg_snapshot_xmin`` with a margin because it works the same on
SQLite, needs no margin (no re-reading of recent changes, no clock assumptions) and is one
small statement. Its price: changes serialise from numbering to commit. Callers therefore
number as the LAST statement of a change (``registry.store.rows.mark_changed`` is called at the
end of a promotion), so the lock covers one UPDATE of the site row and the commit.
A transaction under REPEATABLE READ would get a serialisation error here instead of waiting:
promotions run under READ COMMITTED, the default.
"""

from __future__ import annotations

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from registry.db.tables import StoreClock

CLOCK_ID = 1  # the one row, inserted by migration 0011


NEXT = (
    update(StoreClock)
    .where(StoreClock.id == CLOCK_ID)
    .values(seq=StoreClock.seq + 1)
    .returning(StoreClock.seq)
)


def next_change(session: Session) -> int:
    """Take the next change number; its lock is held until the caller's transaction ends.
    The session's pending writes go first, as its autoflush would send them (a site row is
    locked before the clock, never after: no deadlock with a promotion that holds it), then
    the UPDATE on the connection: through the ORM it took ~3 ms of Python, ten times the
    statement (its bulk-update bookkeeping, for a table no object of the session maps)."""
    session.flush()
    return int(session.connection().execute(NEXT).scalar_one())


def last_change(session: Session) -> int:
    """The highest number committed (as this session's snapshot sees it)."""
    return int(session.scalar(select(StoreClock.seq).where(StoreClock.id == CLOCK_ID)) or 0)
