"""The image run as the brief for a control-plane load balancer asks: a read-only root file system,
every capability dropped but NET_BIND_SERVICE, the host's network (a namespace of the test's here).
vigil listens on 443, which only that capability allows its non-root user, in front of three
simulated kube-apiservers: every one of them is reached through it and ONLINE in /v1/status."""
from testing.harness.wait import wait_for
from tests.container.container_harness import MASTERS, UID, config_dir, members_online, served_by, state_dir

CAP_NET_BIND_SERVICE = 10

VIGIL_YAML = """\
admin: {listen: "127.0.0.1:8404", token_file: /etc/vigil/token,
        read_token_file: /etc/vigil/read-token, state_file: /var/lib/vigil/state.json}
listeners:
  - {name: api, bind: "127.0.0.1:443", pool: masters}
pools:
  - name: masters
    health_monitor: {type: HTTPS, path: /readyz, interval: 1s, healthy_threshold: 1}
    members:
""" + "".join(f"      - {{name: {n}, address: {a}, port: 6443}}\n" for n, a in MASTERS.items())


def proc_status(pid):
    return dict(line.split(":\t", 1) for line in open(f"/proc/{pid}/status").read().splitlines()
                if ":\t" in line)


def test_read_only_without_capabilities_but_bind(podman, image, netns, masters, tmp_path):
    etc = config_dir(tmp_path, VIGIL_YAML)
    state = state_dir(tmp_path)
    name = f"vigil-ro-{netns.name}"
    try:
        podman.run("run", "--detach", "--name", name, "--read-only", "--cap-drop=ALL",
                   "--cap-add=NET_BIND_SERVICE", "--network", "host",
                   "--volume", f"{etc}:/etc/vigil:ro", "--volume", f"{state}:/var/lib/vigil",
                   image.name, netns=netns.name)
        wait_for(lambda: members_online(netns, "127.0.0.1:8404", etc), 30,
                 what="every master ONLINE in /v1/status")
        assert served_by(netns, "127.0.0.1", 443) == set(MASTERS)

        assert podman.inspect("{{.HostConfig.ReadonlyRootfs}}", name) == "true"
        fields = proc_status(podman.inspect("{{.State.Pid}}", name))
        assert fields["Uid"].split()[0] == str(UID)
        assert int(fields["CapEff"], 16) == 1 << CAP_NET_BIND_SERVICE
        # The image's health check (vigil health --exit-code), run by podman on demand; from the
        # namespace, as a container with the host's network has none of its own to exec into.
        # Exit 0 is healthy (podman 4.3 prints only "unhealthy").
        podman.run("healthcheck", "run", name, netns=netns.name)
    finally:
        logs = podman.run("logs", name, check=False)
        podman.run("rm", "--force", "--time", "5", name, check=False)
    assert "Read-only file system" not in logs.stdout + logs.stderr
