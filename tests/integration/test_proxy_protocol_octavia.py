"""The Octavia API's pool protocols PROXY and PROXYV2: a pool made through the API sends the
PROXY header, and NGINX behind it sees the real client."""
import uuid

import pytest

from proxy_receivers import Nginx, http_get, wait_logged
from testing.harness.octavia_api import create, free_port, raw, start_vigil
from testing.harness.wait import wait_for


@pytest.mark.parametrize("protocol", ["PROXY", "PROXYV2"])
def test_a_proxy_pool_made_through_the_api_passes_the_client_on(tmp_path, cleanup, protocol):
    rx = Nginx(tmp_path)
    cleanup(rx)
    vigil = start_vigil(tmp_path, cleanup)
    lb = create(vigil, "loadbalancers", "loadbalancer", {"name": "ingress"})
    port = free_port()
    listener = create(vigil, "listeners", "listener",
                      {"loadbalancer_id": lb["id"], "protocol": "TCP", "protocol_port": port})
    pool = create(vigil, "pools", "pool", {"listener_id": listener["id"], "protocol": protocol,
                                           "lb_algorithm": "ROUND_ROBIN", "name": "routers"})
    assert pool["protocol"] == protocol
    create(vigil, None, "member", {"address": "127.0.0.1", "protocol_port": rx.port},
           path=f"/v2/lbaas/pools/{pool['id']}/members")
    code, shown = raw(vigil, "GET", f"/v2/lbaas/pools/{pool['id']}")
    assert code == 200 and shown["pool"]["protocol"] == protocol, shown
    path = f"/{uuid.uuid4().hex}"

    def answered():
        # The workers take the new pool a moment after the API answered: until then the
        # listener refuses, or closes without an answer.
        try:
            client, answer = http_get("127.0.0.1", port, path)
        except OSError:
            return None
        return (client, answer) if answer else None
    client, answer = wait_for(answered, 10, what="an answer through the API's listener")
    assert answer.startswith(b"HTTP/1.1 200"), answer
    wait_logged(rx, f"{client[0]} {client[1]} {path}")
