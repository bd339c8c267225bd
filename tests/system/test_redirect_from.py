"""Co-location with kube-apiserver (the listener key redirect_from), as OpenShift on-prem runs
HAProxy beside it: a "host" namespace holds the VIP 192.0.2.10 and a process on *:6443 standing in
for kube-apiserver; vigil listens on :9445 with `redirect_from: "192.0.2.10:6443"` in front of
three simulated API servers. A client on the host and one in another namespace reach all three
through VIP:6443, and through an IPv6 VIP a second listener takes, while a member is usable; with every member down the redirect goes (VIP:6443 is
kube-apiserver's again) and comes back with one member; a reload moves and removes it; after
`vigil upgrade` only the new process's table is left; vigil killed with SIGKILL leaves no rule
behind: the kernel deletes its owned table within 1 s.

  host:    lo 127.0.0.1, VIPs 192.0.2.10/32, 192.0.2.11/32 (the reload's) and 2001:db8::10/128;
           port-c 198.51.100.1/24, 2001:db8:c::1/64; "kube-apiserver" (vigil-apisim) on
           [::]:6443, both families; members master-01..03 on 127.0.0.11-13:7443; vigil on
           :9445 (IPv4 VIP) and :9446 (IPv6 VIP), admin 127.0.0.1:8404
  client:  eth0 198.51.100.2/24, 2001:db8:c::2/64, routes the VIPs through the host
"""
import json
import os
import re
import shutil
import signal
import sys
import time

import pytest

from testing.harness.netns import TOKEN, NetNS, http_get
from testing.harness.paths import APISIM, VIGIL
from testing.harness.vigil_process import read_ready_file
from testing.harness.wait import wait_for
from node_harness import veth

VIP, OTHER_VIP, VIP6 = "192.0.2.10", "192.0.2.11", "2001:db8::10"
MASTERS = {"master-01": "127.0.0.11", "master-02": "127.0.0.12", "master-03": "127.0.0.13"}
MEMBER_PORT = 7443  # 6443 is kube-apiserver's, on every address
ADMIN = ("127.0.0.1", 8404)
REMOVED_WITHIN = 1.0  # seconds from SIGKILL to no vigil table

CONFIG = """
admin:
  listen: 127.0.0.1:8404
  token_file: {token}
shutdown_grace: 1s
listeners:
  - {{name: api, bind: ":9445", pool: masters{redirect}}}
  - {{name: api6, bind: ":9446", pool: masters, redirect_from: "[{vip6}]:6443"}}
pools:
  - name: masters
    health_monitor: {{type: HTTP, path: /readyz, interval: 1s, fast_interval: 200ms,
                      timeout: 500ms, healthy_threshold: 1, unhealthy_threshold: 1}}
    members:
{members}
"""


def config(token, redirect_from=VIP):
    redirect = f', redirect_from: "{redirect_from}:6443"' if redirect_from else ""
    members = "\n".join(f"      - {{name: {n}, address: {a}, port: {MEMBER_PORT}}}"
                        for n, a in MASTERS.items())
    return CONFIG.format(token=token, redirect=redirect, members=members, vip6=VIP6)


def served_by(host, port=6443):
    """Who answered a plain GET /readyz: the X-Served-By of vigil-apisim."""
    try:
        _, headers, _ = http_get(host, port, "/readyz", 2.0, False)
        return headers.get("x-served-by")
    except OSError:
        return None


def names_seen(ns, host, want, timeout=10):
    """Requests through host:6443 from `ns` until every name in `want` answered (bounded)."""
    seen = set()

    def all_seen():
        seen.add(ns.call(served_by, host))
        return want <= seen
    wait_for(all_seen, timeout, interval=0.02, what=f"{sorted(want)} through {host}:6443")
    return seen


def ruleset(ns):
    return ns.run(["nft", "list", "ruleset"]).stdout


def redirect_in_kernel(ns, vip):
    family, port = ("ip6", 9446) if ":" in vip else ("ip", 9445)
    return re.search(rf"{family} daddr {re.escape(vip)} tcp dport 6443 redirect to :{port}",
                     ruleset(ns))


def status_redirect(ns, listener="api"):
    _, _, body = ns.call(http_get, *ADMIN, "/v1/status", 2.0, False, {"X-Auth-Token": TOKEN})
    return next(l for l in json.loads(body)["listeners"] if l["name"] == listener)["redirect"]


def gauge(ns, listener="api"):
    _, _, body = ns.call(http_get, *ADMIN, "/metrics", 2.0, False, {"X-Auth-Token": TOKEN})
    m = re.search(rf'^vigil_listener_redirect_active\{{[^}}]*listener="{listener}"[^}}]*\}} (\d)',
                  body, re.M)
    return int(m.group(1)) if m else None


def status_line(ns, cfg, vip=VIP):
    """The redirect's line of `vigil status` under its listener."""
    out = ns.run([VIGIL, "status", "-c", cfg]).stdout
    return next((line.strip("│ ") for line in out.splitlines()
                 if f"redirect from {vip}" in line or f"redirect from [{vip}]" in line), out)


def start_master(ns, tmp_path, name):
    ready = tmp_path / f"{name}.ready"
    ready.unlink(missing_ok=True)
    p = ns.spawn([APISIM, "--plain", "--name", name, "--listen", f"{MASTERS[name]}:{MEMBER_PORT}",
                  "--ready-file", ready], tmp_path / f"{name}.log")
    read_ready_file(ready, p)
    return p


def test_redirect_from_follows_the_pool_and_dies_with_vigil(netns, tmp_path):
    if shutil.which("nft") is None:
        pytest.skip("`nft` is not installed (apt-get install nftables)")
    host = netns
    client = NetNS(prefix="vigil-redir-c")
    try:
        for vip in (VIP, OTHER_VIP):
            host.run(["ip", "addr", "add", f"{vip}/32", "dev", "lo"])
        host.run(["ip", "-6", "addr", "add", f"{VIP6}/128", "dev", "lo"])
        veth(host, "port-c", client, "198.51.100.2/24", bridge=None)
        host.run(["ip", "addr", "add", "198.51.100.1/24", "dev", "port-c"])
        host.run(["ip", "-6", "addr", "add", "2001:db8:c::1/64", "dev", "port-c", "nodad"])
        client.run(["ip", "-6", "addr", "add", "2001:db8:c::2/64", "dev", "eth0", "nodad"])
        for vip in (VIP, OTHER_VIP):
            client.run(["ip", "route", "add", f"{vip}/32", "via", "198.51.100.1"])
        client.run(["ip", "-6", "route", "add", f"{VIP6}/128", "via", "2001:db8:c::1"])

        apiserver_ready = tmp_path / "kube-apiserver.ready"
        host.spawn([APISIM, "--plain", "--name", "kube-apiserver", "--listen", "[::]:6443",
                    "--ready-file", apiserver_ready], tmp_path / "kube-apiserver.log")
        read_ready_file(apiserver_ready, host.procs[-1])
        masters = {name: start_master(host, tmp_path, name) for name in MASTERS}
        for vip in (VIP, VIP6):  # before vigil: no redirect
            assert host.call(served_by, vip) == "kube-apiserver"
            assert client.call(served_by, vip) == "kube-apiserver"

        token = tmp_path / "token"
        token.write_text(TOKEN + "\n")
        cfg = tmp_path / "vigil.yaml"
        cfg.write_text(config(token))
        ready = tmp_path / "vigil.ready"
        vigil = host.spawn([VIGIL, "serve", "-c", cfg, "--ready-file", ready],
                           tmp_path / "vigil.log")
        read_ready_file(ready, vigil)
        wait_for(lambda: redirect_in_kernel(host, VIP) and redirect_in_kernel(host, VIP6), 10,
                 what="the redirects in the ruleset")
        assert "flags owner" in ruleset(host)
        # Both hooks: remote clients through prerouting, the host's own through output.
        for port in (9445, 9446):
            assert len(re.findall(f"redirect to :{port}", ruleset(host))) == 2, ruleset(host)

        everyone = set(MASTERS)
        for vip in (VIP, VIP6):
            assert names_seen(host, vip, everyone) == everyone, f"local client to {vip}"
            assert names_seen(client, vip, everyone) == everyone, f"remote client to {vip}"
        redirect = status_redirect(host)
        assert redirect["active"] and redirect["from"] == f"{VIP}:6443", redirect
        assert "3 usable members in pool masters" in redirect["reason"], redirect
        assert status_redirect(host, "api6")["from"] == f"[{VIP6}]:6443"
        assert gauge(host) == 1 and gauge(host, "api6") == 1
        assert status_line(host, cfg) == \
            f"├─ redirect from {VIP}:6443 present (3 usable members in pool masters)"

        # Every member down: the redirect goes, VIP:6443 is kube-apiserver's again.
        for p in masters.values():
            p.send_signal(signal.SIGKILL)
            p.wait(timeout=10)
        wait_for(lambda: not redirect_in_kernel(host, VIP) and not redirect_in_kernel(host, VIP6),
                 10, what="the redirects gone with every member down")
        for vip in (VIP, VIP6):
            assert host.call(served_by, vip) == "kube-apiserver"
            assert client.call(served_by, vip) == "kube-apiserver"
        redirect = status_redirect(host)
        assert not redirect["active"], redirect
        assert redirect["reason"] == "no usable member in pool masters", redirect
        assert gauge(host) == 0 and gauge(host, "api6") == 0
        assert status_line(host, cfg) == \
            f"├─ redirect from {VIP}:6443 ABSENT (no usable member in pool masters)"

        # One member back: so is the redirect.
        masters["master-02"] = start_master(host, tmp_path, "master-02")
        wait_for(lambda: redirect_in_kernel(host, VIP) and redirect_in_kernel(host, VIP6), 10,
                 what="the redirects back with a member")
        for vip in (VIP, VIP6):
            assert names_seen(client, vip, {"master-02"}) == {"master-02"}
            assert names_seen(host, vip, {"master-02"}) == {"master-02"}

        # A reload moves the redirect to another address, then removes it, then brings it back.
        cfg.write_text(config(token, OTHER_VIP))
        vigil.send_signal(signal.SIGHUP)
        wait_for(lambda: redirect_in_kernel(host, OTHER_VIP) and not redirect_in_kernel(host, VIP),
                 10, what="the redirect moved by a reload")
        assert host.call(served_by, VIP) == "kube-apiserver"
        assert names_seen(host, OTHER_VIP, {"master-02"}) == {"master-02"}
        cfg.write_text(config(token, None))
        vigil.send_signal(signal.SIGHUP)
        wait_for(lambda: not redirect_in_kernel(host, VIP) and not redirect_in_kernel(host, OTHER_VIP)
                 and redirect_in_kernel(host, VIP6), 10, what="only the IPv4 rule gone by a reload")
        assert status_redirect(host) is None
        cfg.write_text(config(token))
        vigil.send_signal(signal.SIGHUP)
        wait_for(lambda: redirect_in_kernel(host, VIP), 10, what="the redirect back by a reload")

        # `vigil upgrade` (SIGUSR2): the new process makes its own table, and the old one's goes
        # with the old process (its netlink socket is close-on-exec: the new one does not hold it).
        vigil.send_signal(signal.SIGUSR2)
        vigil.wait(timeout=15)
        tables = wait_for(lambda: re.findall(r"table inet vigil_(\d+)", ruleset(host)), 5,
                          what="the new process's table")
        assert tables != [str(vigil.pid)], "the old process's table outlived it"
        assert len(tables) == 1, tables
        new_pid = int(tables[0])
        assert redirect_in_kernel(host, VIP) and redirect_in_kernel(host, VIP6)
        assert names_seen(client, VIP, {"master-02"}) == {"master-02"}

        # SIGKILL: the kernel deletes the table it owned with the process's netlink socket.
        killed_at = time.monotonic()
        os.kill(new_pid, signal.SIGKILL)
        wait_for(lambda: "vigil_" not in host.run(["nft", "list", "tables"]).stdout,
                 REMOVED_WITHIN, interval=0.005, what="vigil's table gone after SIGKILL")
        removed_after = time.monotonic() - killed_at
        print(f"\nredirect removed {removed_after * 1000:.0f} ms after SIGKILL", file=sys.stderr)
        assert removed_after < REMOVED_WITHIN
        for vip in (VIP, VIP6):
            assert host.call(served_by, vip) == "kube-apiserver"
    finally:
        client.destroy()
