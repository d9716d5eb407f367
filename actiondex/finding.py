"""`actiondex find`: the options become a FindQuery, the same contract GET /find checks."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from pydantic import ValidationError

from actiondex import output
from actiondex.runtime import UserError, empty_index_note, open_index, open_store
from registry.config import Settings
from registry.search import FindQuery, find, first_problem


def query_of(q: str, options: dict[str, Any]) -> FindQuery:
    """``options`` by FindQuery's field names (None: not given); a bad one is a UserError
    naming its option, as GET /find names its parameter (exit 2, one line)."""
    given = {name: value for name, value in options.items() if value is not None}
    try:
        return FindQuery(q=q, **given)
    except ValidationError as exc:
        name, message = first_problem(exc.errors())
        option = "the query" if name == "q" else "--" + name.replace("_", "-")
        raise UserError(f"{option}: {message}") from exc


def run(q: str, options: dict[str, Any], settings: Callable[[], Settings], as_json: bool) -> None:
    query = query_of(q, options)  # before the store is opened: bad input costs nothing
    config = settings()
    index = open_index(config, open_store(config), searching=True)
    if note := empty_index_note(config, index):
        output.info(note)
    response = find(index, query)
    if as_json:
        print(json.dumps(response.public()))
    else:
        output.results(response)
