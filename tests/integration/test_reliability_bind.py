"""Start what can start: a listener whose port another process holds is ERROR with the reason,
counted and retried, the other listeners serve, /healthz says which one is not bound, and once
the port is free it is bound and ONLINE. Also for a listener created through the API that comes
back from admin.state_file at a restart.
"""
import json
import re
import socket

from testing.harness.octavia_api import create
from testing.harness.vigil_process import EchoServer, Vigil, echo_once
from testing.harness.wait import wait_for


def take_port():
    """A loopback socket listening on a port the kernel picked, without SO_REUSEPORT: vigil
    cannot bind that port while it is open."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(1)
    return s


def two_listeners(member_port, taken_port, state_file=None):
    state = f"\n  state_file: {state_file}" if state_file else ""
    return f"""
admin:
  listen: 127.0.0.1:0
  token_file: @TOKEN_FILE@{state}
listeners:
  - {{name: api, bind: "127.0.0.1:0", pool: masters}}
  - {{name: taken, bind: "127.0.0.1:{taken_port}", pool: masters}}
pools:
  - name: masters
    members:
      - {{name: m1, address: 127.0.0.1, port: {member_port}}}
"""


def listener(vigil, name):
    return next(l for l in vigil.status()["listeners"] if l["name"] == name)


def bind_errors(vigil, name):
    code, body = vigil.get("/metrics")
    assert code == 200
    m = re.search(r'^vigil_listener_bind_errors_total\{[^}]*listener="' + name + r'"[^}]*\} (\d+)$',
                  body, re.M)
    return int(m.group(1)) if m else None


def test_a_taken_port_is_reported_and_bound_once_free(tmp_path, cleanup):
    backend = EchoServer()
    cleanup(backend)
    holder = take_port()
    port = holder.getsockname()[1]
    try:
        vigil = Vigil(tmp_path, two_listeners(backend.port, port))
        cleanup(vigil)
        # The other listener serves.
        assert echo_once(*vigil.listener("api"), b"hello") == b"hello"
        taken = listener(vigil, "taken")
        assert taken["operating_status"] == "ERROR"
        assert taken["bound"] == ""
        assert f"cannot bind 127.0.0.1:{port}: Address already in use" in taken["bind_error"]
        assert listener(vigil, "api")["operating_status"] == "ONLINE"
        assert f"listener taken: cannot bind 127.0.0.1:{port}: Address already in use" in vigil.log_text()
        code, body = vigil.get("/healthz", token=None)
        assert code == 503
        assert "not bound: listener taken: cannot bind" in body
        # Retried with a pause: the count grows while the port stays taken.
        wait_for(lambda: (bind_errors(vigil, "taken") or 0) >= 2, timeout=10, what="a retry")
        assert vigil.log_text().count("Address already in use") == 1, "logged once per episode"
    finally:
        holder.close()
    wait_for(lambda: listener(vigil, "taken")["operating_status"] == "ONLINE", timeout=15,
             what="listener taken ONLINE")
    taken = listener(vigil, "taken")
    assert taken["bound"] == f"127.0.0.1:{port}"
    assert taken["bind_error"] == ""
    assert echo_once("127.0.0.1", port, b"now bound") == b"now bound"
    assert vigil.get("/healthz", token=None) == (200, "ok\n")
    assert "bound, its port is free now" in vigil.log_text()


def test_an_api_listener_whose_port_is_taken_at_restart_does_not_keep_the_file_down(tmp_path, cleanup):
    backend = EchoServer()
    cleanup(backend)
    state_file = tmp_path / "state.json"
    file_port_holder = take_port()
    file_port = file_port_holder.getsockname()[1]
    file_port_holder.close()
    config = two_listeners(backend.port, file_port, state_file).replace("  - {name: api, bind: \"127.0.0.1:0\", pool: masters}\n", "")
    vigil = Vigil(tmp_path, config)
    lb = create(vigil, "loadbalancers", "loadbalancer", {"name": "k8s"})
    api_port_holder = take_port()
    api_port = api_port_holder.getsockname()[1]
    api_port_holder.close()
    created = create(vigil, "listeners", "listener",
                     {"loadbalancer_id": lb["id"], "protocol": "TCP", "protocol_port": api_port,
                      "name": "ingress"})
    vigil.stop()

    holder = take_port_at(api_port)
    try:
        vigil = Vigil(tmp_path, config)
        cleanup(vigil)
        assert echo_once("127.0.0.1", file_port, b"file serves") == b"file serves"
        everything = vigil.status()["loadbalancers"]
        ingress = next(l for lb in everything for l in lb["listeners"] if l["id"] == created["id"])
        assert ingress["operating_status"] == "ERROR"
        assert "Address already in use" in ingress["bind_error"]
        # The node serves the file's listener: keepalived must not move the address away for
        # another load balancer's port.
        assert vigil.get("/healthz", token=None) == (200, "ok\n")
    finally:
        holder.close()
    wait_for(lambda: next(l for lb in vigil.status()["loadbalancers"] for l in lb["listeners"]
                          if l["id"] == created["id"])["bound"].endswith(f":{api_port}"),
             timeout=15, what="the API listener bound")


def take_port_at(port):
    s = socket.socket()
    s.bind(("127.0.0.1", port))
    s.listen(1)
    return s
