"""MCP: the registry's tools for agents, on the official MCP SDK (``mcp`` 2.x).

``server.build_server`` makes the tools (``find_action``, ``get_action``, ``get_site``,
``prepare_call``: read-only, each with an input and an output schema); ``http`` serves them
at ``/mcp`` inside the FastAPI app (Streamable HTTP, the SDK's session manager in the app's
lifespan, its Host and Origin guard from Settings); `actiondex mcp` serves the same tools
over stdio (actiondex.serving). Every tool answers from the store and the index the HTTP
API reads, through the same functions, with the same bounds.

The SDK (about 27 MB of resident memory and 1.5 s of imports) is loaded only where MCP is
served: ``http`` imports it on the first request to ``/mcp``, so a server nobody asks over
MCP never pays for it. Import ``api.mcp.server`` for the tools themselves.
"""
