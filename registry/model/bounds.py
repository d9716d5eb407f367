"""The bounds every door checks, said once: the REST routes, the MCP tools, the CLI and the
store import them from here, so what one door refuses every door refuses, in the same words,
and the OpenAPI document shows the same limits the MCP tools' schemas show.

tests/test_architecture_bounds.py fails if one of these is declared anywhere else.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import StringConstraints

# An action's or a flow's id: the first 24 hex digits of a SHA-256 of (site, format, key),
# registry.model.schemas.stable_id. Nothing else is an id, so nothing else is looked up.
ID_CHARS = 24
ID_PATTERN = rf"^[0-9a-f]{{{ID_CHARS}}}$"
Id = Annotated[str, StringConstraints(min_length=ID_CHARS, max_length=ID_CHARS, pattern=ID_PATTERN)]

# A site as a person or an agent names it: a host in any case, an IDN in Unicode or A-labels,
# or its URL (registry.store.site_list.find_site reads each). A host is at most 253 characters
# (RFC 1035), with ":port" 259; the rest is room for a scheme and a slash.
MAX_SITE_CHARS = 300
SiteName = Annotated[str, StringConstraints(min_length=1, max_length=MAX_SITE_CHARS)]

# A host as a search filter takes it (registry.search.contract.Host): ASCII letters, digits,
# dots and hyphens (an IDN in A-labels), and a port.
HOST_PATTERN = r"^[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?(?::[0-9]{1,5})?$"

# A row id (a crawl run's, a history entry's): the id columns are INTEGER on PostgreSQL, where
# a larger number in a query is an error, not a row that is not there.
MAX_ROW_ID = 2**31 - 1

# Entries on one page of a listing paged by cursor: sites (GET /sites), a site's history
# (GET /sites/{host}/history) and crawl runs (GET /runs), and the CLI's `--limit`s for them.
MAX_PAGE = 500
