"""A backend that says who it is: each connection gets the server's name and a newline, then the
close. Tests read it to know which member a client reached (who_from)."""
import socket
import socketserver

from testing.harness.vigil_process import ThreadedServer


class WhoServer(ThreadedServer):
    """A threaded TCP server on 127.0.0.1 that answers every connection with `name`."""

    def __init__(self, name, port=0):
        outer = self
        self.name = name

        class Handler(socketserver.BaseRequestHandler):
            def handle(self):
                try:
                    self.request.sendall(outer.name.encode() + b"\n")
                except OSError:
                    pass  # a health check that closed first

        super().__init__(Handler, port)


def who_from(source, address, timeout=5):
    """The name of the member a connection from `source` (an address on lo) to `address` reached;
    "" when vigil closed it without a member."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.settimeout(timeout)
        s.bind((source, 0))
        s.connect(address)
        got = b""
        try:
            while data := s.recv(100):
                got += data
        except ConnectionResetError:
            return ""
        return got.decode().strip()
