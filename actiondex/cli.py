"""The ``actiondex`` command: the app, its global options and how failures are printed.

The commands themselves are in actiondex/commands/, one module each.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Annotated

import typer
from sqlalchemy.exc import OperationalError

from actiondex import help_text
from actiondex.commands import COMMANDS, GROUPS
from actiondex.runtime import UserError
from registry.config import get_settings
from registry.db.engine import first_line
from registry.store.crawl_state import CrawlAborted

ABORTED_EXIT = 143  # 128 + SIGTERM, as a shell reports a process the signal ended

app = typer.Typer(
    help="actiondex: an open registry of the actions websites offer to AI agents.\n\n"
    "Crawl sites, normalise what they publish into one action model, and find actions "
    "with BM25 search from the command line or over HTTP.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
for command in COMMANDS:
    app.command()(command)
for group in GROUPS:
    app.add_typer(group)
help_text.install(app)


@app.callback()
def _global(
    data_dir: Annotated[
        Path | None,
        typer.Option(
            "--data-dir",
            envvar="ACTIONDEX_DATA_DIR",
            help="Where the embedded database and the index live [default: .actiondex]",
        ),
    ] = None,
) -> None:
    if data_dir is not None:
        _check_data_dir(data_dir)
        os.environ["ACTIONDEX_DATA_DIR"] = str(data_dir)
    get_settings.cache_clear()


def _check_data_dir(data_dir: Path) -> None:
    """A data dir must be a folder, or creatable as one: say so before any command runs."""
    existing = next((p for p in (data_dir, *data_dir.parents) if p.exists()), None)
    if existing is not None and not existing.is_dir():
        where = "is a file" if existing == data_dir else f"is inside the file {existing}"
        raise UserError(f"--data-dir {data_dir}: {where}, not a folder")


def main(args: list[str] | None = None) -> None:
    """Entry point: every failure is one line on stderr (with ``--json``: one JSON error
    object on stdout), never a traceback. Exit 2 for bad input, 1 for anything else."""
    args = (sys.argv[1:] if args is None else args) or ["--help"]
    try:
        code = app(args=args, prog_name="actiondex", standalone_mode=False)
    except typer.TyperException as exc:  # a bad option or argument, as typer's click found it
        code = _fail(args, "bad-input", _usage_message(exc), 2)
    except UserError as exc:
        code = _fail(args, exc.code, str(exc), 2)
    except OperationalError as exc:  # the database server is down or refuses us
        code = _fail(
            args, "database-unavailable", f"cannot reach the database: {first_line(exc)}", 2
        )
    except CrawlAborted as exc:  # SIGTERM or SIGINT stopped a crawl; its run says so
        code = _fail(
            args, "aborted", f"{exc} (stopped by a signal); what it stored is kept", ABORTED_EXIT
        )
    except OSError as exc:  # a path the user gave (or configured) cannot be used
        if exc.filename is None:
            code = _internal(args, exc)
        else:
            reason = exc.strerror or first_line(exc)
            code = _fail(args, "bad-path", f"cannot use {exc.filename}: {reason}", 2)
    except (KeyboardInterrupt, typer.Abort):
        code = 130
    except Exception as exc:  # last resort: say what happened in one line
        code = _internal(args, exc)
    sys.exit(code or 0)


def _internal(args: list[str], exc: Exception) -> int:
    """An unexpected failure: one line, exit 1 (the traceback with ACTIONDEX_DEBUG set)."""
    if os.environ.get("ACTIONDEX_DEBUG"):
        raise exc
    message = f"{type(exc).__name__}: {first_line(exc)} (set ACTIONDEX_DEBUG=1 for the traceback)"
    return _fail(args, "internal-error", message, 1)


def _fail(args: list[str], code: str, message: str, status: int) -> int:
    """Say what went wrong: a JSON object when the command was asked for JSON."""
    options = args[: args.index("--")] if "--" in args else args
    if "--json" in options:
        print(json.dumps({"error": {"code": code, "message": message}}))
    else:
        print(f"actiondex: error: {message}", file=sys.stderr)
    return status


def _usage_message(exc: typer.TyperException) -> str:
    """click's message in one line, with where to read more."""
    message = " ".join(exc.format_message().split())
    context = getattr(exc, "ctx", None)
    where = f" (see `{context.command_path} --help`)" if context is not None else ""
    return message + where
