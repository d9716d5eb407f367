"""The search index: derived from the store, disposable, rebuilt from it at any time.

``handle`` opens, syncs and rebuilds the on-disk tantivy index (``ActionIndex``); ``rows``
reads store rows, ``documents`` turns them into index documents with the schema, ``parts``
works out an action's own part when it is stored, ``text`` is the analysis (words, stems,
verb synonyms), ``vectors`` the 32-byte meaning vectors, ``files`` the on-disk generations.
Nothing here imports ``registry.search``: search reads the index, never the other way.
"""

from registry.index.handle import ActionIndex, IndexBusy, SyncStats

__all__ = ["ActionIndex", "IndexBusy", "SyncStats"]
