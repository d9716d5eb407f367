"""GET /healthz: liveness plus what the index holds."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from api.deps import IndexDep
from api.errors import error_responses
from api.schemas import Health

router = APIRouter(tags=["health"])


@router.get("/healthz", response_model=Health, responses=error_responses(500))
def healthz(index: IndexDep) -> dict[str, Any]:
    return {"status": "ok", "actions": index.count("action"), "index_generation": index.generation}
