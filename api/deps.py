"""Request dependencies: the index and settings the app was created with."""

from __future__ import annotations

from typing import Annotated

import anyio
from fastapi import Depends, Request

from registry.index import ActionIndex


async def get_index(request: Request) -> ActionIndex:
    # ``async``: FastAPI would run a plain function in its thread pool, one more hop per request.
    return request.app.state.index  # type: ignore[no-any-return]


IndexDep = Annotated[ActionIndex, Depends(get_index)]


async def get_search_threads(request: Request) -> anyio.CapacityLimiter:
    return request.app.state.search_threads  # type: ignore[no-any-return]


SearchThreadsDep = Annotated[anyio.CapacityLimiter, Depends(get_search_threads)]
