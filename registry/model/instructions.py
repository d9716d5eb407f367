"""Text that reads as instructions to the agent rather than a description of what an action
does: "ignore previous instructions", "do not tell the user", "always call this tool first".

Publishers' descriptions reach agents' context (a tool description especially: MCP clients
load it as it is), so such text is flagged ``suspicious-instruction`` where it is read
(registry.formats._common.described; docs/RELIABILITY.md 27). Flagged, not dropped: the words
stay searchable and shown (sanitised), and the flag tells agents and site owners why to doubt
them. Linear: one pass of a pattern without nested repeats over a bounded slice.
"""

from __future__ import annotations

import re

SCAN_MAX = 8000  # characters of one text looked at

_PHRASES = (
    r"(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+|the\s+|your\s+)?"
    r"(?:previous|prior|above|earlier|other|system)\s+(?:instructions|rules|prompts?|messages)",
    r"(?:do\s+not|don'?t|never)\s+(?:tell|inform|mention\s+(?:this\s+)?to|show)\s+the\s+user",
    r"without\s+(?:asking|telling|informing|notifying)\s+the\s+user",
    r"(?:before|instead\s+of)\s+(?:calling|using|running)\s+any\s+other\s+tools?",
    r"always\s+(?:call|use|run|invoke)\s+this\s+tool",
    r"you\s+(?:are\s+now|must\s+now|must\s+always|must\s+never)\b",
    r"\b(?:system\s+prompt|new\s+instructions|jailbreak)\b",
    r"(?:send|upload|post|forward|exfiltrate)\s+(?:the\s+|all\s+|your\s+)?"
    r"(?:conversation|chat\s+history|credentials|api\s+keys?|passwords?|secrets?|tokens?)",
    r"(?:read|open|cat)\s+~?/?\.(?:ssh|aws|env)\b",
    r"<\s*(?:important|system|instructions?)\s*>",
)
_SUSPICIOUS = re.compile("|".join(f"(?:{p})" for p in _PHRASES), re.IGNORECASE)


def reads_as_instructions(text: str) -> bool:
    """Whether ``text`` (raw or cleaned) addresses the agent with orders of its own."""
    return bool(_SUSPICIOUS.search(" ".join(text[:SCAN_MAX].split())))
