"""How `actiondex validate` reads to a site owner: what agents see, then what to fix."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from typing import Any

from rich.markup import escape
from rich.status import Status
from rich.table import Table

from actiondex.output import err, out
from registry.model.schemas import Action, Diagnostic, Flow
from registry.model.urls import on_site
from registry.validate import UNKNOWN_SITE, SiteReport, ValidationReport

EFFECT_STYLE = {
    "read": "green",
    "write": "yellow",
    "send": "cyan",
    "spend": "magenta",
    "delete": "red",
}
# severity, noun, colour, mark
SEVERITIES = (
    ("error", "error", "red", "✗"),
    ("warning", "warning", "yellow", "!"),
    ("info", "note", "blue", "i"),
)
MAX_FIELDS = 8


@contextmanager
def progress(message: str, quiet: bool) -> Iterator[Any]:
    """A spinner on stderr while fetching (none for --json or when piped)."""
    status = nullcontext() if quiet or not err.is_terminal else Status(message, console=err)
    with status as shown:
        yield shown


def render(report: ValidationReport | SiteReport, source: str | None = None) -> None:
    """The report for people; ``source`` names the local file it was read from."""
    if isinstance(report, SiteReport):
        out.print(
            f"[bold]{escape(report.site)}[/bold]: what agents will see, document by document\n"
        )
        for document in report.documents:
            render_document(document)
        _verdict([d for doc in report.documents for d in doc.diagnostics])
        return
    render_document(report, source)
    _verdict(report.diagnostics)


def render_document(report: ValidationReport, source: str | None = None) -> None:
    if not report.ok:
        mark = "[red]✗[/red]"
    elif report.actions or report.flows:
        mark = "[green]✓[/green]"
    else:
        mark = "[yellow]![/yellow]"  # nothing wrong, but nothing for agents either
    label = "not read" if report.format == "unknown" else report.format
    where = escape(source or report.url)
    if source and report.site != UNKNOWN_SITE:
        where += f" [dim](as {escape(report.url)})[/dim]"
    out.print(f"{mark} [bold]{escape(label)}[/bold]  {where}", soft_wrap=True)
    out.print(f"  {_counts(report)}", style="dim")
    if report.actions:
        out.print(_actions_table(report))
    if report.flows:
        out.print("  [bold]Flows[/bold]")
        for flow in report.flows:
            _print_flow(flow)
    _print_diagnostics(report.diagnostics)
    out.print()


def _counts(report: ValidationReport) -> str:
    parts = [_plural(len(report.actions), "action"), _plural(len(report.flows), "flow")]
    for severity, noun, _, _ in SEVERITIES:
        parts.append(_plural(sum(d.severity == severity for d in report.diagnostics), noun))
    return " · ".join(parts)


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _actions_table(report: ValidationReport) -> Table:
    table = Table(
        title="  Actions as agents will see them",
        title_justify="left",
        title_style="bold",
        padding=(0, 1),
    )
    for column in ("action", "effect", "call", "input"):
        table.add_column(column, overflow="fold")
    for action in report.actions:
        style = EFFECT_STYLE.get(action.effect, "")
        title = escape(action.title)
        name = f"\n[dim]{escape(action.name)}[/dim]" if action.name != action.title else ""
        warn = (
            ""
            if action.same_origin or report.site == UNKNOWN_SITE
            else ("\n[yellow]other origin[/yellow]")
        )
        auth = f"\n[dim]{action.auth}[/dim]" if action.auth not in ("none", "unknown") else ""
        table.add_row(
            f"{title}{name}",
            f"[{style}]{action.effect}[/{style}]{auth}",
            escape(_call(action, report.site)) + warn,
            escape(_fields(action)),
        )
    return table


def _call(action: Action, site: str) -> str:
    """Method and endpoint; the path alone when the endpoint is on the site itself."""
    endpoint = on_site(action.endpoint or "", site)
    return f"{action.method or ''} {endpoint}".strip() or "-"


def _fields(action: Action) -> str:
    """Input field names, required ones starred: what an agent must fill in."""
    properties = action.input_schema.get("properties")
    if not isinstance(properties, dict) or not properties:
        return "-"
    required = action.input_schema.get("required") or []
    names = [f"{key}*" if key in required else str(key) for key in properties]
    more = f" +{len(names) - MAX_FIELDS}" if len(names) > MAX_FIELDS else ""
    return ", ".join(names[:MAX_FIELDS]) + more


def _print_flow(flow: Flow) -> None:
    style = EFFECT_STYLE.get(flow.effect, "")
    out.print(
        f"  • {escape(flow.title)} [dim]{escape(flow.name)}[/dim] [{style}]{flow.effect}[/{style}]"
    )
    for number, step in enumerate(flow.steps, 1):
        binds = ", ".join(f"{k} ← {v}" for k, v in step.bindings.items())
        out.print(
            f"      {number}. {escape(step.action)}"
            + (f"  [dim]{escape(binds)}[/dim]" if binds else "")
        )


def _print_diagnostics(diagnostics: list[Diagnostic]) -> None:
    for severity, noun, colour, mark in SEVERITIES:
        found = [d for d in diagnostics if d.severity == severity]
        if not found:
            continue
        out.print(f"  [bold {colour}]{noun.capitalize()}s ({len(found)})[/bold {colour}]")
        for d in found:
            out.print(
                f"    [{colour}]{mark}[/{colour}] [bold]{escape(d.code)}[/bold] "
                f"[dim]at {escape(d.path)}[/dim]",
                soft_wrap=True,
            )
            out.print(f"      {escape(d.message)}", soft_wrap=True)
            if d.hint:
                out.print(f"      [dim]fix:[/dim] {escape(d.hint)}", soft_wrap=True)


def _verdict(diagnostics: list[Diagnostic]) -> None:
    errors = sum(d.severity == "error" for d in diagnostics)
    if errors:
        out.print(
            f"[bold red]✗ {_plural(errors, 'error')}[/bold red]: agents will miss what "
            "they describe; fix them before publishing."
        )
    else:
        out.print("[bold green]✓ No errors[/bold green]: this is what agents will see.")
