"""What an action does to the world, when its source does not say (DESIGN.md, "The action model").

The Schema.org type decides first, then the leading verb of the machine name, then the HTTP
method. Anything still unknown is ``write``: an unknown action is never labelled ``read``.
"""

from __future__ import annotations

import re

from registry.model.identifiers import split_identifier
from registry.model.schemas import Effect
from registry.model.urls import HTTP_METHODS

_VERBS: dict[str, Effect] = {
    **dict.fromkeys(("search", "find", "read", "view", "watch", "listen", "check"), "read"),
    # Schema.org FindAction subtypes, and the read verbs of API and tool names
    **dict.fromkeys(("discover", "track", "get", "list", "lookup", "fetch", "browse"), "read"),
    **dict.fromkeys(("buy", "order", "pay", "rent", "donate", "tip", "reserve"), "spend"),
    "preorder": "spend",
    **dict.fromkeys(("send", "communicate", "share", "reply", "comment", "ask", "invite"), "send"),
    **dict.fromkeys(("inform", "confirm", "rsvp", "email", "message"), "send"),
    **dict.fromkeys(("delete", "remove", "cancel", "unsubscribe"), "delete"),
}
_METHODS: dict[str, Effect] = {"GET": "read", "HEAD": "read", "DELETE": "delete"}
# Strongest first: a flow is as strong as its strongest step.
STRENGTH: tuple[Effect, ...] = ("delete", "spend", "send", "write", "read")
_TYPE_PREFIX = re.compile(r"^(?:schema:|https?://schema\.org/)", re.IGNORECASE)


def type_verb(type_name: str) -> str:
    """The verb of a Schema.org action type: "schema:ReserveAction" -> "reserve".

    The whole stem is the verb, so "CheckOutAction" is "checkout", not "check".
    """
    local = _TYPE_PREFIX.sub("", type_name.strip())
    return local.removesuffix("Action").lower()


def _name_verb(name: str) -> str:
    words = split_identifier(name).split()
    return words[0] if words else ""


def infer_effect(type_name: str | None, method: str | None, name: str | None) -> Effect:
    if type_name and (effect := _VERBS.get(type_verb(type_name))):
        return effect
    if name and (effect := _VERBS.get(_name_verb(name))):
        return effect
    if method:
        return _METHODS.get(method.strip().upper(), "write")
    return "write"


def effect_of_id(identifier: str, prefix: str = "") -> Effect:
    """The effect of an operation known only by its id: the words after ``prefix`` (a
    generator's namespace, "giphy" in "giphy_get_gifs"), a trailing HTTP method word
    ("dm_events_get") taken as the method when the leading verb says nothing."""
    words, lead = split_identifier(identifier).split(), split_identifier(prefix).split()
    if lead and words[: len(lead)] == lead:
        words = words[len(lead) :]
    method = words[-1].upper() if words and words[-1].upper() in HTTP_METHODS else None
    return infer_effect(None, method, "_".join(words))


def strongest(effects: list[Effect]) -> Effect:
    """The strongest of ``effects`` (delete > spend > send > write > read); ``write`` if none."""
    for effect in STRENGTH:
        if effect in effects:
            return effect
    return "write"


# What an agent asks its person about before calling: it spends money, sends something in
# their name, or deletes. (Read and write act within what the person asked for.)
APPROVAL_EFFECTS: frozenset[str] = frozenset({"spend", "send", "delete"})


def approval_reasons(
    effect: str, endpoint: str | None = None, origin: str = "same", verified: bool = True
) -> list[str]:
    """Why calling an action needs its person's approval first, in words an agent can show
    them; empty when it does not. Beside its effect, seed 003's guard (docs/RELIABILITY.md
    29): an endpoint that is not https (what is sent can be read or changed on the way), or
    on another domain whose owner was not verified to be the site's (what is sent leaves the
    site)."""
    reasons = []
    if effect in APPROVAL_EFFECTS:
        reasons.append(f"its effect is {effect}: it spends, sends or deletes in the person's name")
    if endpoint and not endpoint.lower().startswith("https://"):
        reasons.append("its endpoint is not https: what is sent can be read or changed on the way")
    if origin == "cross" and not verified:
        reasons.append(
            "its endpoint is on another domain, not verified to be the site's: "
            "what is sent leaves the site"
        )
    return reasons


def needs_approval(
    effect: str, endpoint: str | None = None, origin: str = "same", verified: bool = True
) -> bool:
    """Whether calling an action needs its person's approval first (``approval_reasons``)."""
    return bool(approval_reasons(effect, endpoint, origin, verified))


def effect_of_text(*texts: object) -> Effect | None:
    """The effect the leading verbs of a text say, trying each text in turn ("Get the weather
    for a city" -> read, "Searches and books flights" -> the stronger of read and an unknown
    verb, write); None when none starts with a known verb. For entries whose only
    description is prose (an A2A skill, an MCP server)."""
    for text in texts:
        words = split_identifier(text).lower().split() if isinstance(text, str) else []
        if not words or _verb_effect(words[0]) is None:
            continue
        verbs = [words[0]]
        while len(words) > 2 * len(verbs) and words[2 * len(verbs) - 1] in ("and", "or"):
            verbs.append(words[2 * len(verbs)])
        return strongest([_verb_effect(verb) or "write" for verb in verbs])
    return None


def _verb_effect(word: str) -> Effect | None:
    """A known verb's effect, also in the third person ("gets", "searches")."""
    for stem in (word, word.removesuffix("s"), word.removesuffix("es")):
        if effect := _VERBS.get(stem):
            return effect
    return None
