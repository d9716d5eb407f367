"""One registry item: an action or flow we index, and the ARD entry that stands for it.

An action from a site's ARD catalog is answered with the publisher's entry (registry.ard.
published); any other action with an entry of ours: identifier ``urn:air:<host>:action:<name>``,
type ACTION_TYPE, ``url`` our ``GET /actions/{id}``, and our terms under the ``actiondex:``
prefix (effect, method, format, site, auth, the Schema.org type, the endpoint). A flow is an
entry of ours too: ``urn:air:<host>:flow:<name>``, type FLOW_TYPE, ``url`` our
``GET /flows/{id}``, and its steps (``actiondex:steps``: each step's action, by name and
identifier). The item's facts (``Item.facts``) are what filters on our terms select by, for
every kind of entry.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from registry.ard.published import SiteEntries
from registry.model import ard_terms as terms

# Our terms, by the name an ``actiondex:`` filter or facet uses, and the fact each reads.
FACT_TERMS = ("effect", "method", "format", "site", "auth", "actionType", "endpoint")


@dataclass(frozen=True)
class Item:
    entry: dict[str, Any]
    facts: dict[str, Any]  # the action's: id, site, name, effect, method, format...

    @property
    def identifier(self) -> str:
        return str(self.entry["identifier"])


KINDS = ("action", "flow")
TYPES = {"action": terms.ACTION_TYPE, "flow": terms.FLOW_TYPE}


def action_identifier(host: str, name: str, kind: str = "action") -> str:
    """``urn:air:<host>:<kind>:<name>``; a port stays a segment of its own (host:8080)."""
    return f"urn:air:{host.lower()}:{kind}:{name}"


def split_identifier(urn: str) -> tuple[str, str, str] | None:
    """(kind, host, name) of an identifier we make, or None."""
    parts = urn.split(":")
    if len(parts) == 6 and parts[3].isdigit() and parts[4] in KINDS:
        return parts[4], f"{parts[2]}:{parts[3]}", parts[5]
    if len(parts) == 5 and parts[3] in KINDS:
        return parts[3], parts[2], parts[4]
    return None


def facts(action: dict[str, Any]) -> dict[str, Any]:
    """The facts of a search hit's payload (registry.model.results.FindResult) or a listed row."""
    source = action.get("source") or {}
    return {
        "id": action["id"],
        "kind": action.get("kind") or "action",
        "steps": action.get("steps") or [],
        "site": action["site"],
        "name": action["name"],
        "title": action.get("title") or action["name"],
        "description": action.get("description") or "",
        "effect": action.get("effect"),
        "method": action.get("method"),
        "format": source.get("format"),
        "auth": action.get("auth"),
        "actionType": action.get("type"),
        "endpoint": action.get("endpoint"),
        "source": source.get("url"),
    }


def item(fact: dict[str, Any], published: SiteEntries, base_url: str) -> Item:
    """The item of one action: its publisher's entry when there is one, else ours (always
    ours for a flow: catalogs hold no flows)."""
    by_name = published.by_name if fact["kind"] == "action" else None
    written = by_name.get(fact["name"]) if by_name else None
    return Item(written if written is not None else ours(fact, base_url), fact)


def ours(fact: dict[str, Any], base_url: str) -> dict[str, Any]:
    """The entry we write for an action or flow (``base_url``: this service's root, ending
    in /)."""
    kind = fact["kind"]
    entry: dict[str, Any] = {
        "@context": {"actiondex": terms.ACTIONDEX_NS},
        "identifier": action_identifier(fact["site"], fact["name"], kind),
        "displayName": fact["title"],
        "type": TYPES[kind],
        "url": f"{base_url}{kind}s/{fact['id']}",
        "capabilities": [fact["name"]],
    }
    if fact["description"]:
        entry["description"] = fact["description"]
    entry.update(
        {f"actiondex:{name}": fact[name] for name in FACT_TERMS if fact.get(name) is not None}
    )
    if kind == "flow":
        entry["actiondex:steps"] = [_step(fact["site"], step) for step in fact["steps"]]
    return entry


def _step(host: str, step: dict[str, Any]) -> dict[str, Any]:
    """One step of a flow's entry: its action, by name and by the identifier of its entry."""
    shown = {"action": step["action"], "identifier": action_identifier(host, step["action"])}
    if step.get("title"):
        shown["title"] = step["title"]
    if step.get("bindings"):
        shown["bindings"] = step["bindings"]
    return shown
