"""Field readers shared by the format modules: each reads one untrusted value, records a
Diagnostic when it has to skip or fix something, and never raises."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from registry.model.identifiers import split_identifier
from registry.model.instructions import reads_as_instructions
from registry.model.sanitize import (
    DESCRIPTION_MAX,
    INDEX_TEXT_MAX,
    TITLE_MAX,
    clean_schema,
    clean_text,
    clean_text_checked,
    safe_name,
    shorten,
)
from registry.model.schemas import Diagnostic, Manifest, Severity
from registry.model.urls import HTTP_METHODS

Diagnostics = list[Diagnostic]


def diag(
    diags: Diagnostics,
    code: str,
    path: str,
    message: str,
    severity: Severity = "warning",
    hint: str | None = None,
) -> None:
    diags.append(Diagnostic(code=code, path=path, message=message, severity=severity, hint=hint))


def text(value: Any, cap: int, path: str, diags: Diagnostics) -> str:
    """Sanitised text; says so when it had to be cut."""
    cleaned, cut = clean_text_checked(value, cap)
    if cut:
        diag(diags, "truncated", path, f"text cut to {cap} characters", "info")
    return cleaned


def described(
    value: Any, path: str, diags: Diagnostics, extra: tuple[Any, ...] = ()
) -> tuple[str, str]:
    """(display text, index text) of a description, both sanitised: the display cut to
    DESCRIPTION_MAX for results, the index text (``Action.about``) the whole of it up to
    INDEX_TEXT_MAX, then ``extra`` (summaries, tags, examples: words never shown); '' when
    it says no more than the display. Only what the index cannot read is reported: a cut
    for display alone loses no word and is nothing a publisher must fix."""
    whole, cut = clean_text_checked(value, INDEX_TEXT_MAX)
    if cut:
        diag(
            diags,
            "truncated",
            path,
            f"text past {INDEX_TEXT_MAX} characters is not read",
            "info",
            "say what it is for first; the rest is neither shown nor searched",
        )
    raw = value if isinstance(value, str) else ""
    if reads_as_instructions(raw) or (whole != raw and reads_as_instructions(whole)):
        diag(
            diags,
            "suspicious-instruction",
            path,
            "the text reads as instructions to the agent, not as what the action does",
            "warning",
            "describe what the action does; never address the agent that reads it",
        )
    display = shorten(whole, DESCRIPTION_MAX)
    about = index_words(whole, *extra)
    return display, "" if about == display else about


def site_text(
    value: Any, path: str, diags: Diagnostics, extra: tuple[Any, ...] = ()
) -> tuple[str | None, str | None]:
    """(Manifest.site_description, Manifest.site_about) of a site's description (see
    ``described``)."""
    display, about = described(value, path, diags, extra)
    return display or None, about or None


def named_manifest(data: dict[str, Any], diags: Diagnostics, **fields: Any) -> Manifest:
    """A Manifest whose site is what the document says of itself: its ``name`` and
    ``description`` (A2A cards, agents.json); ``fields`` are the rest."""
    description, about = site_text(data.get("description"), "$.description", diags)
    return Manifest(
        diagnostics=diags,
        site_name=clean_text(data.get("name"), TITLE_MAX) or None,
        site_description=description,
        site_about=about,
        **fields,
    )


def beyond(value: Any, cap: int) -> str:
    """The whole of a text the display cap ``cap`` cuts (a long title, a summary), for the
    index; '' when the display holds all of it."""
    whole = clean_text(value, INDEX_TEXT_MAX)
    return whole if len(whole) > cap else ""


def index_words(*values: Any) -> str:
    """Sanitised words for the index only, from text values (others skipped), each said once
    and all of them bounded by INDEX_TEXT_MAX."""
    texts = [clean_text(value, INDEX_TEXT_MAX) for value in values]
    return clean_text(" ".join(dict.fromkeys(t for t in texts if t)), INDEX_TEXT_MAX)


def title_from(name: str) -> str:
    """A readable title for a machine name: "add_to_cart" -> "Add to cart"."""
    return split_identifier(name).capitalize() or name


def listed(
    value: Any, path: str, cap: int, diags: Diagnostics, severity: Severity = "warning"
) -> list[Any]:
    """The first ``cap`` items of a list field; [] (and a diagnostic) for anything else."""
    if value is None:
        return []
    if not isinstance(value, list):
        diag(diags, "invalid-type", path, "must be a list", severity)
        return []
    if len(value) > cap:
        diag(diags, "too-many-actions", path, f"{len(value)} items; the first {cap} are read")
    return value[:cap]


def read_each(
    value: Any,
    path: str,
    cap: int,
    diags: Diagnostics,
    read: Callable[[Any, str], Any],
    kind: str = "",
    severity: Severity = "warning",
) -> list[Any]:
    """``read(item, its path)`` for each listed item (see ``listed``), keeping what it
    returns (None: skipped), each name once; ``kind`` names the items in the diagnostic."""
    kept: list[Any] = []
    for index, item in enumerate(listed(value, path, cap, diags, severity)):
        item_path = f"{path}[{index}]"
        found = read(item, item_path)
        if found and any(found.name == other.name for other in kept):
            diag(diags, "duplicate-name", item_path, f"{kind}{found.name!r} listed twice; dropped")
        elif found:
            kept.append(found)
    return kept


def machine_name(item: Any, path: str, diags: Diagnostics, kind: str = "action") -> str | None:
    """The required ``name`` of an object, made safe; None (item skipped) when absent."""
    if not isinstance(item, dict):
        diag(diags, f"{kind}-skipped", path, f"an {kind} must be an object")
        return None
    raw = item.get("name")
    if not isinstance(raw, str) or not raw.strip():
        diag(
            diags,
            "missing-field",
            f"{path}.name",
            f"a name is required; {kind} skipped",
            hint="give every item a machine name like search_products",
        )
        return None
    name = safe_name(raw)
    if name != raw:
        diag(
            diags,
            "invalid-name",
            f"{path}.name",
            f"name is not [A-Za-z0-9_-]{{1,64}}; using {name!r}",
            "info",
        )
    return name


def json_schema(
    item: dict[str, Any], keys: tuple[str, ...], path: str, diags: Diagnostics
) -> dict[str, Any] | None:
    """The first of ``keys`` present, as a sanitised JSON Schema object."""
    key = next((k for k in keys if item.get(k) is not None), None)
    if key is None:
        return None
    if not isinstance(item[key], dict):
        diag(diags, "invalid-type", f"{path}.{key}", "must be a JSON Schema object")
        return None
    return clean_schema(item[key])


def http_method(value: Any, path: str, diags: Diagnostics) -> str | None:
    if value is None:
        return None
    method = value.strip().upper() if isinstance(value, str) else None
    if method in HTTP_METHODS:
        return method
    diag(diags, "invalid-type", path, "not an HTTP method; ignored")
    return None


def as_dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []
