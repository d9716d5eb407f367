"""The queue on an empty, migrated PostgreSQL database with procrastinate's schema, shared by
the tests of actiondex/jobs."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine

from actiondex.jobs.schema import ensure_schema
from harness.db import engine_for
from registry.config import Settings
from registry.db.engine import migrate


@pytest.fixture
def queue(empty_pg_url: str, tmp_path: Path) -> Iterator[tuple[Settings, Engine]]:
    engine = engine_for(empty_pg_url, tmp_path)
    migrate(engine)
    ensure_schema(engine)
    yield Settings(database_url=empty_pg_url, data_dir=tmp_path, stalled_after=5), engine
    engine.dispose()
