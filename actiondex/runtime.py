"""Opening the store and the index for a command, and the errors a user may see."""

from __future__ import annotations

import time
from pathlib import Path

from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine
from sqlalchemy.exc import OperationalError

from actiondex import output
from registry.config import Settings
from registry.db.engine import alembic_config, first_line, make_engine, migrate, transaction
from registry.index import ActionIndex, IndexBusy

LOCK_RETRY_S = 0.05  # between tries for the index's writer lock (a follower's sync: ms)


class UserError(Exception):
    """A problem the user can fix; printed as one line (with ``--json``, as one JSON object
    with ``code``), never a traceback."""

    code = "bad-input"


class StoreUnavailable(UserError):
    """The database cannot be reached (down, restarting, connection refused)."""

    code = "database-unavailable"


def open_store(settings: Settings, *, auto_migrate: bool = True) -> Engine:
    """An engine on a schema at head. Embedded SQLite is migrated on the spot; a server database
    must be migrated explicitly (`actiondex migrate`), as deployments usually want."""
    if settings.db_url.startswith("sqlite"):
        make_dir(settings.data_dir, "the data dir (--data-dir, ACTIONDEX_DATA_DIR)")
    engine = make_engine(settings)
    try:
        if engine.dialect.name == "sqlite" and auto_migrate:
            migrate(engine)
        else:
            _require_head(engine)
    except OperationalError as exc:
        raise StoreUnavailable(f"cannot open the database: {first_line(exc)}") from exc
    return engine


def make_dir(path: Path, what: str) -> None:
    """Create a folder the command needs, or say in one line which setting names a bad one."""
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(f"{what} {path} cannot be created: {exc.strerror or exc}") from exc


def _require_head(engine: Engine) -> None:
    head = ScriptDirectory.from_config(alembic_config(engine)).get_current_head()
    with engine.connect() as conn:
        current = MigrationContext.configure(conn).get_current_revision()
    if current != head:
        raise UserError(
            f"the database schema is at {current or 'nothing'}, not {head}: "
            "run `actiondex migrate` first"
        )


def open_index(settings: Settings, engine: Engine, searching: bool = False) -> ActionIndex:
    """The on-disk index, brought up to date with the store (a no-op when it already is);
    ``searching`` (serve, mcp, find): with the vector index too when the settings turn the
    first stage by meaning (ACTIONDEX_MEANING_FIRST_STAGE) or the site stage
    (ACTIONDEX_MEANING_SITES) on; a command that only writes never reads the vectors.

    Another process may hold the index's writer lock: a running `serve` or `mcp` takes it
    for each sync of its live follower. Wait for it up to ``index_wait_seconds``; if it is
    still held, leave the update to that process, say so in one line and go on with the index
    as it is. What the command stored is in the store either way; the follower indexes it."""
    make_dir(settings.index_path, "the index dir (ACTIONDEX_INDEX_DIR, else DATA_DIR/index)")
    index = ActionIndex.open(
        settings.index_path,
        searching and settings.meaning_first_stage,
        searching and settings.meaning_sites,
    )
    deadline = time.monotonic() + settings.index_wait_seconds
    while True:
        try:
            with transaction(engine) as session:
                index.sync(session)
            return index
        except IndexBusy:
            if time.monotonic() >= deadline:
                break
            time.sleep(LOCK_RETRY_S)
    output.info(
        f"actiondex: another process held the index's lock for "
        f"{settings.index_wait_seconds:g} s, so this one left the index to it: a "
        "running `actiondex serve` or `mcp` indexes what is stored within its "
        "ACTIONDEX_INDEX_POLL_SECONDS; with none running, `actiondex index` does"
    )
    return index


def empty_index_note(settings: Settings, index: ActionIndex) -> str | None:
    """What to say when a search finds an empty store: which store it was, and how to fill it
    (the demo keeps a store of its own, which a plain ``find`` after ``make demo`` misses)."""
    if index.searcher().num_docs:
        return None
    note = (
        f"the store in {settings.data_dir} holds no actions yet: fill it with "
        "`actiondex crawl` or `actiondex ingest`"
    )
    demo = settings.data_dir / "demo"
    if (demo / "index").is_dir():
        note += f"; the demo's store is {demo}: `actiondex --data-dir {demo} find ...`"
    return note
