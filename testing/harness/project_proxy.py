"""What Keystone's middleware and Neutron give Octavia's CLI in a cloud, in front of a noauth
Octavia API on loopback: every request gets an X-Project-Id header (what keystonemiddleware sets
from a real token), the CLI's Keystone lookup of `--project ID` (/projects/ID, /projects?name=)
finds that project, and the CLI's Neutron lookups of `--vip-subnet-id NAME` (/v2.0/subnets,
networks, ports on the same endpoint) are answered with one subnet on loopback (or the subnet
and network given; or forwarded, with `neutron=None`, to an API that answers them itself).

A thread of the test process; http.server and http.client do the HTTP.
"""
import http.client
import http.server
import json
import threading
import urllib.parse

SUBNET_ID = "6d8c7f38-7a7e-4d2b-9a55-0e6a3c1d2b00"
NETWORK_ID = "6d8c7f38-7a7e-4d2b-9a55-0e6a3c1d2b01"
SUBNET = {"id": SUBNET_ID, "name": "loopback", "network_id": NETWORK_ID, "cidr": "127.0.0.0/8",
          "ip_version": 4, "gateway_ip": None, "enable_dhcp": False, "tags": []}
NETWORK = {"id": NETWORK_ID, "name": "loopback", "subnets": [SUBNET_ID], "status": "ACTIVE",
           "admin_state_up": True, "tags": []}
NEUTRON = {"subnets": SUBNET, "networks": NETWORK, "ports": None}
HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade",
              "proxy-authorization", "proxy-authenticate", "content-length"}


def _neutron_answer(neutron, path, query):
    """The answer to a Neutron lookup from `neutron` ({collection: item or None}), or None when
    `path` is not one."""
    parts = path.strip("/").split("/")
    if neutron is None or len(parts) < 2 or parts[0] != "v2.0" or parts[1] not in neutron:
        return None
    collection, item = parts[1], neutron[parts[1]]
    items = [] if item is None else [item]
    for key in ("name", "id"):
        for wanted in query.get(key, []):
            items = [i for i in items if i.get(key) == wanted]
    if len(parts) == 3:
        found = [i for i in items if i["id"] == parts[2]]
        if not found:
            return 404, {"NeutronError": {"message": f"{collection} {parts[2]} not found"}}
        return 200, {collection[:-1]: found[0]}
    return 200, {collection: items}


def _keystone_answer(project_id, path, query):
    """Keystone's answer to the CLI's lookup of a project, or None when `path` is not one."""
    parts = path.strip("/").split("/")
    if parts[0] != "projects" or len(parts) > 2:
        return None
    project = {"id": project_id, "name": project_id, "domain_id": "default", "enabled": True}
    if len(parts) == 2:
        if parts[1] != project_id:
            return 404, {"error": {"code": 404, "message": f"Could not find project: {parts[1]}."}}
        return 200, {"project": project}
    wanted = query.get("name", []) + query.get("id", [])
    return 200, {"projects": [project] if all(w == project_id for w in wanted) else []}


class ProjectProxy:
    def __init__(self, api_host, api_port, project_id, neutron=NEUTRON):
        outer = self
        self.project_id = project_id
        self.neutron = neutron

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def _handle(self):
                url = urllib.parse.urlsplit(self.path)
                query = urllib.parse.parse_qs(url.query)
                neutron = (_keystone_answer(outer.project_id, url.path, query)
                           or _neutron_answer(outer.neutron, url.path, query))
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else None
                if neutron is not None:
                    status, payload = neutron
                    return self._reply(status, [("Content-Type", "application/json")],
                                       json.dumps(payload).encode())
                headers = {k: v for k, v in self.headers.items()
                           if k.lower() not in HOP_BY_HOP and k.lower() != "host"}
                headers["X-Project-Id"] = outer.project_id
                conn = http.client.HTTPConnection(api_host, api_port, timeout=60)
                try:
                    conn.request(self.command, self.path, body=body, headers=headers)
                    r = conn.getresponse()
                    data = r.read()
                    self._reply(r.status, [(k, v) for k, v in r.getheaders()
                                           if k.lower() not in HOP_BY_HOP], data)
                finally:
                    conn.close()

            def _reply(self, status, headers, data):
                self.send_response(status)
                for k, v in headers:
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = _handle

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()
