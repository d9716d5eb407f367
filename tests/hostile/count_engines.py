"""Run one `actiondex` command in this process and count the database engines it makes:

    python -m tests.hostile.count_engines crawl --json ...

Every engine is counted twice over: each call of sqlalchemy's create_engine (wrapped before
actiondex is imported, so registry.db.engine binds the wrapper), and each distinct engine that opens
a connection (a copied engine would show here). Prints {"created": n, "connected": m} as the
last line of stderr.
"""

from __future__ import annotations

import atexit
import json
import sys
from typing import Any

import sqlalchemy
from sqlalchemy import event
from sqlalchemy.engine import Engine

created: list[int] = []
connected: set[int] = set()
_create = sqlalchemy.create_engine


def _counting(*args: Any, **kwargs: Any) -> Engine:
    engine = _create(*args, **kwargs)
    created.append(id(engine))
    return engine


@event.listens_for(Engine, "engine_connect")
def _connected(conn: Any) -> None:
    connected.add(id(conn.engine))


sqlalchemy.create_engine = _counting  # type: ignore[assignment]
atexit.register(
    lambda: print(
        json.dumps({"created": len(created), "connected": len(connected)}), file=sys.stderr
    )
)

if __name__ == "__main__":
    from actiondex.cli import main

    sys.argv = ["actiondex", *sys.argv[1:]]
    main()
