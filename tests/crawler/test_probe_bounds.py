"""A probe's event stream is bounded in bytes, as its other answers are
(docs/RELIABILITY.md 54): text of many-byte characters counts every byte."""

from __future__ import annotations

import time

import httpx2
import pytest

from crawler.probes.transport import TooLarge, events, read


def test_an_event_stream_is_bounded_in_bytes_not_characters() -> None:
    body = ("data: " + "é" * 600 + "\n\n").encode()  # 606 characters, 1,206 bytes
    deadline = time.monotonic() + 10
    with pytest.raises(TooLarge):
        read(httpx2.Response(200, content=body), 1000, deadline)
    stream = httpx2.Response(200, content=body, headers={"content-type": "text/event-stream"})
    with pytest.raises(TooLarge):
        list(events(stream, 1000, deadline))
