"""Options several commands share, and the settings every command reads."""

from __future__ import annotations

from typing import Annotated

import typer
from pydantic import ValidationError

from actiondex.runtime import UserError
from registry.config import Settings, get_settings

JsonOpt = Annotated[bool, typer.Option("--json", help="Print exactly one JSON object.")]
ResolveOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--resolve",
        metavar="HOST:PORT:ADDR",
        help="Connect to HOST:PORT at ADDR, and allow exactly that host and port even "
        "where ADDR is private (like curl --resolve). Repeatable; adds to "
        "ACTIONDEX_RESOLVE.",
    ),
]
PrivateOpt = Annotated[
    bool | None,
    typer.Option(
        "--allow-private/--no-allow-private",
        help="Allow private, loopback and other non-public addresses "
        "(for private deployments only). Default: "
        "ACTIONDEX_ALLOW_PRIVATE, else no.",
        show_default=False,
    ),
]


def load_settings() -> Settings:
    """The Settings of this run; a bad ACTIONDEX_ variable is one line naming it."""
    try:
        return get_settings()
    except ValidationError as exc:
        first = exc.errors()[0]
        field = "ACTIONDEX_" + str(first["loc"][0]).upper() if first["loc"] else "settings"
        message = str(first["msg"]).removeprefix("Value error, ")
        raise UserError(f"bad configuration: {field}: {message}") from exc
