"""The search index: derived from the store, disposable, rebuilt from it at any time.

``handle`` opens, syncs and rebuilds the on-disk tantivy index (``ActionIndex``); ``writer``
commits one generation's changes all or nothing; ``rows`` reads store rows, ``documents``
turns them into index documents with the schema, ``parts`` works out an action's own part
when it is stored, ``text`` is the analysis (words, stems, verb synonyms), ``vectors`` the
64-byte meaning vectors, ``vector_index`` keeps their first half (and each site's vector) in
memory, followed from the store, and ``nearest`` searches them; ``files`` the on-disk generations.
Nothing here imports ``registry.search``: search reads the index, never the other way.
"""

from registry.index.handle import ActionIndex, SyncStats
from registry.index.writer import IndexBusy

__all__ = ["ActionIndex", "IndexBusy", "SyncStats"]
