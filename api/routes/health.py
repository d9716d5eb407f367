"""GET /healthz (the process answers), /readyz (it can serve: store reachable, index loaded)
and /metrics (Prometheus text)."""

from __future__ import annotations

import time
from typing import Any

import anyio
from fastapi import APIRouter, Request, Response
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from sqlalchemy import Engine

from api.deps import IndexDep
from api.errors import error_response, error_responses
from api.schemas import Health, Ready

router = APIRouter(tags=["health"])
STORE_TIMEOUT_S = 2.0  # a store that takes longer to answer SELECT 1 is not ready


@router.get("/healthz", response_model=Health, responses=error_responses(500))
def healthz(index: IndexDep) -> dict[str, Any]:
    """Liveness: the process answers, with what its index holds."""
    return {"status": "ok", "actions": index.count("action"), "index_generation": index.generation}


def _ping(engine: Engine) -> None:
    # The DBAPI connection itself: no SQLAlchemy transaction (on SQLite that would begin
    # IMMEDIATE and wait behind a crawl's writes).
    connection = engine.raw_connection()
    try:
        cursor = connection.cursor()
        cursor.execute("SELECT 1")
        cursor.close()
    finally:
        connection.close()


@router.get("/readyz", response_model=Ready, responses=error_responses(500, 503))
async def readyz(request: Request, index: IndexDep) -> Any:
    """Readiness, for a load balancer: the store answers within 2 s and the index is loaded.
    ``index_age_s`` is how long since the index last caught up with the store."""
    engine: Engine = request.app.state.engine
    try:
        with anyio.fail_after(STORE_TIMEOUT_S):
            await anyio.to_thread.run_sync(_ping, engine, abandon_on_cancel=True)
    except TimeoutError:
        return error_response(
            503, "not-ready", f"the store did not answer within {STORE_TIMEOUT_S:g} s"
        )
    except Exception as exc:
        reason = str(getattr(exc, "orig", None) or exc).strip().splitlines()
        return error_response(
            503,
            "not-ready",
            "the store is unreachable: " + (reason[0] if reason else type(exc).__name__),
        )
    age = None if index.synced_at is None else round(time.time() - index.synced_at, 3)
    return {
        "status": "ready",
        "store": "ok",
        "index_generation": index.generation,
        "actions": index.count("action"),
        "flows": index.count("flow"),
        "index_age_s": age,
    }


@router.get(
    "/metrics",
    response_class=Response,
    responses={
        200: {
            "content": {CONTENT_TYPE_LATEST.split(";")[0]: {"schema": {"type": "string"}}},
            "description": "Prometheus text exposition (version 0.0.4)",
        },
        **error_responses(500),
    },
)
def metrics(request: Request) -> Response:
    """Requests and latency by route and status, the index's documents, generation and age,
    and the last crawl run's figures, in Prometheus text format."""
    return Response(
        generate_latest(request.app.state.metrics_registry), media_type=CONTENT_TYPE_LATEST
    )
