"""Alembic environment: takes the engine from registry.db.engine (or ACTIONDEX_* settings)."""

from __future__ import annotations

import warnings

from alembic import context
from sqlalchemy import Engine, text

from registry.config import get_settings
from registry.db.tables import POSTGRESQL_ONLY, Base

target_metadata = Base.metadata


def _engine() -> Engine:
    engine = context.config.attributes.get("engine")
    if engine is None:
        from registry.db.engine import make_engine

        engine = make_engine(get_settings())
    return engine


def _ours(name: str | None, type_: str, _parents: object) -> bool:
    """procrastinate's tables (the task queue of `actiondex worker`, applied by `actiondex
    migrate` beside these revisions) are not our models: the drift check leaves them alone."""
    return not (type_ == "table" and (name or "").startswith("procrastinate_"))


def run_migrations_online() -> None:
    engine = _engine()
    with engine.connect() as connection:
        if connection.dialect.name == "postgresql":
            # Never wait forever behind a long query, never hold locks for long.
            connection.execute(text("SET lock_timeout = '10s'"))
            connection.execute(text("SET statement_timeout = '120s'"))
        context.configure(
            connection=connection,
            target_metadata=target_metadata,
            render_as_batch=connection.dialect.name == "sqlite",
            compare_type=True,
            include_name=_ours,
            transaction_per_migration=False,
        )
        with context.begin_transaction(), warnings.catch_warnings():
            if connection.dialect.name != "postgresql":
                # The drift check cannot compare what the schema holds on PostgreSQL only
                # (an expression index), and says so; that is expected.
                for name in POSTGRESQL_ONLY:
                    warnings.filterwarnings("ignore", f".*expression-based index '{name}'")
            context.run_migrations()
        connection.commit()


run_migrations_online()
