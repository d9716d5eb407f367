"""llms.txt (https://llmstxt.org): a Markdown file; its ``## Actions`` links are documents to
fetch next.

Served at ``/llms.txt``. It holds no callable actions itself: the links in an ``## Actions``
section (``- [Title](url): notes``), and links anywhere in the file to a known manifest (an
OpenAPI document, agent-actions.json, an agent card, an MCP server card...), are listed in
``Manifest.references`` for the crawler. The H1 is the site name, the first blockquote its
description. This is the one text format: the facade hands it the decoded text.
"""

from __future__ import annotations

import re
from typing import Any

from registry.formats._common import Diagnostics, diag, site_text
from registry.formats._references import References
from registry.model.sanitize import TITLE_MAX, clean_text
from registry.model.schemas import Manifest

NAME = "llms-txt"
PATHS = ("/llms.txt",)
MAX_LINES = 5_000
_MARKDOWN = re.compile(r"^(?:## |> |[-*] )|\]\(", re.MULTILINE)
_ROBOTS = re.compile(
    r"^\s*(?:user-agent|disallow|allow|sitemap|crawl-delay)\s*:", re.MULTILINE | re.IGNORECASE
)
_LINK = re.compile(r"\[[^\]\n]{0,300}\]\(\s*([^)\s]{1,2048})[^)\n]{0,300}\)")


def matches(data: Any) -> bool:
    """An H1 first, then Markdown structure; robots.txt also opens with "# " comments."""
    if not isinstance(data, str):
        return False
    head = data[:16_384]
    first = next((line for line in head.splitlines() if line.strip()), "")
    return first.startswith("# ") and bool(_MARKDOWN.search(head)) and not _ROBOTS.search(head)


def to_manifest(data: str, url: str, site: str, refs: References | None = None) -> Manifest:
    refs = refs or References(url)
    diags: Diagnostics = []
    lines = data.splitlines()[:MAX_LINES]
    title = clean_text(lines[0].lstrip("# ") if lines else "", TITLE_MAX)
    summary = next((line.lstrip("> ") for line in lines if line.startswith(">")), "")
    section, in_actions = "", False
    for number, line in enumerate(lines):
        if line.startswith("## "):
            section = line[3:].strip().lower()
            in_actions = in_actions or section == "actions"
        for target in _LINK.findall(line):
            wanted = section == "actions" or refs.names_a_manifest(target)
            if wanted and refs.add(target) is None:
                diag(
                    diags,
                    "invalid-reference",
                    f"$.lines[{number}]",
                    "not an http(s) link; ignored",
                    "info",
                )
    if not in_actions:
        diag(
            diags,
            "no-actions-section",
            "$",
            "no '## Actions' section",
            "info",
            "add '## Actions' with links to your agent-actions.json or OpenAPI document",
        )
    description, about = site_text(summary, "$.summary", diags)
    return Manifest(
        site=site,
        url=url,
        format=NAME,
        site_name=title or None,
        site_description=description,
        site_about=about,
        diagnostics=diags,
    )
