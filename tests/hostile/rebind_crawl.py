"""A crawl whose DNS answers change between lookups (docs/RELIABILITY.md 18), run as a script:

    python -m tests.hostile.rebind_crawl DATA_DIR URL

``rebind.test`` resolves to 127.0.0.1 once (treated as public here) and to 127.0.0.2 (not
public) on every later lookup. Prints the crawl summary as JSON.
"""

from __future__ import annotations

import sys
from typing import Any

from twisted.internet.interfaces import IHostnameResolver
from zope.interface import implementer

import crawler.guard
import crawler.run
from crawler.guard import AddressPolicy
from crawler.resolver import GuardedResolver, Resolution, _address
from registry.config import Settings
from registry.db.engine import make_engine, migrate

_public = crawler.guard.is_public_address


@implementer(IHostnameResolver)
class _Flipping:
    def __init__(self) -> None:
        self.lookups = 0

    def resolveHostName(self, receiver: Any, name: str, port: int = 0, *_: Any) -> Any:
        self.lookups += 1
        resolution = Resolution(name)
        receiver.resolutionBegan(resolution)
        receiver.addressResolved(_address("127.0.0.1" if self.lookups == 1 else "127.0.0.2", port))
        receiver.resolutionComplete()
        return resolution


class RebindingResolver(GuardedResolver):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.upstream = _Flipping()


def main(data_dir: str, url: str) -> None:
    crawler.guard.is_public_address = lambda ip: str(ip) == "127.0.0.1" or _public(ip)
    make_settings = crawler.run.scrapy_settings

    def settings_with_rebinding(*args: Any) -> dict[str, Any]:
        return {
            **make_settings(*args),
            "TWISTED_DNS_RESOLVER": "tests.hostile.rebind_crawl.RebindingResolver",
        }

    crawler.run.scrapy_settings = settings_with_rebinding  # type: ignore[assignment]
    settings = Settings(data_dir=data_dir, database_url="")
    engine = make_engine(settings)
    migrate(engine)
    summary = crawler.run.run_crawl([url], settings, AddressPolicy(), engine, delay=0.0)
    print(summary.model_dump_json())


if __name__ == "__main__":
    main(*sys.argv[1:3])
