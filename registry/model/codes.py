"""Diagnostic codes as people read a list of them: each once, with how often it came."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable


def counted(codes: Iterable[str]) -> list[str]:
    """Each code once, in the order first met, with its number when it came more than once:
    ``["tls-invalid"] * 17 + ["timeout"]`` -> ``["tls-invalid (17 times)", "timeout"]``."""
    tally = Counter(codes)
    return [code if n == 1 else f"{code} ({n} times)" for code, n in tally.items()]
