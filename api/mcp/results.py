"""What the MCP tools answer: GET /find's result model, plus whether a call needs approval."""

from __future__ import annotations

from pydantic import BaseModel, Field

from registry.results import FindResponse, FindResult

APPROVAL = ("True when calling it spends money, sends something in the person's name or "
            "deletes something (effect spend, send or delete): ask your person first")


class FoundAction(FindResult):
    """One action (or flow) found: how to call it, what it does, and what it needs."""

    needs_approval: bool = Field(description=APPROVAL)


class FoundActions(BaseModel):
    """One page of find_action results, best first."""

    query: str = Field(description="The query as it was searched")
    results: list[FoundAction]
    took_ms: float = Field(description="Time the search took, in milliseconds")


def needs_approval(effect: str) -> bool:
    return effect in {"spend", "send", "delete"}


def found(response: FindResponse) -> FoundActions:
    """A /find page as find_action answers it."""
    results = [FoundAction(**result.model_dump(), needs_approval=needs_approval(result.effect))
               for result in response.results]
    return FoundActions(query=response.query, results=results, took_ms=response.took_ms)
