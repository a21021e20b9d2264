"""A TCP proxy between the store's client and its real database server that can lose one reply.

``lose_reply_to(message)`` arms it: the next time a client sends exactly ``message`` (the wire bytes of a
``COMMIT``), the proxy passes it on to the server, reads the server's reply to the end of what the server
sends within a moment, throws it away and closes the client's connection. The database committed; the client
saw its connection drop while it waited for the answer: a lost reply, as a network fault or a proxy crash
makes it, with a real server on the other side (no mock of the driver). Every other byte is relayed as it is.
"""

from __future__ import annotations

import contextlib
import select
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import sqlalchemy as sa

#: PostgreSQL's simple-query message ``Q`` carrying ``COMMIT`` (what psycopg sends for ``connection.commit()``).
PG_COMMIT = b"Q\x00\x00\x00\x0bCOMMIT\x00"
#: MySQL/MariaDB's COM_QUERY packet (length 7, sequence 0, command 3) carrying ``COMMIT`` (PyMySQL's commit()).
MYSQL_COMMIT = b"\x07\x00\x00\x00\x03COMMIT"


class LosingProxy:
    """Listens on 127.0.0.1 (a free port) and relays each connection to ``target`` (host, port)."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = int(self._listener.getsockname()[1])
        self._armed: bytes | None = None
        self._after: bytes | None = None
        self._lock = threading.Lock()
        self.lost = 0  # replies thrown away so far
        self._closing = False
        #: after a lost reply, refuse new connections (the store unreachable) until this is set back to False
        self.refuse_after_loss = False
        self._sockets: list[socket.socket] = []
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def lose_reply_to(self, message: bytes, *, after: bytes | None = None) -> None:
        """Lose the reply to the next ``message`` any client sends (once); with ``after``, only a ``message``
        that follows, on the same connection, a message containing ``after`` (upper-cased), e.g. the COMMIT
        of the database transaction that inserted into COMPLETED_TXN_COMPONENTS: a transaction commit's."""
        with self._lock:
            self._armed, self._after = message, after

    def url(self, url: str) -> str:
        """``url`` with its host and port replaced by this proxy's."""
        return sa.make_url(url).set(host="127.0.0.1", port=self.port).render_as_string(hide_password=False)

    def close(self) -> None:
        self._closing = True
        self._listener.close()
        for sock in list(self._sockets):
            with contextlib.suppress(OSError):
                sock.close()

    # ------------------------------------------------------------------ relaying
    def _accept(self) -> None:
        while not self._closing:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            if self.refuse_after_loss and self.lost:
                client.close()  # the client's handshake finds the connection closed
                continue
            try:
                server = socket.create_connection(self.target)
            except OSError:
                client.close()
                continue
            self._sockets += [client, server]
            threading.Thread(target=self._relay, args=(client, server), daemon=True).start()

    def _take(self, data: bytes, primed: bool) -> tuple[bool, bool]:
        """(cut this message, the connection is primed for the cut)."""
        with self._lock:
            if self._armed is None:
                return False, False
            if self._after is not None and not primed:
                return False, b"INSERT" in data.upper() and self._after in data.upper()
            if self._armed in data:
                self._armed = None
                return True, False
        return False, primed

    def _relay(self, client: socket.socket, server: socket.socket) -> None:
        primed = False
        try:
            while True:
                ready, _, _ = select.select([client, server], [], [])
                if client in ready:
                    data = client.recv(65536)
                    if not data:
                        return
                    cut, primed = self._take(data, primed)
                    if cut:
                        server.sendall(data)
                        self._swallow_reply(server)
                        self.lost += 1
                        return  # the client's connection drops without an answer
                    server.sendall(data)
                if server in ready:
                    data = server.recv(65536)
                    if not data:
                        return
                    client.sendall(data)
        except (OSError, ValueError):  # ValueError: select on a socket close() already closed
            return
        finally:
            for sock in (client, server):
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
                with contextlib.suppress(OSError):
                    sock.close()

    @staticmethod
    def _swallow_reply(server: socket.socket) -> None:
        """Read what the server answers (its reply comes after the commit is durable) and drop it."""
        server.settimeout(10)
        with contextlib.suppress(OSError):
            if server.recv(65536):  # the first bytes of the reply: the server has committed
                server.settimeout(0.2)
                while server.recv(65536):
                    pass


@contextmanager
def losing_proxy(url: str) -> Iterator[LosingProxy]:
    """A proxy in front of the server ``url`` names."""
    parsed = sa.make_url(url)
    proxy = LosingProxy((parsed.host or "127.0.0.1", int(parsed.port or 0)))
    try:
        yield proxy
    finally:
        proxy.close()
