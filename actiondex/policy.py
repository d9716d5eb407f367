"""The crawler's address policy from the settings and the command line's flags, and the error a
refused target raises. Scrapy-free, so `serve` (POST /submissions) can use it too."""

from __future__ import annotations

from actiondex.runtime import UserError
from crawler.guard import AddressPolicy, policy_from
from registry.config import Settings


class Refused(UserError):
    code = "refused"


def make_policy(
    settings: Settings, resolve: list[str], allow_private: bool | None
) -> AddressPolicy:
    """The address policy of the settings and the command line's flags."""
    try:
        return policy_from(settings, resolve, allow_private)
    except ValueError as exc:
        raise UserError(str(exc)) from None
