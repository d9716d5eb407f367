"""The MCP tools. Each one's docstring is the description an agent reads; its parameters and
return type are its input and output schema (the SDK derives both)."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Annotated, Any, Protocol

import anyio.to_thread
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field, ValidationError, WithJsonSchema
from pydantic.fields import FieldInfo
from sqlalchemy import Engine

from api import threaded
from api.mcp.answers import ActionDetail, FoundActions, PreparedCall, SiteDetail, found
from registry.calls.prepare import PrepareError, prepare_call
from registry.db.engine import DB_AWAY
from registry.index import ActionIndex
from registry.model.bounds import Id, SiteName
from registry.model.tool_shapes import AS_DESCRIPTION
from registry.model.tooldefs import SHAPES
from registry.search import FindQuery, find, first_problem
from registry.search.contract import LIMIT, PER_SITE
from registry.store import lookup

EFFECTS = (
    "Each action's `effect` says what calling it does: `read` only looks something up; "
    "`write` changes something of the person's that can be changed back (a cart, a draft, a "
    "setting); `send` sends a message or shares something in the person's name; `spend` pays "
    "or commits money (buy, order, book, donate); `delete` removes something. "
    "`needs_approval` is true for send, spend and delete: ask your person before calling "
    "those. "
    "Each action's `origin` says whose endpoint it is: `same`, on the site or a subdomain of "
    "it; `cross`, on another host (a site's API on a partner's servers, say). `verified` says "
    "that host is known to be the site's: the same registrable domain, or it publishes a "
    "document (an ARD catalog, an agent card, an OpenAPI servers entry, an API catalog link) "
    "naming the site. `needs_approval` is also true for an endpoint that is not https or on "
    "an unverified other domain: what you send there leaves the site."
)
_FIND = FindQuery.model_json_schema()["properties"]
AS_SCHEMA = {"enum": [*SHAPES, None], "default": None, "description": AS_DESCRIPTION}


def like(field: str) -> WithJsonSchema:
    """The JSON Schema GET /find publishes for its parameter ``field``: the tool shows the
    same bounds, and FindQuery checks them, so a bad value is refused in /find's words."""
    schema = {key: value for key, value in _FIND[field].items() if key != "title"}
    return WithJsonSchema(schema)


class Backing(Protocol):
    """What the tools read: the app's state over HTTP, the command's over stdio."""

    index: ActionIndex
    engine: Engine
    search_threads: anyio.CapacityLimiter


ActionId = Annotated[
    Id, Field(description=("The `id` of an action or a flow, as find_action gives it"))
]
Host = Annotated[SiteName, Field(description=("The site's host (shop.example), or its URL"))]
Input = Annotated[
    dict[str, Any],
    Field(
        default_factory=dict,
        description=("The arguments, as the action's input_schema describes them"),
    ),
]


def _listed(value: Any) -> Any:
    # One value where a list is wanted: an agent writing effect="spend" means ["spend"].
    return [value] if isinstance(value, str) else value


def find_query(arguments: dict[str, Any]) -> FindQuery:
    """find_action's arguments as the FindQuery GET /find builds; a bad one is a ToolError
    with the message /find gives, naming the argument."""
    try:
        return FindQuery(**arguments)
    except ValidationError as exc:
        name, message = first_problem(exc.errors())
        raise ToolError(f"{'query' if name == 'q' else name}: {message}") from exc


def aliased(method: Callable[..., Any]) -> Callable[..., Any]:
    """``method`` with its parameters named as their aliases say (``as_`` is ``as``): the SDK
    calls a tool with its arguments by their published names, and ``as`` is a keyword."""
    signature = inspect.signature(method, eval_str=True)
    names = {
        alias: name
        for name, parameter in signature.parameters.items()
        for alias in [_alias(parameter.annotation)]
        if alias
    }

    @functools.wraps(method)
    async def call(**arguments: Any) -> Any:
        return await method(**{names.get(key, key): value for key, value in arguments.items()})

    call.__signature__ = signature  # type: ignore[attr-defined]
    return call


def _alias(annotation: Any) -> str | None:
    fields = [m for m in getattr(annotation, "__metadata__", ()) if isinstance(m, FieldInfo)]
    return next((field.alias for field in fields if field.alias), None)


class Tools:
    def __init__(self, backing: Callable[[], Backing]) -> None:
        self._backing = backing

    async def find_action(
        self,
        query: Annotated[str, like("q")],
        effect: Annotated[Any, like("effect")] = (),
        site: Annotated[Any, like("site")] = (),
        type: Annotated[Any, like("type")] = (),
        format: Annotated[Any, like("format")] = (),
        method: Annotated[Any, like("method")] = (),
        auth: Annotated[Any, like("auth")] = (),
        origin: Annotated[Any, like("origin")] = "any",
        limit: Annotated[Any, like("limit")] = LIMIT,
        offset: Annotated[Any, like("offset")] = 0,
        per_site: Annotated[Any, like("per_site")] = PER_SITE,
        explain: Annotated[Any, like("explain")] = False,
        group: Annotated[Any, like("group")] = "action",
        live: Annotated[Any, like("live")] = False,
        as_: Annotated[Any, Field(alias="as", json_schema_extra=AS_SCHEMA)] = None,
    ) -> FoundActions:
        """Find the actions websites offer agents for what your person wants done ("buy
        printer paper", "book a table for two tonight"), best first: which site offers it,
        how to call it (method, endpoint, input schema), what calling it needs (auth, scope)
        and costs (cost). Flows (several actions in order) list their steps. Filter by effect
        to see only what is safe to call unasked; group="site" to see which sites can do
        it (one entry per site with its best actions). Actions whose endpoint is on another
        host than their site come too, marked `origin: cross` and `verified` or not (a
        same-origin action first at equal relevance); origin="same" leaves them out. Say it
        in your own words, at any
        length up to the bound: a long request is searched by its rarest words (`shortened`
        says which). With as="openai", "anthropic" or "mcp", `tools` holds the results as tool
        definitions in that shape, to load as they are, and `ids` each tool's action id.
        Nothing is called or sent.
        """
        if as_ is not None and as_ not in SHAPES:
            raise ToolError(f"as: must be one of {', '.join(SHAPES)}")
        query_ = find_query(
            {
                "q": query,
                "effect": _listed(effect),
                "site": _listed(site),
                "type": _listed(type),
                "format": _listed(format),
                "method": _listed(method),
                "auth": _listed(auth),
                "origin": origin,
                "limit": limit,
                "offset": offset,
                "per_site": per_site,
                "explain": explain,
                "group": group,
                "live": live,
            }
        )
        backing = self._backing()
        # Off the event loop, in the app's search threads (api/routes/find.py says why).
        run = functools.partial(find, backing.index, query_)
        return found(await anyio.to_thread.run_sync(run, limiter=backing.search_threads), as_)

    async def get_action(self, id: ActionId) -> ActionDetail:
        """One action or flow in full, by the `id` find_action gave: how to call it (method,
        endpoint, input and output schema), what it does and needs, where it was read; a
        flow's steps each with its action.
        """
        detail = await self._read(_action_or_flow, id)
        if detail is None:
            raise ToolError(f"no action or flow has the id {id!r}: ids come from find_action")
        return ActionDetail.model_validate(detail)

    async def get_site(self, host: Host) -> SiteDetail:
        """One site: what it is, every action and flow it offers (each `id` for get_action),
        the documents they were read from with their diagnostics, and its last crawl.
        """
        site = await self._read(lookup.site_detail, host)
        if site is None:
            raise ToolError(f"the registry knows no site {host!r}")
        return SiteDetail.model_validate(site)

    async def prepare_call(self, action_id: ActionId, input: Input) -> PreparedCall:
        """Plan a call, never make it: the exact HTTP request (method, url, headers, body)
        that calls the action `action_id` with `input`, after checking `input` against the
        action's input schema (every problem listed, with its JSON path). Says whether the
        call needs your person's approval and why (`approval_reasons`: a spend, send or
        delete; an endpoint that is not https; an endpoint on another domain not verified to
        be the site's) and what it costs. Nothing is sent: making the
        request is yours to do.
        """
        action = await self._read(lookup.action_detail, action_id)
        if action is None:
            flow = await self._read(lookup.flow_detail, action_id)
            raise ToolError(
                f"{action_id!r} is a flow: prepare each step's action in turn"
                if flow
                else f"no action has the id {action_id!r}: ids come from find_action"
            )
        try:  # off the event loop, as the REST route does it
            planned = await anyio.to_thread.run_sync(functools.partial(prepare_call, action, input))
            return PreparedCall.model_validate(planned)
        except PrepareError as exc:
            problems = "; ".join(f"{p['path']}: {p['message']}" for p in exc.problems)
            raise ToolError(f"{exc.code}: {problems}") from exc

    async def _read(self, lookup_: Callable[..., Any], *args: Any) -> Any:
        """A lookup in a read-only session, in a worker thread (the database blocks)."""
        try:
            return await threaded.read(self._backing().engine, lookup_, *args)
        except DB_AWAY as exc:  # the agent may retry; a bug would still be a crash
            raise ToolError("the registry's database is unavailable: try again shortly") from exc


def _action_or_flow(session: Any, id_: str) -> dict[str, Any] | None:
    return lookup.action_detail(session, id_) or lookup.flow_detail(session, id_)
