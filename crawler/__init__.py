"""Web -> registry: Scrapy spiders, the SSRF guard, extraction and the store pipeline."""
