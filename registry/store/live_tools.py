"""An MCP server's tools listed twice: by a server card (or server.json) the crawl read and by
the server's own ``tools/list``, which a liveness probe stores as a document of the site at the
server's URL (crawler/probes). Each tool is one action, and the live list wins: after a
promotion, the site's card tools that the live list at the same endpoint also names go.
Either document may be promoted first; this runs after each. Functions take a Session and at
most flush()."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from registry.db.tables import ActionRow, Document
from registry.formats.mcp import NAME, RPC_KEY


def drop_listed_twice(
    session: Session, site_id: int, formats: Collection[str | None] | None = None
) -> int:
    """Delete the site's card tools that its live tools/list names too; how many went.
    ``formats``: those of all the site's documents, when the caller knows them: none an MCP
    document, nothing is listed twice and the store is not asked."""
    session.flush()
    if formats is not None and NAME not in formats:
        return 0
    query = (
        select(
            ActionRow.id, ActionRow.name, ActionRow.endpoint, ActionRow.input_schema, Document.url
        )
        .join(Document, Document.id == ActionRow.document_id)
        .where(
            ActionRow.site_id == site_id,
            Document.format == NAME,
            ActionRow.endpoint.is_not(None),
        )
    )
    tools = [row for row in session.execute(query) if _is_tool(row.input_schema)]
    # The live list is the document at the endpoint's own URL (crawler/probes.tools_body).
    live = {(row.endpoint, row.name) for row in tools if row.url == row.endpoint}
    twice = [
        row.id for row in tools if row.url != row.endpoint and (row.endpoint, row.name) in live
    ]
    if twice:
        session.execute(delete(ActionRow).where(ActionRow.id.in_(twice)))
    return len(twice)


def _is_tool(schema: Any) -> bool:
    rpc = schema.get(RPC_KEY) if isinstance(schema, dict) else None
    return isinstance(rpc, dict) and rpc.get("method") == "tools/call"
