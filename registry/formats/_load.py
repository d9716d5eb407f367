"""Bytes -> data the format modules read: JSON, else YAML (OpenAPI), else text (llms.txt).

Bounded everywhere: MAX_BYTES in, MAX_DEPTH deep, MAX_NODES values (a YAML alias "billion
laughs" shares nodes, and walking them would otherwise be exponential). Failures raise
``Unusable`` carrying the diagnostic to report.
"""

from __future__ import annotations

import json
import re
from typing import Any

import yaml

from registry.model.schemas import Diagnostic

MAX_BYTES = 1 << 20
MAX_DEPTH = 32
MAX_NODES = 200_000
_YAML_START = re.compile(r"^(?:%YAML|---|[\"']?(?:openapi|swagger)[\"']?\s*:)", re.MULTILINE)
# "key:" on the first line: maybe YAML (a spec whose keys are sorted puts openapi: far down)
_KEY_LINE = re.compile(r"[A-Za-z_$\"'][\w$.\"' -]{0,100}:(?:\s|$)")
_BASE_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when built


class Unusable(Exception):
    """The body cannot be used at all; carries the diagnostic saying why."""

    def __init__(self, code: str, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.diagnostic = Diagnostic(code=code, severity="error", message=message, hint=hint)


# A base picked at run time is Any to mypy: subclassing it is the one thing strict refuses here.
class _SafeLoader(_BASE_LOADER):  # type: ignore[misc]
    """safe_load, but timestamps stay strings: everything we keep must be JSON."""


_SafeLoader.yaml_implicit_resolvers = {
    key: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for key, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def check_shape(data: Any, depth_limit: int = MAX_DEPTH) -> None:
    """Raise Unusable when ``data`` nests too deep or holds too many values (iteratively)."""
    stack, count = [(data, 1)], 0
    while stack:
        value, depth = stack.pop()
        count += 1
        if count > MAX_NODES:
            raise Unusable(
                "too-large",
                f"more than {MAX_NODES} values in the document",
                "split the document; YAML anchors count once per use",
            )
        if isinstance(value, dict | list):
            if depth > depth_limit:
                raise Unusable(
                    "depth-limit",
                    f"nested deeper than {depth_limit}",
                    "flatten the document; nothing real needs this depth",
                )
            children = value.values() if isinstance(value, dict) else value
            stack.extend((child, depth + 1) for child in children)


def _decode(body: bytes, diagnostics: list[Diagnostic]) -> str:
    try:
        text = body.decode(json.detect_encoding(body))
    except (UnicodeDecodeError, LookupError):
        text = body.decode("utf-8", errors="replace")
        diagnostics.append(
            Diagnostic(
                code="encoding-error",
                message="invalid UTF-8 replaced",
                hint="serve the document as UTF-8",
            )
        )
    return text.lstrip("\ufeff")


def _json(text: str) -> Any:
    try:
        # NaN and Infinity are not JSON and cannot be stored as JSONB: read them as null.
        return json.loads(text, parse_constant=lambda _: None)
    except RecursionError:
        raise Unusable("depth-limit", f"JSON nested deeper than {MAX_DEPTH}") from None
    except ValueError as exc:
        hint = (
            "this is an HTML page (a bot challenge or error page?); serve the JSON itself"
            if text.lstrip()[:1] == "<"
            else "check the JSON with a validator"
        )
        raise Unusable("json-parse-error", f"not JSON: {str(exc)[:200]}", hint) from None


def _yaml(text: str) -> Any:
    try:
        return yaml.load(text, Loader=_SafeLoader)  # a SafeLoader subclass
    except (yaml.YAMLError, RecursionError, ValueError) as exc:
        problem = " ".join(str(exc).split())[:200]
        raise Unusable(
            "yaml-parse-error", f"not YAML: {problem}", "check the YAML with a linter"
        ) from None


def load(body: bytes) -> tuple[Any, list[Diagnostic]]:
    """JSON (objects and arrays), YAML mappings, or else the text itself."""
    if len(body) > MAX_BYTES:
        raise Unusable(
            "too-large",
            f"document is larger than {MAX_BYTES} bytes",
            f"keep manifests under {MAX_BYTES // 1024} KiB",
        )
    diagnostics: list[Diagnostic] = []
    text = _decode(body, diagnostics)
    if not text.strip():
        raise Unusable(
            "empty-document",
            "the document is empty",
            "the server answered with an empty body; serve the document itself",
        )
    head = text.lstrip()[:1]
    if (
        head in ("{", "[", '"', "<", "")
        or head.isdigit()
        or text.strip() in ("null", "true", "false")
    ):
        data = _json(text)  # "<": an HTML error page where JSON was expected; say so
    else:
        data = _yaml_or_text(text)
    check_shape(data)
    return data, diagnostics


def _yaml_or_text(text: str) -> Any:
    """A YAML mapping when the text is one; else the text (llms.txt), which JSON formats skip."""
    strong = bool(_YAML_START.search(text[:4096]))
    lines = [line for line in text[:4096].splitlines() if line.strip()]
    markdown = bool(lines) and lines[0].startswith("# ")  # an H1: llms.txt, not YAML comments
    first = next((line for line in lines if not line.lstrip().startswith("#")), "")
    if not strong and (markdown or not _KEY_LINE.match(first)):
        return text
    try:
        data = _yaml(text)
    except Unusable:
        if strong:
            raise
        return text
    return data if isinstance(data, dict) else text
