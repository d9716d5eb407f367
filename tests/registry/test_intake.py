"""registry.model.urls.intake_url: the one check every URL a user gives passes first (POST
/submissions, `actiondex submit`, `crawl`, `validate`, POST /validate). Issue 25 item 10."""

from __future__ import annotations

import pytest

from registry.model.urls import intake_url


@pytest.mark.parametrize(
    "text,url",
    [
        ("shop.example", "https://shop.example/"),
        ("  https://shop.example/a?b=c  ", "https://shop.example/a?b=c"),
        ("http://shop.example:1/", "http://shop.example:1/"),
        ("http://shop.example:65535/x", "http://shop.example:65535/x"),
        ("http://[2606:4700::1111]:8080/", "http://[2606:4700::1111]:8080/"),
        ("https://shop.example/100%25", "https://shop.example/100%25"),
    ],
)
def test_urls_people_give_pass(text: str, url: str) -> None:
    assert intake_url(text) == url


@pytest.mark.parametrize(
    "text,says",
    [
        ("http://example.com:0/", "port"),
        ("http://example.com:00/", "port"),
        ("http://example.com:65536/", "port"),
        ("http://example.com:99999999/", "port"),
        ("http://example.com:-1/", "port"),
        ("http://example.com:+80/", "port"),
        ("http://example.com:http/", "port"),
        ("https://shop.example/\r\nX-Injected: 1", "control characters"),
        ("https://shop.example/a\nb", "control characters"),
        ("https://shop.ex\rample/", "control characters"),
        ("https://shop.example/\x00", "control characters"),
        ("https://shop.example/\x85next", "control characters"),
        ("https://shop.example/%0d%0aSet-Cookie:%20x=1", "control characters"),
        ("https://shop.example/?q=%0A", "control characters"),
        ("https://shop%0a.example/", "control characters"),
        ("https://shop.example/#%7F", "control characters"),
        ("ftp://shop.example/", "not a domain or an http(s) URL"),
        ("http:///x", "not a domain or an http(s) URL"),
        ("http://[::1/", "not a domain or an http(s) URL"),
        ("", "1 to 2048 characters"),
        ("https://shop.example/" + "a" * 2048, "1 to 2048 characters"),
    ],
)
def test_refusals_are_one_line_with_the_reason(text: str, says: str) -> None:
    with pytest.raises(ValueError) as refused:
        intake_url(text)
    message = str(refused.value)
    assert says in message and "\n" not in message and "\r" not in message
