"""A site's crawl the store could not take, kept on disk until it can (docs/RELIABILITY.md 1.6, 37).

When the database is unreachable while a site is being stored, its SiteResult is written to
``<data_dir>/spool/`` (one file per site, written whole or not at all) instead of being lost.
``replay`` promotes the waiting results, oldest first, through the same StorePipeline code a
crawl uses; a crawl replays at its start (before it fetches anything newer) and at its end
(the database may be back by then). A result is dropped, not promoted, when the site changed in
the store after it was fetched: a newer crawl got there first. Promotion is idempotent, so a
result replayed twice (a crash between commit and unlink, or two crawls starting at once on one
data dir) changes nothing the second time, and a file another crawl replayed first is skipped.
"""

from __future__ import annotations

import base64
import json
import logging
import os
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from crawler.sitestate import SiteResult

logger = logging.getLogger(__name__)


def _encode(value: Any) -> Any:
    if isinstance(value, bytes):  # bodies are bytes as served, not always UTF-8
        return {"$b64": base64.b64encode(value).decode("ascii")}
    if isinstance(value, datetime):
        return value.isoformat()
    raise TypeError(f"cannot spool {type(value).__name__}")


def _decode(obj: dict[str, Any]) -> Any:
    return base64.b64decode(obj["$b64"]) if obj.keys() == {"$b64"} else obj


class Spool:
    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def put(self, item: SiteResult) -> Path:
        """Keep ``item``; the file appears complete (temp file, fsync, rename) or not at all."""
        self.folder.mkdir(parents=True, exist_ok=True)
        # Without the first pass: a replay may run under a newer normaliser, so it reads
        # every document afresh.
        site = item.model_dump(exclude={"first_pass"})
        body = json.dumps({"spooled_at": time.time(), "site": site}, default=_encode).encode()
        final = self.folder / f"{time.time_ns()}-{item.host}.json"
        temp = final.with_suffix(".tmp")
        with temp.open("wb") as out:
            out.write(body)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temp, final)
        return final

    def waiting(self) -> list[Path]:
        """Spooled results, oldest first (names start with the time they were written)."""
        if not self.folder.is_dir():
            return []
        return sorted(self.folder.glob("*.json"), key=lambda p: int(p.name.split("-", 1)[0]))

    @staticmethod
    def load(path: Path) -> tuple[SiteResult, float]:
        data = json.loads(path.read_bytes(), object_hook=_decode)
        return SiteResult.model_validate(data["site"]), float(data["spooled_at"])

    def replay(self, store: Callable[[SiteResult, float], Any | None]) -> list[Any]:
        """Hand each waiting result to ``store(item, spooled_at)``, which returns None while
        the database is still away (replay stops, the rest wait) or a row once the result is
        promoted or found stale; the file is removed after that."""
        rows = []
        for path in self.waiting():
            try:
                item, spooled_at = self.load(path)
            except FileNotFoundError:  # another crawl on this data dir replayed it meanwhile
                continue
            except (OSError, ValueError) as exc:  # a damaged file must not block the others
                logger.error("spool: %s unreadable, set aside: %s", path.name, exc)
                path.rename(path.with_suffix(".bad"))
                continue
            row = store(item, spooled_at)
            if row is None:
                break
            path.unlink(missing_ok=True)
            rows.append(row)
        return rows
