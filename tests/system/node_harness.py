"""What the multi-node system tests share (the keepalived pair in pair_harness.py, the BGP fleet
in fleet_harness.py): a veth from a node's namespace to a bridge, and a node's vigil and logs.
Every address exists only inside the tests' namespaces. Standard library only."""
from __future__ import annotations

from testing.harness.netns import TOKEN
from testing.harness.paths import VIGIL
from testing.harness.vigil_process import read_ready_file


def veth(upstream, port, ns, cidr, bridge="br0"):
    """A veth from `ns` (eth0, with `cidr`, up) to `upstream`'s side (`port`, up, on `bridge`
    unless None)."""
    upstream.run(["ip", "link", "add", port, "type", "veth", "peer", "name", "eth0", "netns", ns.name])
    if bridge:
        upstream.run(["ip", "link", "set", port, "master", bridge])
    upstream.run(["ip", "link", "set", port, "up"])
    ns.run(["ip", "addr", "add", cidr, "dev", "eth0"])
    ns.run(["ip", "link", "set", "eth0", "up"])


class VigilNode:
    """A node's vigil: a subclass sets self.ns (its NetNS) and self.dir (its directory, where
    every log goes) and defines vigil_yaml(token_file), the config text."""

    vigil = None

    def start_vigil(self):
        (self.dir / "token").write_text(TOKEN + "\n")
        config = self.dir / "vigil.yaml"
        config.write_text(self.vigil_yaml(self.dir / "token"))
        ready = self.dir / "vigil.ready"
        ready.unlink(missing_ok=True)
        self.vigil = self.ns.spawn([VIGIL, "serve", "-c", config, "--ready-file", ready], self.dir / "vigil.log")
        read_ready_file(ready, self.vigil)

    def log(self, what):
        return (self.dir / f"{what}.log").read_text(errors="replace")
