"""Request dependencies: the index, the database and settings the app was created with."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated

import anyio
from fastapi import Depends, Request
from sqlalchemy.orm import Session

from registry.db import reading
from registry.index import ActionIndex


async def get_index(request: Request) -> ActionIndex:
    # ``async``: FastAPI would run a plain function in its thread pool, one more hop per request.
    return request.app.state.index  # type: ignore[no-any-return]


IndexDep = Annotated[ActionIndex, Depends(get_index)]


async def get_search_threads(request: Request) -> anyio.CapacityLimiter:
    return request.app.state.search_threads  # type: ignore[no-any-return]


SearchThreadsDep = Annotated[anyio.CapacityLimiter, Depends(get_search_threads)]


def get_session(request: Request) -> Iterator[Session]:
    """A session that only reads (registry.db.reading): the API never writes (DESIGN.md)."""
    with reading(request.app.state.engine) as session:
        yield session


SessionDep = Annotated[Session, Depends(get_session)]
