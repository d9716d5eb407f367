"""actiondex's core: the action model, formats, store, index and search.

This package imports neither Scrapy nor FastAPI; crawler/ and api/ are adapters around it.
"""
