"""registry.model.codes: a site that failed the same way 17 times says so once, with 17."""

from __future__ import annotations

from registry.model.codes import counted


def test_repeated_codes_are_counted_once() -> None:
    codes = ["tls-invalid"] * 17 + ["timeout", "tls-invalid"]
    assert counted(codes) == ["tls-invalid (18 times)", "timeout"]
    assert counted(["robots-unavailable"]) == ["robots-unavailable"] and counted([]) == []
