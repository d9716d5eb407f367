"""Loopback fault servers, site styles and crawl helpers for the crawler tests and bench."""
