"""How commands print: rich tables for people, exactly one JSON object for programs."""

from __future__ import annotations

import json
import sys
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from sqlalchemy import make_url

from registry.model.codes import counted
from registry.model.results import FindResponse, FindResult
from registry.model.urls import on_site

# Piped output gets 120 columns rather than rich's 80, so tables stay readable in logs.
out = Console(highlight=False, width=None if sys.stdout.isatty() else 120)
err = Console(stderr=True, highlight=False)


def plural(count: int, noun: str) -> str:
    """``1 result``, ``2 results``."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def info(message: str) -> None:
    err.print(message, soft_wrap=True)


def safe_url(url: str) -> str:
    return make_url(url).render_as_string(hide_password=True)


def summary(data: dict[str, Any], as_json: bool) -> None:
    """A crawl or ingest summary: per-site rows, then totals."""
    if as_json:
        print(json.dumps(data, sort_keys=True, default=str))
        return
    table = Table(title=f"{data.get('kind', 'crawl')} summary", title_justify="left")
    for col in ("site", "documents", "actions", "flows", "errors"):
        table.add_column(col, justify="left" if col in ("site", "errors") else "right")
    for row in data.get("per_site", []):
        errors = ", ".join(counted(row.get("errors") or [])) or "-"
        table.add_row(
            escape(row["host"]),
            str(row["documents"]),
            str(row["actions"]),
            str(row["flows"]),
            errors,
        )
    table.add_section()
    table.add_row(
        plural(data["sites"], "site"),
        str(data["documents"]),
        str(data["actions"]),
        str(data["flows"]),
        str(data["errors"]),
        style="bold",
    )
    out.print(table)
    for skipped in data.get("skipped", []):
        out.print(
            f"[bold]skipped[/bold] {escape(skipped['path'])}: {escape(skipped['reason'])}",
            soft_wrap=True,
        )
    for read in data.get("read_beside", []):
        out.print(
            f"read {escape(read['path'])} as {escape(read['url'])}, which "
            f"{escape(read['by'])} references",
            soft_wrap=True,
        )
    if data.get("replayed"):
        out.print(
            f"Stored from the spool (kept while the database was away): "
            f"{escape(', '.join(data['replayed']))}"
        )
    spooled = [r["host"] for r in data.get("per_site", []) if "store-unavailable" in r["errors"]]
    if spooled:
        out.print(
            f"[bold]Database unavailable:[/bold] {plural(len(spooled), 'site')} spooled under "
            "the data dir and will be stored by the next crawl."
        )


def results(response: FindResponse) -> None:
    """Search results as a readable table; with ``explain``, each score's parts below it."""
    if response.shortened:
        info(
            f"A long request: searched by its {len(response.shortened.terms)} rarest words "
            f"({', '.join(response.shortened.terms)}); {response.shortened.dropped} left out."
        )
    if response.sites is not None:
        _sites(response)
        return
    if not response.results:
        out.print(f"No actions found for {response.query!r} ({response.took_ms:.1f} ms).")
        return
    table = Table(
        title=f"{response.query!r}: {plural(len(response.results), 'result')} in "
        f"{response.took_ms:.1f} ms",
        title_justify="left",
    )
    for col in ("#", "site", "action", "effect", "needs", "how", "score"):
        table.add_column(col, overflow="fold", justify="right" if col == "score" else "left")
    for rank, r in enumerate(response.results, 1):
        table.add_row(
            str(rank),
            r.site,
            f"{escape(r.title)}\n[dim]{r.kind} {r.name}[/dim]",
            r.effect,
            escape(_needs(r)),
            escape(_how(r)),
            f"{r.score:.2f}",
        )
    out.print(table)
    for rank, r in enumerate(response.results, 1):
        if r.explain is not None:
            parts = ", ".join(f"{p.term} in {p.field} +{p.score:g}" for p in r.explain)
            out.print(f"{rank}. {escape(parts) or 'no part scored'}")


def _sites(response: FindResponse) -> None:
    """A ``group=site`` page: one row per site with its best actions."""
    if not response.sites:
        out.print(f"No site found for {response.query!r} ({response.took_ms:.1f} ms).")
        return
    table = Table(
        title=f"{response.query!r}: {plural(len(response.sites), 'site')} in "
        f"{response.took_ms:.1f} ms",
        title_justify="left",
    )
    for col in ("#", "site", "best actions", "score"):
        table.add_column(col, overflow="fold", justify="right" if col == "score" else "left")
    for rank, site in enumerate(response.sites, 1):
        actions = "\n".join(
            f"{escape(r.title)} [dim]{r.kind} {r.name}, {r.effect}[/dim]" for r in site.actions
        )
        table.add_row(str(rank), site.site, actions, f"{site.score:.2f}")
    out.print(table)


def _needs(r: FindResult) -> str:
    """What calling it takes: auth (and scope), and what it costs."""
    needs = [] if r.auth == "none" else [r.auth + (f" ({r.scope})" if r.scope else "")]
    if r.cost:
        needs.append(
            " ".join(str(r.cost.get(k, "")) for k in ("amount", "currency")).strip() or "costs"
        )
    return "\n".join(needs) or "-"


def _how(r: FindResult) -> str:
    """Steps for a flow, by their titles; method and path for an action (the site column has
    the host)."""
    if r.kind == "flow" and r.steps:
        return " -> ".join(step.title or step.action for step in r.steps)
    endpoint = on_site(r.endpoint or "", r.site)
    return f"{r.method or ''} {endpoint}".strip() or "-"


def is_tty() -> bool:
    return sys.stderr.isatty()
