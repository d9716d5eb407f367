"""The diagnostic for a document no format matches: empty, plain text, an API's error answer,
or something else."""

from __future__ import annotations

from typing import Any

from registry.model.schemas import Diagnostic

# {"message": "Unauthorized"}, {"errors": [...]}: what an API sends instead of its spec
_ERROR_KEYS = frozenset(
    {
        "message",
        "msg",
        "error",
        "errors",
        "code",
        "status",
        "detail",
        "title",
        "type",
        "statusCode",
        "error_description",
        "request_id",
    }
)


def unknown(data: Any) -> Diagnostic:
    """Why ``data`` is no manifest, with a hint of what to publish instead."""
    if data in ([], {}, "") or (isinstance(data, str) and not data.strip()):
        return Diagnostic(code="empty-document", severity="info", message="document is empty")
    if isinstance(data, str):
        return Diagnostic(
            code="unknown-format",
            severity="error",
            message="text that is neither JSON, YAML nor llms.txt",
            hint="serve JSON; an llms.txt must start with a '# Title' line",
        )
    if isinstance(data, dict) and data.keys() <= _ERROR_KEYS:
        return Diagnostic(
            code="unknown-format",
            severity="error",
            message="an error response, not a manifest",
            hint="the server answered with an error: check the URL, "
            "authentication and IP allow-lists",
        )
    return Diagnostic(
        code="unknown-format",
        severity="error",
        message="no known format matches this document",
        hint="publish agent-actions/0.1, Schema.org JSON-LD, OpenAPI or another "
        "format listed in the actiondex docs",
    )
