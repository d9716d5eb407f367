"""Just enough JSON-LD for the schemaorg format (a helper, not a format).

Documents are read as written (compact form, Schema.org terms): no remote contexts, no
expansion. What is handled: top-level objects or lists, ``@graph``, ``@id`` references within
the document, and ``@type`` written as ``X``, ``schema:X`` or a schema.org IRI.
"""

from __future__ import annotations

import re
from typing import Any

from registry.model.schemas import Diagnostic

MAX_NODES = 20_000
Node = dict[str, Any]
_SCHEMA_IRI = re.compile(r"https?://(?:www\.)?schema\.org(?:/|$)", re.IGNORECASE)
_PREFIX = re.compile(r"^(?:schema:|https?://(?:www\.)?schema\.org/)", re.IGNORECASE)
_LOCAL_TYPE = re.compile(r"[A-Za-z][A-Za-z0-9]{0,79}")


def local_types(node: Node) -> list[str]:
    """The node's ``@type`` values as Schema.org local names; anything else dropped."""
    raw = node.get("@type")
    names = []
    for value in (raw if isinstance(raw, list) else [raw])[:8]:
        if isinstance(value, str):
            local = _PREFIX.sub("", value.strip())
            if _LOCAL_TYPE.fullmatch(local):
                names.append(local)
    return names


def is_schema_context(context: Any) -> bool:
    """``https://schema.org``, ``http://schema.org/``, an ``@vocab`` or prefix naming it..."""
    if isinstance(context, str):
        return bool(_SCHEMA_IRI.match(context.strip()))
    if isinstance(context, dict):
        return any(is_schema_context(value) for value in list(context.values())[:32])
    if isinstance(context, list):
        return any(is_schema_context(value) for value in context[:8])
    return False


class Graph:
    """The document's objects (with JSON paths) and its ``@id`` definitions."""

    def __init__(self, data: Any, diags: list[Diagnostic]) -> None:
        self.diags = diags
        self.ids: dict[str, Node] = {}
        self.nodes = self._walk(self._roots(data))

    def resolve(self, value: Any) -> Any:
        """The object an ``{"@id": ...}`` reference stands for, when the document defines it."""
        is_reference = isinstance(value, dict) and not set(value) - {"@id", "@type"}
        if is_reference and isinstance(value.get("@id"), str):
            return self.ids.get(value["@id"], value)
        return value

    def _diag(self, code: str, path: str, message: str) -> None:
        self.diags.append(Diagnostic(code=code, path=path, message=message, severity="info"))

    def _roots(self, data: Any) -> list[tuple[Node, str]]:
        """Top-level objects in a Schema.org (or no) context; @graph members unwrapped."""
        items = list(enumerate(data)) if isinstance(data, list) else [(None, data)]
        roots = []
        for index, item in items:
            path = "$" if index is None else f"$[{index}]"
            if not isinstance(item, dict):
                continue
            if "@context" in item and not is_schema_context(item["@context"]):
                self._diag("unknown-context", path, "not a schema.org context; item ignored")
                continue
            graph = item.get("@graph")
            if isinstance(graph, list):
                roots += [
                    (node, f"{path}['@graph'][{i}]")
                    for i, node in enumerate(graph)
                    if isinstance(node, dict)
                ]
            roots.append((item, path))
        return roots

    def _walk(self, roots: list[tuple[Node, str]]) -> list[tuple[Node, str]]:
        """Every object under the roots, depth first, bounded; indexes @id definitions."""
        stack, nodes = list(reversed(roots)), list[tuple[Node, str]]()
        while stack:
            if len(nodes) == MAX_NODES:
                self._diag("truncated", "$", f"only the first {MAX_NODES} objects were read")
                break
            node, path = stack.pop()
            nodes.append((node, path))
            if isinstance(node.get("@id"), str) and set(node) - {"@id", "@type"}:
                self.ids.setdefault(node["@id"], node)
            for key, value in reversed(node.items()):
                if key == "@graph":  # its members are roots already
                    continue
                if isinstance(value, dict):
                    stack.append((value, f"{path}.{key}"))
                elif isinstance(value, list):
                    stack += [
                        (child, f"{path}.{key}[{i}]")
                        for i, child in enumerate(value)
                        if isinstance(child, dict)
                    ][::-1]
        return nodes
