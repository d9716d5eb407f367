"""A loopback TCP proxy in front of PostgreSQL that a test can cut and restore: the database
"goes away" for the crawler (connections reset, new ones refused) without stopping the server
other tests share."""

from __future__ import annotations

import socket
import threading
from contextlib import suppress


class CuttableProxy:
    def __init__(self, upstream: tuple[str, int]) -> None:
        self.upstream = upstream
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._open: set[socket.socket] = set()
        self._lock = threading.Lock()
        self._cut = threading.Event()
        self.restored = threading.Event()  # set by restore()
        self._closed = threading.Event()
        self.refused = 0  # connections turned away while cut

    @property
    def port(self) -> int:
        return int(self._listener.getsockname()[1])

    def cut(self) -> None:
        """Reset every open connection and refuse new ones until ``restore``."""
        self._cut.set()
        with self._lock:
            for sock in self._open:
                with suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
            self._open.clear()

    def restore(self) -> None:
        self._cut.clear()
        self.restored.set()

    def __enter__(self) -> CuttableProxy:
        threading.Thread(target=self._accept, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._closed.set()
        self.cut()
        self._listener.close()

    def _accept(self) -> None:
        while not self._closed.is_set():
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            if self._cut.is_set():
                self.refused += 1
                client.close()
                continue
            server = socket.create_connection(self.upstream)
            with self._lock:
                self._open.update((client, server))
            for a, b in ((client, server), (server, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket) -> None:
        with suppress(OSError):
            while data := source.recv(65536):
                sink.sendall(data)
        for sock in (source, sink):  # one side ended: end both (the other pump closes too)
            with suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()
