"""A large synthetic store made from a smaller cached one, when ingesting it would take hours.

``replicated(cache, n, base)``: bench.find_bench's cached store of ``base`` actions, its sites,
documents and actions copied n/base times in SQL under new host names (``site7.bench.test`` ->
``site7.r3.bench.test``) and new ids. The copies keep their stored index parts, so a copy's
payload still names the original host: good for timing (index size, sites to scan), not for
relevance. Ingesting 1M actions through promote_site takes about 2 hours on the shared
2-core machine; this takes minutes. Kept in the cache like the ingested stores.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from bench.find_bench import cache_file, stored
from registry.config import Settings
from registry.index.parts import INDEX_VERSION

SUFFIX = ".bench.test"


def replicated(cache: Path, n: int, base: int) -> Path:
    target = cache / f"synthetic-{n}-from-{base}-index{INDEX_VERSION}.db"
    if target.exists():
        return target
    stored(Settings(data_dir=cache), base, cache)
    partial = target.with_suffix(".partial")
    partial.write_bytes(cache_file(cache, base).read_bytes())
    conn = sqlite3.connect(partial)  # foreign keys off: rows are copied as they are
    try:
        sites, docs = (
            conn.execute(f"SELECT max(id) FROM {t}").fetchone()[0] for t in ("sites", "documents")
        )
        for k in range(1, n // base):
            _copy(conn, k, sites, docs)
            conn.commit()
    finally:
        conn.close()  # the last connection: SQLite folds its WAL into the file
    partial.rename(target)
    return target


def _copy(conn: sqlite3.Connection, k: int, sites: int, docs: int) -> None:
    def host(column: str) -> str:
        return f"replace({column}, '{SUFFIX}', '.r{k}{SUFFIX}')"

    changes = {
        "sites": (
            {"id": f"id + {k * sites}", "host": host("host"), "origin": host("origin")},
            f"id <= {sites}",
        ),
        "documents": (
            {"id": f"id + {k * docs}", "site_id": f"site_id + {k * sites}", "url": host("url")},
            f"id <= {docs}",
        ),
        "actions": (
            {
                "id": f"id || '.r{k}'",
                "site_id": f"site_id + {k * sites}",
                "document_id": f"document_id + {k * docs}",
                "endpoint": host("endpoint"),
            },
            f"site_id <= {sites}",
        ),
    }
    for table, (exprs, original) in changes.items():
        columns = [row[1] for row in conn.execute(f"PRAGMA table_info({table})")]
        values = ", ".join(exprs.get(c, c) for c in columns)
        conn.execute(
            f"INSERT INTO {table} ({', '.join(columns)}) "  # our own names
            f"SELECT {values} FROM {table} WHERE {original}"
        )
