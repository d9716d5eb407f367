"""The calls of actions that are entries of an agent protocol rather than HTTP endpoints, as
their format module marks them in the input schema's ``x-jsonrpc``:

- ``{"method": "message/send", "message": "text"}``: an A2A agent's skill, a JSON-RPC 2.0
  ``message/send`` whose Message carries the input field ``text`` names as one text part
  (https://a2a-protocol.org/latest/specification/, the JSON-RPC binding);
- ``{"method": "tools/call", "tool": NAME}``: an MCP server's tool, a JSON-RPC 2.0
  ``tools/call`` of NAME with the input as its arguments, POSTed to the server's Streamable
  HTTP endpoint (https://modelcontextprotocol.io/specification, "Calling Tools");
- ``{"refuse": WHY}``: no single request (an MCP server itself is connected to by a client).
"""

from __future__ import annotations

import json
import uuid
from typing import Any

RPC_KEY = "x-jsonrpc"
JSON_RPC = {"Content-Type": "application/json"}
# Streamable HTTP: a client accepts both a JSON answer and an event stream
STREAMABLE = {**JSON_RPC, "Accept": "application/json, text/event-stream"}


class NotPlannable(ValueError):
    """This protocol entry is not one request; the message says why and what to do."""


def rpc_of(action: dict[str, Any]) -> dict[str, Any] | None:
    """The action's ``x-jsonrpc`` mark, or None for a plain HTTP action."""
    schema = given if isinstance(given := action.get("input_schema"), dict) else {}
    mark = schema.get(RPC_KEY)
    return mark if isinstance(mark, dict) else None


def rpc_request(
    mark: dict[str, Any], action: dict[str, Any], values: dict[str, Any]
) -> tuple[dict[str, str], str]:
    """(headers, body) of the JSON-RPC request ``mark`` describes; NotPlannable when the
    entry is not one request."""
    method = mark.get("method")
    if method == "message/send":
        text = values.get(str(mark.get("message", "message")))
        return dict(JSON_RPC), _rpc(method, {"message": _message(text)})
    if method == "tools/call" and isinstance(mark.get("tool"), str):
        return dict(STREAMABLE), _rpc(method, {"name": mark["tool"], "arguments": values})
    why = mark.get("refuse")
    why = why if isinstance(why, str) else "this entry's protocol call is not known"
    raise NotPlannable(f"{why} (at {action.get('endpoint')})")


def _message(text: Any) -> dict[str, Any]:
    """A user Message of one text part."""
    return {
        "kind": "message",
        "role": "user",
        "messageId": str(uuid.uuid4()),
        "parts": [{"kind": "text", "text": text if isinstance(text, str) else json.dumps(text)}],
    }


def _rpc(method: str, params: dict[str, Any]) -> str:
    request = {"jsonrpc": "2.0", "id": str(uuid.uuid4()), "method": method, "params": params}
    return json.dumps(request, ensure_ascii=False, separators=(",", ":"))
