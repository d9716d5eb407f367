"""Request dependencies: the index, the store and the settings the app was created with."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated

import anyio
from fastapi import Depends, Request
from sqlalchemy import Engine
from sqlalchemy.orm import Session

from registry.db.engine import reading
from registry.index import ActionIndex


async def get_index(request: Request) -> ActionIndex:
    # ``async``: FastAPI would run a plain function in its thread pool, one more hop per request.
    return request.app.state.index  # type: ignore[no-any-return]


IndexDep = Annotated[ActionIndex, Depends(get_index)]


async def get_search_threads(request: Request) -> anyio.CapacityLimiter:
    return request.app.state.search_threads  # type: ignore[no-any-return]


SearchThreadsDep = Annotated[anyio.CapacityLimiter, Depends(get_search_threads)]


async def get_engine(request: Request) -> Engine:
    return request.app.state.engine  # type: ignore[no-any-return]


EngineDep = Annotated[Engine, Depends(get_engine)]


def get_session(engine: EngineDep) -> Iterator[Session]:
    """A read-only session for one request (registry.db.engine.reading). A plain function: FastAPI
    opens and closes it in its thread pool, and a route using it should be a plain ``def``
    too, so no store call blocks the event loop. A store that cannot be reached raises
    registry.db.engine.DB_AWAY, answered 503 (api.errors)."""
    with reading(engine) as session:
        yield session


SessionDep = Annotated[Session, Depends(get_session)]
