"""The Registry API's request and response bodies (ard.openapi.yaml), bounded: each bound is
stated here once, so the OpenAPI document shows what the code checks and a body within them
is never refused. Entries are open objects (additional terms are the extension mechanism)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StringConstraints

from registry.ard.match import MAX_KEY_CHARS, MAX_KEYS, MAX_VALUE_CHARS, MAX_VALUES
from registry.model.schemas import StrictModel
from registry.search.contract import MAX_QUERY_CHARS, QUERY_PATTERN, _query

PAGE_SIZE, MAX_PAGE_SIZE, LIST_PAGE_SIZE = 10, 100, 20
MAX_FACETS, FACET_LIMIT, MAX_FACET_LIMIT = 10, 20, 100
TOKEN_PATTERN = r"^[0-9]{1,6}$"  # the position of the next page; opaque to clients
IDENTIFIER_PATTERN = r"^urn:air:[a-zA-Z0-9.-]+(:[a-zA-Z0-9._-]+)+$"

Key = Annotated[str, StringConstraints(min_length=1, max_length=MAX_KEY_CHARS)]
Value = Annotated[str, StringConstraints(max_length=MAX_VALUE_CHARS)]
Values = Value | Annotated[list[Value], Field(max_length=MAX_VALUES)]
Text = Annotated[
    str,
    Field(
        description=f"What the client needs, in plain words: at most {MAX_QUERY_CHARS} characters",
        json_schema_extra={"minLength": 1, "maxLength": MAX_QUERY_CHARS, "pattern": QUERY_PATTERN},
    ),
    AfterValidator(_query),
]
Token = Annotated[
    str, Field(pattern=TOKEN_PATTERN, description=("The `pageToken` of the previous page"))
]


class _Body(StrictModel):
    model_config = ConfigDict(populate_by_name=True)


class Query(_Body):
    context: str | dict[str, Any] | list[Any] | None = Field(
        None,
        alias="@context",
        description="Binds the prefixes used in filter keys "
        "(layered on the ARD base context and the `actiondex:` prefix)",
    )
    text: Text | None = None
    filter: dict[Key, Values] | None = Field(
        None,
        max_length=MAX_KEYS,
        description=(
            "Term path -> a value or a list of values: OR within a key, AND across keys. Our "
            "terms: `effect`, `method`, `format`, `site`, `auth` (or `actiondex:...`); also "
            "`type`, `publisher`, any term an entry carries and dot-paths below it"
        ),
    )


class SearchQuery(Query):
    text: Text


class SearchRequest(_Body):
    query: SearchQuery
    federation: Literal["auto", "referrals", "none"] = Field(
        "auto",
        description=(
            "Accepted; this registry federates with no other, so every mode searches its own "
            "index (`referrals` answers an empty list)"
        ),
    )
    pageSize: int = Field(PAGE_SIZE, ge=1, le=MAX_PAGE_SIZE)
    pageToken: Token | None = None


class FacetRequest(_Body):
    field: Key = Field(
        description="Term path to count: `type`, `publisher`, `effect`, "
        "`format` or any other filter key"
    )
    limit: int = Field(FACET_LIMIT, ge=1, le=MAX_FACET_LIMIT)
    minCount: int = Field(1, ge=1, le=1_000_000)


class ResultType(_Body):
    facets: list[FacetRequest] = Field(min_length=1, max_length=MAX_FACETS)


class ExploreRequest(_Body):
    query: Query | None = None
    resultType: ResultType


class Entry(BaseModel):
    """An ARD entry: a JSON-LD node; terms beyond these are kept as written."""

    model_config = ConfigDict(extra="allow")
    identifier: str
    displayName: str | None = None
    type: str | None = None
    url: str | None = None


class Result(Entry):
    score: int = Field(ge=0, le=100, description="Relevance 0-100, by rank; not trust")
    source: str = Field(description="This registry's ARD base URL")


class SearchResponse(BaseModel):
    results: list[Result]
    referrals: list[Entry] | None = None
    pageToken: str | None = None


class Bucket(BaseModel):
    value: str
    count: int


class FacetResult(BaseModel):
    buckets: list[Bucket]
    otherCount: int | None = None


class ExploreResponse(BaseModel):
    resultType: Literal["facets"]
    facets: dict[str, FacetResult]


class ListResponse(BaseModel):
    items: list[Entry]
    total: int | None = None
    pageToken: str | None = None


class ArdError(BaseModel):
    """Every error under /ard (ARD Appendix B)."""

    errorCode: str = Field(
        description="INVALID_ARGUMENT, NOT_FOUND, RATE_LIMIT_EXCEEDED, INTERNAL_ERROR..."
    )
    message: str
