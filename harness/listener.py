"""A loopback TCP listener that counts the connections it accepts and answers each with a JSON
schema holding a secret: the witness that a ``$ref`` was (or was not) fetched. Shared by
tests/helpers/hostile_refs.py and bench/schema_bench.py."""

from __future__ import annotations

import json
import socket
import threading


class Listener:
    """Loopback TCP: counts connections, answers each with ``{"x": {"enum": [secret]}}``."""

    def __init__(self, secret: str) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port: int = self.sock.getsockname()[1]
        self.connections = 0
        self._body = json.dumps({"x": {"enum": [secret]}}).encode()
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.connections += 1
            with conn:
                conn.settimeout(2)
                try:
                    conn.recv(65536)
                    conn.sendall(
                        b"HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n"
                        b"Content-Length: %d\r\n\r\n%s" % (len(self._body), self._body)
                    )
                except OSError:
                    pass

    def close(self) -> None:
        self.sock.close()
