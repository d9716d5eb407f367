"""Input schemas whose ``$ref`` points off the schema, and the witnesses that nothing was
fetched: a loopback listener that counts the connections it accepts (and would answer with a
schema holding a secret), a canary file holding another, and an audit hook that records every
``socket.connect``, every ``urllib.Request`` and any ``open`` of the canary while watching.

jsonschema's default registry fetched each of these with urllib (issue 25): the http forms
connect to the listener, the file forms read the canary.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.listener import Listener as SharedListener

SECRET = "AWS_SECRET_KEY=never-seen"
FILE_SECRET = "FILE_SECRET=never-seen"


class Listener(SharedListener):
    """The shared loopback listener (harness/listener.py), answering with SECRET."""

    def __init__(self) -> None:
        super().__init__(SECRET)


@dataclass
class Watch:
    canary: Path
    active: bool = False
    events: list[tuple[str, Any]] = field(default_factory=list)


_WATCHES: list[Watch] = []


def _hook(event: str, args: tuple[Any, ...]) -> None:
    for watch in _WATCHES:
        if not watch.active:
            continue
        if event in ("socket.connect", "urllib.Request"):
            watch.events.append((event, args[1] if event == "socket.connect" else args[0]))
        elif event == "open" and args and str(args[0]).endswith(watch.canary.name):
            watch.events.append((event, str(args[0])))


_installed = False


@contextmanager
def watching(canary: Path) -> Iterator[Watch]:
    """Records the events above while inside (an audit hook cannot be removed: one is
    installed for the process, and reports to the watches active)."""
    global _installed
    if not _installed:
        sys.addaudithook(_hook)
        _installed = True
    watch = Watch(canary)
    _WATCHES.append(watch)
    watch.active = True
    try:
        yield watch
    finally:
        watch.active = False
        _WATCHES.remove(watch)


def canary_file(folder: Path) -> Path:
    path = folder / "canary-schema.json"
    path.write_text(json.dumps({"x": {"enum": [FILE_SECRET]}}))
    return path


def ref_forms(port: int, canary: Path) -> dict[str, dict[str, Any]]:
    """Each form of reference off the schema -> an input schema whose field ``t`` uses it."""
    web = f"http://127.0.0.1:{port}"

    def field_(schema: dict[str, Any], **root: Any) -> dict[str, Any]:
        return {**root, "type": "object", "properties": {"t": schema}, "required": ["t"]}

    return {
        "http": field_({"$ref": f"{web}/v1/config#/x"}),
        "https": field_({"$ref": f"https://127.0.0.1:{port}/v1/config#/x"}),
        "file": field_({"$ref": f"{canary.as_uri()}#/x"}),
        "relative": field_({"$ref": "../v1/config#/x"}, **{"$id": f"{web}/schemas/root.json"}),
        "relative-no-base": field_({"$ref": "canary-schema.json#/x"}),
        "$id-based": field_({"$id": canary.parent.as_uri() + "/", "$ref": f"{canary.name}#/x"}),
        "$id-http": field_({"$id": f"{web}/v1/", "$ref": "config#/x"}),
        "$dynamicRef": field_({"$dynamicRef": f"{web}/v1/config#/x"}),
        "$dynamicRef-file": field_({"$dynamicRef": f"{canary.as_uri()}#/x"}),
    }
