"""`actiondex migrate` and `actiondex index`: the database schema and the search index."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from actiondex import output
from actiondex.commands.options import load_settings
from actiondex.runtime import make_dir, open_store
from registry.db.engine import make_engine, transaction
from registry.db.engine import migrate as run_migrations


def refresh_index_parts(session: Any) -> None:
    """Actions an older version stored lack their index parts; every rebuild would work them
    out again, at a third of its speed. Store them once (about a minute per 100k actions)."""
    from registry.store.parts_refresh import refresh_index_parts as refresh
    from registry.store.parts_refresh import stale_index_parts

    if stale := stale_index_parts(session):
        output.info(
            f"working out the index parts of {stale} actions stored by an older version (once)..."
        )
        refresh(session)


def migrate() -> None:
    """Create or upgrade the database schema to the newest revision."""
    settings = load_settings()
    engine = make_engine(settings)
    run_migrations(engine)
    output.info(f"database at head: {output.safe_url(settings.db_url)}")
    if engine.dialect.name == "postgresql":  # the task queue of `schedule` and `worker`
        from actiondex.jobs.schema import ensure_schema

        output.info(f"task queue schema: {ensure_schema(engine)}")
    with transaction(engine) as session:
        refresh_index_parts(session)


def index(
    rebuild: Annotated[
        bool, typer.Option("--rebuild", help="Build a fresh index and swap it in atomically.")
    ] = False,
) -> None:
    """Bring the search index up to date with the store."""
    from registry.index import ActionIndex

    settings = load_settings()
    engine = open_store(settings)
    make_dir(settings.index_path, "the index dir (ACTIONDEX_INDEX_DIR, else DATA_DIR/index)")
    with transaction(engine) as session:
        if rebuild:
            refresh_index_parts(session)
            stats = ActionIndex.rebuild(settings.index_path, session)
        else:
            # By hand: a full read (a reconcile), which also drops sites deleted from the store.
            stats = ActionIndex.open(settings.index_path).sync(session, full=True)
    verb = "rebuilt" if rebuild else "up to date"
    output.info(
        f"index {verb} (generation {stats.generation}): {stats.sites_indexed} sites "
        f"(re)indexed, {stats.sites_removed} removed, {stats.documents} documents "
        f"written in {stats.took_ms:.0f} ms"
    )
