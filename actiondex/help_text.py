"""How `actiondex ... --help` reads: paragraphs as the terminal wraps them (a docstring's own
line breaks are the source's, not the reader's), and value placeholders people know (TEXT,
INTEGER, PATH) instead of Python types; a flag takes no value, so it shows none."""

from __future__ import annotations

import inspect
import re
from typing import Any

import typer
from typer.core import TyperArgument, TyperOption

# Typer's type labels, as click names them
_LABELS = {"str": "TEXT", "int": "INTEGER", "float": "NUMBER", "path": "PATH", "bool": "BOOLEAN"}
_LABEL = re.compile(r"^<(?:list\[)?(\w+)\]?( range)?>$")


def unwrapped(doc: str | None) -> str | None:
    """A docstring with each paragraph on one line, paragraphs kept apart."""
    if not doc:
        return doc
    paragraphs = inspect.cleandoc(doc).split("\n\n")
    return "\n\n".join(" ".join(p.split()) for p in paragraphs)


def readable_type(param: Any, ctx: Any, shown: str | None) -> str | None:
    """What the help shows in the type column: nothing for a flag, a name for a value."""
    if isinstance(param, TyperOption) and param.is_flag:
        return None
    if param.metavar is not None or shown is None:
        return shown
    match = _LABEL.match(shown.removesuffix("..."))
    if match is None:
        return shown
    return _LABELS.get(match.group(1), match.group(1).upper()) + (
        "..." if shown.endswith("...") else ""
    )


def install(app: typer.Typer) -> None:
    """Unwrap every command's help and show readable types (typer's display hook)."""
    for typer_app in (app, *(group.typer_instance for group in app.registered_groups)):
        if typer_app is None:
            continue
        for info in typer_app.registered_commands:
            if info.help is None and info.callback is not None:
                info.help = unwrapped(info.callback.__doc__)
    for kind in (TyperOption, TyperArgument):
        original = kind.display_type_rich

        def display(self: Any, ctx: Any, _original: Any = original) -> str | None:
            return readable_type(self, ctx, _original(self, ctx))

        kind.display_type_rich = display  # type: ignore[method-assign]
