"""One registry item: an action we index, and the ARD entry that stands for it.

An action from a site's ARD catalog is answered with the publisher's entry (registry.ard.
published); any other action with an entry of ours: identifier ``urn:air:<host>:action:<name>``,
type ACTION_TYPE, ``url`` our ``GET /actions/{id}``, and our terms under the ``actiondex:``
prefix (effect, method, format, site, auth, the Schema.org type, the endpoint). The action's
facts (``Item.facts``) are what filters on our terms select by, for both kinds of entry.
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


def action_identifier(host: str, name: str) -> str:
    """``urn:air:<host>:action:<name>``; a port stays a segment of its own (host:8080)."""
    return f"urn:air:{host.lower()}:action:{name}"


def split_action_identifier(urn: str) -> tuple[str, str] | None:
    """(host, name) of an identifier we make, or None."""
    parts = urn.split(":")
    if len(parts) == 6 and parts[3].isdigit() and parts[4] == "action":
        return f"{parts[2]}:{parts[3]}", parts[5]
    if len(parts) == 5 and parts[3] == "action":
        return parts[2], parts[4]
    return None


def facts(action: dict[str, Any]) -> dict[str, Any]:
    """The facts of a search hit's payload (registry.model.results.FindResult) or a listed row."""
    source = action.get("source") or {}
    return {
        "id": action["id"],
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
    """The item of one action: its publisher's entry when there is one, else ours."""
    written = published.by_name.get(fact["name"]) if published.by_name else None
    return Item(written if written is not None else ours(fact, base_url), fact)


def ours(fact: dict[str, Any], base_url: str) -> dict[str, Any]:
    """The entry we write for an action (``base_url``: this service's root, ending in /)."""
    entry: dict[str, Any] = {
        "@context": {"actiondex": terms.ACTIONDEX_NS},
        "identifier": action_identifier(fact["site"], fact["name"]),
        "displayName": fact["title"],
        "type": terms.ACTION_TYPE,
        "url": f"{base_url}actions/{fact['id']}",
        "capabilities": [fact["name"]],
    }
    if fact["description"]:
        entry["description"] = fact["description"]
    entry.update(
        {f"actiondex:{name}": fact[name] for name in FACT_TERMS if fact.get(name) is not None}
    )
    return entry
