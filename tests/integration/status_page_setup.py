"""A running vigil for the status page tests: pool `masters` with two echo servers (up) and one
port that refuses connections (down), TCP checks every 200 ms, the write token of the harness and
a read-only token (mode 0644, so that vigil warns about it)."""
import http.client
import re
import socket
import urllib.parse

from testing.harness.vigil_process import EchoServer, Vigil

READ_TOKEN = "read-only-token-for-tests"

CONFIG = """
admin:
  listen: 127.0.0.1:0
  token_file: @TOKEN_FILE@
  read_token_file: {read}
  state_file: {state}
listeners:
  - {{name: api, bind: "127.0.0.1:0", pool: masters}}
pools:
  - name: masters
    health_monitor: {{type: TCP, interval: 200ms, fast_interval: 100ms, timeout: 500ms,
                     healthy_threshold: 1, unhealthy_threshold: 1}}
    members:
      - {{name: master-01, address: 127.0.0.1, port: {p1}}}
      - {{name: master-02, address: 127.0.0.1, port: {p2}}}
      - {{name: master-03, address: 127.0.0.1, port: {p3}}}
"""


class Refuser:
    """A port bound but not listening: connects to it are refused, and no one else can take it."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]

    def stop(self):
        self.sock.close()


def start(tmp_path, cleanup, read_token=READ_TOKEN):
    read = tmp_path / "read-token"
    read.write_text(read_token + "\n")
    read.chmod(0o644)
    up1, up2, down = EchoServer(), EchoServer(), Refuser()
    for thing in (up1, up2, down):
        cleanup(thing)
    vigil = Vigil(tmp_path, CONFIG.format(read=read, state=tmp_path / "state.json", p1=up1.port,
                                          p2=down.port, p3=up2.port))
    cleanup(vigil)
    return vigil


class Browser:
    """What a browser does with the page, over http.client: a cookie jar of one cookie, forms
    posted as application/x-www-form-urlencoded with the Origin of the page, no redirects
    followed (the tests look at them)."""

    def __init__(self, vigil):
        self.host, port = vigil.admin.rsplit(":", 1)
        self.port = int(port)
        self.origin = f"http://{vigil.admin}"
        self.cookie = None

    def request(self, method, path, form=None, headers=None):
        conn = http.client.HTTPConnection(self.host, self.port, timeout=5)
        try:
            hdrs = dict(headers or {})
            body = None
            if form is not None:
                body = urllib.parse.urlencode(form)
                hdrs.setdefault("Content-Type", "application/x-www-form-urlencoded")
                hdrs.setdefault("Origin", self.origin)
            if self.cookie:
                hdrs["Cookie"] = self.cookie
            conn.request(method, path, body=body, headers=hdrs)
            r = conn.getresponse()
            text = r.read().decode()
            set_cookie = r.getheader("Set-Cookie")
            if set_cookie:
                value = set_cookie.split(";", 1)[0]
                self.cookie = None if value.endswith("=") else value
            return r.status, dict(r.getheaders()), text
        finally:
            conn.close()

    def sign_in(self, token):
        return self.request("POST", "/login", form={"token": token})

    def csrf(self):
        status, _, page = self.request("GET", "/")
        assert status == 200, page
        return re.search(r'name="csrf" value="([0-9a-f]+)"', page).group(1)
