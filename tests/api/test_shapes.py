"""/find, GET /actions/{id} (or /flows/{id}) and the MCP tools say the same of the same action:
the same public fields (registry.model.public.ActionFields) with the same values, whether its
call needs approval included."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import anyio
from mcp import Client
from sqlalchemy import Engine

from api.mcp.server import build_server
from registry.index import ActionIndex
from registry.model.effects import needs_approval
from registry.model.public import ActionFields
from tests.api.conftest import Live

# liveness only where an endpoint was probed (tests/crawler/test_probes.py): none here
SHARED = set(ActionFields.model_fields) - {"liveness"}
QUERY = {"origin": "any", "limit": 50}


@dataclass
class Backing:
    index: ActionIndex
    engine: Engine
    search_threads: anyio.CapacityLimiter


def _mcp(live: Live, query: str) -> tuple[list[dict[str, Any]], dict[str, dict[str, Any]]]:
    """find_action's results for ``query``, and get_action's answer for each."""

    async def body() -> tuple[list[dict[str, Any]], dict[str, dict[str, Any]]]:
        state = live.client.app.state  # type: ignore[attr-defined]
        backing = Backing(state.index, live.engine, anyio.CapacityLimiter(1))
        async with Client(build_server(lambda: backing)) as client:
            found = await client.call_tool("find_action", {"query": query, **QUERY})
            assert not found.is_error and found.structured_content is not None
            results = found.structured_content["results"]
            details = {}
            for result in results:
                detail = await client.call_tool("get_action", {"id": result["id"]})
                assert not detail.is_error and detail.structured_content is not None
                details[result["id"]] = detail.structured_content
            return results, details

    return anyio.run(body)


def test_find_and_mcp_give_the_same_fields_for_the_same_action(live_store: Live) -> None:
    query = "buy order checkout pet"
    rest = live_store.client.get("/find", params={"q": query, **QUERY}).json()["results"]
    mcp, mcp_details = _mcp(live_store, query)
    kinds = {r["kind"] for r in rest}
    approvals = {r["needs_approval"] for r in rest}
    assert kinds == {"action", "flow"} and approvals == {True, False}  # the query covers both
    assert [r["id"] for r in mcp] == [r["id"] for r in rest]
    for ours, theirs in zip(rest, mcp, strict=True):
        assert set(ours) == set(theirs) and set(ours) >= SHARED, ours["id"]
        assert ours == theirs  # the score too: one search
        assert ours["needs_approval"] is needs_approval(ours["effect"])
        detail = live_store.client.get(f"/{ours['kind']}s/{ours['id']}").json()
        for other in (detail, mcp_details[ours["id"]]):
            assert {k: other[k] for k in SHARED} == {k: ours[k] for k in SHARED}, ours["id"]
