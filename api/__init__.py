"""HTTP adapter over registry: thin handlers, structured errors. Never imports scrapy."""
