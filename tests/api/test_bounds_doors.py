"""REST and MCP hold an id and a host to the same bounds (registry.model.bounds): what one door
refuses the other refuses, in the same words, and what one takes the other takes. The store is
away, so a value past the checks is a 503 on REST and "unavailable" on MCP (or, for a name
that can be no host, no site at either door): only the checks decide."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import pytest
from fastapi.testclient import TestClient
from mcp import Client
from sqlalchemy import Engine

from api.app import create_app
from api.mcp.server import build_server
from registry.config import Settings
from registry.db.engine import make_engine
from registry.index import ActionIndex
from registry.model.bounds import ID_CHARS, MAX_SITE_CHARS
from tests.helpers.api import error

AWAY = "postgresql://nobody@127.0.0.1:1/none"
ID = "0123456789abcdef01234567"
# (MCP tool, its argument, the REST method and path, the REST parameter)
DOORS = [
    ("get_action", "id", "GET", "/actions/{}", "id"),
    ("prepare_call", "action_id", "POST", "/actions/{}/prepare", "id"),
    ("get_site", "host", "GET", "/sites/{}", "host"),
]
REFUSED = {
    "id": ["0" * (ID_CHARS + 1), "0" * (ID_CHARS - 1), "nope", ID.upper(), "x" * 101],
    "host": ["h" * (MAX_SITE_CHARS + 1)],
}
TAKEN = {"id": [ID], "host": ["h" * MAX_SITE_CHARS, "shop.example"]}


@dataclass
class Away:
    index: ActionIndex
    engine: Engine
    search_threads: anyio.CapacityLimiter


def _mcp(tmp_path: Path, calls: list[tuple[str, dict[str, Any]]]) -> list[tuple[bool, str]]:
    engine = make_engine(Settings(data_dir=tmp_path, database_url=AWAY))
    answers = []

    async def body() -> None:
        backing = Away(ActionIndex.open(tmp_path / "index"), engine, anyio.CapacityLimiter(1))
        async with Client(build_server(lambda: backing)) as client:
            for tool, arguments in calls:
                result = await client.call_tool(tool, arguments)
                text = "".join(getattr(part, "text", "") for part in result.content)
                answers.append((result.is_error, text))

    anyio.run(body)
    engine.dispose()
    return answers


@pytest.fixture(scope="module")
def rest(tmp_path_factory: pytest.TempPathFactory) -> Any:
    settings = Settings(data_dir=tmp_path_factory.mktemp("rest"), rate_limit=0, database_url=AWAY)
    with TestClient(create_app(settings), raise_server_exceptions=False) as client:
        yield client


def _rest(client: TestClient, method: str, path: str, value: str) -> Any:
    url = path.format(value)
    return client.post(url, json={"input": {}}) if method == "POST" else client.get(url)


@pytest.mark.parametrize(("tool", "argument", "method", "path", "parameter"), DOORS)
def test_both_doors_refuse_the_same_values(
    rest: TestClient,
    tmp_path: Path,
    tool: str,
    argument: str,
    method: str,
    path: str,
    parameter: str,
) -> None:
    kind = "host" if parameter == "host" else "id"
    values = REFUSED[kind] + TAKEN[kind]
    by_mcp = _mcp(
        tmp_path,
        [
            (tool, {argument: value, **({"input": {}} if tool == "prepare_call" else {})})
            for value in values
        ],
    )
    for value, (is_error, text) in zip(values, by_mcp, strict=True):
        response = _rest(rest, method, path, value)
        if value in TAKEN[kind]:  # past the checks: looked up (503), or no site by that name
            assert response.status_code in (404, 503), (path, value)
            assert is_error and ("unavailable" in text) == (response.status_code == 503), text
            continue
        assert response.status_code == 422, (path, value)
        problem = error(response)
        assert problem["field"] == parameter, (path, value)
        # The same check said the same thing at both doors (pydantic's words for it).
        assert is_error and problem["message"].split(": ")[-1] in text, (tool, value, text)
