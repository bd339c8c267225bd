"""openstacksdk (Debian's python3-openstacksdk) reads vigil's Octavia API as real clouds publish
Octavia: behind a proxy, under a path prefix (`/load-balancer`). The SDK discovers the API's
version from the prefix's root, then pages through a list by following its `next` links as
given, which must therefore be absolute URLs with the prefix: vigil builds them from
admin.octavia_endpoint.
"""
import http.client
import http.server
import threading

import pytest

from testing.harness.octavia_api import create
from testing.harness.vigil_process import TOKEN, EchoServer, Vigil

openstack = pytest.importorskip("openstack")

PREFIX = "/load-balancer"
CONFIG = """
admin:
  listen: 127.0.0.1:0
  token_file: @TOKEN_FILE@
  state_file: {state_file}
  octavia_endpoint: http://127.0.0.1:{proxy_port}{prefix}
"""


class PrefixProxy:
    """Forwards `PREFIX/...` to `backend` (host:port, set once known) without the prefix, as a
    cloud's Apache or HAProxy in front of Octavia does; anything else is a 404. Counts the
    requests it forwarded."""

    def __init__(self):
        outer = self
        self.backend = None
        self.paths = []

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_GET(self):
                if not self.path.startswith(PREFIX):
                    return self._reply(404, [], b"")
                path = self.path[len(PREFIX):] or "/"
                outer.paths.append(path)
                headers = {k: v for k, v in self.headers.items()
                           if k.lower() not in ("host", "connection")}
                host, port = outer.backend.rsplit(":", 1)
                conn = http.client.HTTPConnection(host, int(port), timeout=30)
                try:
                    conn.request("GET", path, headers=headers)
                    r = conn.getresponse()
                    data = r.read()
                    self._reply(r.status, [(k, v) for k, v in r.getheaders()
                                           if k.lower() in ("content-type",
                                                            "x-openstack-request-id")], data)
                finally:
                    conn.close()

            def _reply(self, status, headers, data):
                self.send_response(status)
                for k, v in headers:
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


def test_openstacksdk_pages_through_a_list_behind_a_path_prefix(tmp_path, cleanup):
    proxy = PrefixProxy()
    cleanup(proxy)
    backend = EchoServer()
    cleanup(backend)
    vigil = Vigil(tmp_path, CONFIG.format(state_file=tmp_path / "state.json",
                                          proxy_port=proxy.port, prefix=PREFIX))
    cleanup(vigil)
    proxy.backend = vigil.admin
    lb = create(vigil, "loadbalancers", "loadbalancer", {"name": "k8s"})
    for n in range(5):
        create(vigil, "pools", "pool", {"loadbalancer_id": lb["id"], "protocol": "TCP",
                                        "lb_algorithm": "ROUND_ROBIN", "name": f"p{n}"})

    conn = openstack.connection.Connection(
        auth_type="admin_token", auth={"token": TOKEN, "endpoint": f"http://127.0.0.1:"
                                                                    f"{proxy.port}{PREFIX}"},
        load_balancer_api_version="2")
    pools = list(conn.load_balancer.pools(limit=2, loadbalancer_id=lb["id"]))
    assert sorted(p.name for p in pools) == [f"p{n}" for n in range(5)]
    assert len({p.id for p in pools}) == 5
    # Pages of two (the last short), each asked through the prefix: links without it would
    # take the SDK to vigil's own address, and the proxy would see the first page alone. The SDK
    # asks once more after the short page (its last id as the marker): four requests.
    pages = [p for p in proxy.paths if "/lbaas/pools?" in p]
    assert len(pages) >= 3, "\n".join(proxy.paths)
    assert all("limit=2" in p for p in pages), pages
    assert sum("marker=" in p for p in pages) == len(pages) - 1, pages
