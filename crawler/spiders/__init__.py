"""Scrapy spiders; SiteSpider crawls the well-known documents of a list of sites."""
