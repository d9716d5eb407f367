"""The one query contract: ``FindQuery`` holds every bound and filter of a search.

GET /find takes it as its query parameters, `actiondex find` builds it from its options, and
``registry.search.search`` takes nothing else, so a bound is written here once and the
OpenAPI schema (minLength, maxLength, pattern, enum) is generated from the same fields that
check it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, WithJsonSchema

from registry.formats import FORMATS
from registry.index.text import MAX_TERMS, type_base
from registry.model.action_types import SCHEMA_ACTIONS
from registry.model.bounds import HOST_PATTERN
from registry.model.schemas import Auth, Effect
from registry.model.urls import HTTP_METHODS

# Agents ask in sentences, and an LLM's can be long: MetaTool's LLM-written requests reach
# 1,089 characters (55 of 20,544 are over 512, 3 over 1,024). No request is refused for its
# words: one of more than MAX_TERMS is searched by its rarest (registry.search.terms). The
# bound is what a GET carries well: English at the bound is about 1.2 KB of URL; the worst case
# (four UTF-8 bytes a character, percent-encoded) is 12 KiB, which `actiondex serve` takes
# (tests/api/test_find_long.py), though a proxy with nginx's default 8 KiB request line
# would need more room for a non-Latin request that long.
MAX_QUERY_CHARS = 1024
LIMIT, MAX_LIMIT, MAX_OFFSET = 10, 50, 200
PER_SITE, MAX_PER_SITE = 3, 50  # results per site on one page; more go to later pages
MAX_VALUES = 20  # values of one filter: each is another clause of the query
# Whitespace spelled out: a JSON Schema pattern is an ECMA-262 regex, whose ``\s`` is not
# Python's (``\x1c`` is space to one, ``\ufeff`` to the other). These six characters mean
# the same to both, so the published pattern and this check agree on every string.
SPACE = " \t\n\r\f\v"
# Something besides those six: ``[\s\S]`` is any character to both engines.
QUERY_PATTERN = r"^[ \t\n\r\f\v]*[^ \t\n\r\f\v][\s\S]*$"
TOKEN_PATTERN = r"^[A-Za-z0-9:/._#-]{1,100}$"
Origin = Literal["same", "cross", "any"]
Group = Literal["action", "site"]


def _matching(pattern: str, message: str) -> AfterValidator:
    compiled = re.compile(pattern)

    def check(value: str) -> str:
        if not compiled.fullmatch(value):
            raise ValueError(message)
        return value

    return AfterValidator(check)


def _query(q: str) -> str:
    if not q.strip(SPACE):
        raise ValueError("must not be empty")
    if len(q) > MAX_QUERY_CHARS:
        raise ValueError(f"must be at most {MAX_QUERY_CHARS} characters (it has {len(q)})")
    return q.strip(SPACE)


# The pattern is checked by the validator (a readable message); the schema only shows it.
Host = Annotated[
    str,
    Field(json_schema_extra={"pattern": HOST_PATTERN}),
    _matching(
        HOST_PATTERN, "must be a host or domain such as shop.example (with :port if not default)"
    ),
    AfterValidator(str.lower),
]
Token = Annotated[
    str,
    Field(json_schema_extra={"pattern": TOKEN_PATTERN}),
    _matching(TOKEN_PATTERN, "must be a short name such as SearchAction, openapi or POST"),
]


def _known(what: str, known: Iterable[str], spelled: Callable[[str], str]) -> AfterValidator:
    """Refuses a value whose ``spelled`` form is none of ``known``'s, listing them: a filter
    on a value no action can have would answer 0 results and say nothing."""
    names = sorted(known)
    wanted = {spelled(name) for name in names}

    def check(value: str) -> str:
        if spelled(value) not in wanted:
            shown = ", ".join(names)
            raise ValueError(f"{value[:100]!r} is no {what}; known: {shown}")
        return value

    return AfterValidator(check)


FORMAT_NAMES = sorted(module.NAME for module in FORMATS)
METHOD_NAMES = sorted(HTTP_METHODS)
TYPE_NAMES = sorted(f"{base}Action" for base in SCHEMA_ACTIONS)
# The schema lists the values as the check takes them: formats exactly, methods in either case,
# types by their Schema.org name (the check also takes https://schema.org/BuyAction and Buy).
FormatName = Annotated[
    Token,
    Field(json_schema_extra={"enum": FORMAT_NAMES}),
    _known("format", FORMAT_NAMES, str),
]
MethodName = Annotated[
    Token,
    Field(json_schema_extra={"enum": METHOD_NAMES + [m.lower() for m in METHOD_NAMES]}),
    _known("HTTP method", METHOD_NAMES, str.upper),
]
TypeName = Annotated[
    Token,
    Field(json_schema_extra={"enum": TYPE_NAMES}),
    _known("Schema.org Action type", TYPE_NAMES, lambda t: type_base(t).lower()),
]


def _values(description: str) -> Any:
    return Field(default_factory=list, max_length=MAX_VALUES, description=description)


class FindQuery(BaseModel):
    """One search: what to find, which page, and the filters (OR'ed within one, AND'ed across)."""

    model_config = ConfigDict(frozen=True)

    q: Annotated[
        str,
        Field(
            description=f"What the agent wants to do, in its own words: at most {MAX_QUERY_CHARS} "
            f"characters. A request of more than {MAX_TERMS} words is searched by its "
            f"{MAX_TERMS} rarest in the index (the response's `shortened` says which)",
            json_schema_extra={
                "minLength": 1,
                "maxLength": MAX_QUERY_CHARS,
                "pattern": QUERY_PATTERN,
            },
        ),
        AfterValidator(_query),
    ]
    limit: int = Field(LIMIT, ge=1, le=MAX_LIMIT, description="Results on the page")
    offset: int = Field(0, ge=0, le=MAX_OFFSET, description="Results skipped (later pages)")
    effect: list[Effect] = _values("What the action does; repeatable")
    type: list[TypeName] = _values("Schema.org Action type, e.g. SearchAction; repeatable")
    site: list[Host] = _values("Host or parent domain, e.g. shop.example; repeatable")
    format: list[FormatName] = _values("Source format, e.g. agent-actions; repeatable")
    method: list[MethodName] = _values("HTTP method, e.g. POST; repeatable")
    auth: list[Auth] = _values("What calling it needs; repeatable")
    origin: Origin = Field(
        "any",
        description=(
            "Whose endpoints: `any` (default) both, a same-origin action first at equal "
            "relevance; `same` only those on the site or a subdomain of it (the strict view); "
            "`cross` only those on another host. Each result says its `origin` and whether "
            "that was `verified`"
        ),
    )
    # A boolean in the schema: absent is the only "null" a query string can say.
    same_origin: Annotated[bool | None, WithJsonSchema({"type": "boolean"})] = Field(
        None,
        deprecated="use origin",
        description=(
            "Old form of `origin`, used only when `origin` is absent: true = `same`, "
            "false = `cross`"
        ),
    )
    live: bool = Field(
        False,
        description="Only actions whose endpoint answered its last liveness probe (MCP "
        "servers, A2A agents, ARD registries); plain HTTP actions are never probed",
    )
    explain: bool = Field(False, description="Add each result's score breakdown")
    per_site: int = Field(
        PER_SITE,
        ge=1,
        le=MAX_PER_SITE,
        description="Results per site on one page (a site filter lifts it)",
    )
    group: Group = Field(
        "action",
        description=(
            "`action` (default): `results`, one per action or flow; `site`: `sites`, one per site "
            "(best first) with its best `per_site` actions; `limit` and `offset` then count sites"
        ),
    )

    @property
    def origins(self) -> Origin:
        """``origin``, or what the deprecated ``same_origin`` asked for in its place."""
        # Read past the attribute: pydantic warns on every read of a deprecated field.
        same_origin = self.__dict__["same_origin"]
        if same_origin is None or "origin" in self.model_fields_set:
            return self.origin
        return "same" if same_origin else "cross"


def first_problem(errors: list[Any]) -> tuple[str, str]:
    """(field, message) of the first of a ValidationError's ``errors()``."""
    first = errors[0] if errors else {}
    loc = [str(part) for part in first.get("loc", ()) if not isinstance(part, int)]
    message = str(first.get("msg", "invalid value")).removeprefix("Value error, ")
    return (loc[-1] if loc else "query"), message
