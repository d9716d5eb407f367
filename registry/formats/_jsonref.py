"""Local JSON ``$ref`` resolution with caps (a helper of the OpenAPI readers, not a format).

Only references into the same document (``#/components/schemas/Pet``) are followed. A cycle, a
chain deeper than MAX_REF_DEPTH or a reference elsewhere is left as an inert ``{"x-ref": ...}``
(an action's input schema is checked on its own, where that ``$ref`` would name nothing, or a
remote document: registry.model.schema_bounds), and a spent node budget empties what is left, so a
hostile spec costs bounded time and memory and never recurses without end.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote

from registry.model.schemas import Diagnostic

MAX_REF_DEPTH = 6
# Values copied per operation (all its schemas together), so a spec's 256 actions stay a few
# MB at most however its $refs fan out; what does not fit is left out, with a diagnostic.
NODES_PER_OPERATION = 1_500
INERT = "x-ref"  # a reference not followed: kept for people to read, never resolved


class RefResolver:
    def __init__(self, root: Any, diags: list[Diagnostic]) -> None:
        self.root = root
        self.diags = diags
        self._budget = NODES_PER_OPERATION
        self._told: set[str] = set()

    def lookup(self, ref: str) -> Any | None:
        """The value a local JSON Pointer names, or None."""
        if not ref.startswith("#"):
            return None
        node = self.root
        for raw in ref[1:].split("/")[1:] if ref != "#" else []:
            key = unquote(raw).replace("~1", "/").replace("~0", "~")
            if isinstance(node, dict) and key in node:
                node = node[key]
            elif isinstance(node, list) and key.isdigit() and int(key) < len(node):
                node = node[int(key)]
            else:
                return None
        return node

    def deref(self, value: Any) -> Any:
        """``value`` with a top-level ``$ref`` followed (a parameter, a response...)."""
        for _ in range(MAX_REF_DEPTH):
            if not (isinstance(value, dict) and isinstance(value.get("$ref"), str)):
                break
            value = self.lookup(value["$ref"])
        return value

    def start_operation(self) -> None:
        self._budget = NODES_PER_OPERATION

    def inline(self, value: Any, path: str) -> Any:
        """A copy of ``value`` with local ``$ref``s replaced by what they name, bounded."""
        return self._inline(value, (), path)

    def _note(self, code: str, path: str, message: str) -> None:
        if code not in self._told:  # once per document: a big spec would repeat it thousands
            self._told.add(code)
            self.diags.append(Diagnostic(code=code, path=path, message=message, severity="info"))

    def _inline(self, value: Any, stack: tuple[str, ...], path: str) -> Any:
        self._budget -= 1
        if self._budget < 0 and isinstance(value, dict | list):
            self._note("truncated", path, "schema too large; its deeper parts are left out")
            return [] if isinstance(value, list) else {}
        if isinstance(value, list):
            return [self._inline(item, stack, path) for item in value]
        if not isinstance(value, dict):
            return value
        ref = value.get("$ref")
        if isinstance(ref, str):
            return self._follow(ref, value, stack, path)
        return {key: self._inline(item, stack, path) for key, item in value.items()}

    def _follow(self, ref: str, value: dict[str, Any], stack: tuple[str, ...], path: str) -> Any:
        if ref in stack or len(stack) >= MAX_REF_DEPTH:
            self._note("depth-limit", path, "recursive or deep $ref chain left as an x-ref")
            return {INERT: ref}
        target = self.lookup(ref)
        if target is None:
            self._note("unresolved-ref", path, f"{ref[:200]} is not in this document")
            return {INERT: ref}
        resolved = self._inline(target, (*stack, ref), path)
        siblings = {k: self._inline(v, stack, path) for k, v in value.items() if k != "$ref"}
        return {**resolved, **siblings} if isinstance(resolved, dict) else resolved
