"""podman for the container tests, kept apart from the machine's: a containers.conf of its own
(Debian's runc: crun cannot set the rlimits here nor use the machine's hybrid cgroups) and a
storage of its own in a temporary directory, so the tests neither see nor change the machine's
images and containers, and remove() leaves nothing behind.

A container joins a test's network namespace by running podman itself in it (nsenter --net, which
keeps the mount namespace: `ip netns exec` remounts /sys, and runc then finds no cgroup mount);
with `--network host` or `hostNetwork: true` the container has the namespace podman runs in."""
import os
import shutil
import subprocess
from pathlib import Path

# Every directory podman keeps state in is the test's own: `podman system reset` (remove())
# deletes them, and the machine's /run/libpod and /var/lib/containers must stay as they are. Its
# database stays where podman puts it by default, under the storage's graphroot (the test's own
# too): conmon's exit command names the storage (--root) but not a static_dir, and with the
# database elsewhere it finds no container and a restart policy never restarts one (podman 4.3).
CONTAINERS_CONF = """\
[containers]
default_ulimits = []
pids_limit = 0
[engine]
runtime = "runc"
tmp_dir = "{dir}/tmp"
volume_path = "{dir}/volumes"
"""


def missing_prerequisites():
    """Why the container tests cannot run here (None when they can)."""
    if os.geteuid() != 0:
        return "the container tests need root (podman's storage, network namespaces)"
    for tool, package in (("podman", "podman"), ("runc", "runc"), ("mmdebstrap", "mmdebstrap"),
                          ("buildah", "buildah"), ("catatonit", "catatonit"), ("ip", "iproute2"),
                          ("nsenter", "util-linux")):
        if shutil.which(tool) is None:
            return f"`{tool}` is not installed (apt-get install {package}; scripts/setup.sh --tests)"
    return None


class Podman:
    """podman and buildah on a storage under `workdir`, which remove() deletes."""

    def __init__(self, workdir):
        self.dir = Path(workdir)
        self.dir.mkdir(parents=True, exist_ok=True)
        conf = self.dir / "containers.conf"
        conf.write_text(CONTAINERS_CONF.format(dir=self.dir))
        storage = self.dir / "storage.conf"
        storage.write_text(f'[storage]\ndriver = "overlay"\ngraphroot = "{self.dir / "graph"}"\n'
                           f'runroot = "{self.dir / "run"}"\n')
        self.env = {**os.environ, "CONTAINERS_CONF": str(conf),
                    "CONTAINERS_STORAGE_CONF": str(storage)}

    def argv(self, args, netns=None):
        argv = ["podman", *map(str, args)]
        return ["nsenter", f"--net=/run/netns/{netns}", *argv] if netns else argv

    def run(self, *args, netns=None, check=True, timeout=60):
        r = subprocess.run(self.argv(args, netns), env=self.env, capture_output=True, text=True,
                           timeout=timeout)
        if check and r.returncode != 0:
            raise AssertionError(f"podman {' '.join(map(str, args))}: exit {r.returncode}\n"
                                 f"{r.stdout}\n{r.stderr}")
        return r

    def inspect(self, fmt, *names, kind="container"):
        return self.run(kind, "inspect", "--format", fmt, *names).stdout.strip()

    def remove(self):
        """Every pod, container and image of this storage, then the storage itself."""
        for args in (("pod", "rm", "--all", "--force"), ("rm", "--all", "--force"),
                     ("rmi", "--all", "--force"), ("system", "reset", "--force")):
            self.run(*args, check=False, timeout=120)
        subprocess.run(["umount", "-R", str(self.dir / "graph")], capture_output=True, timeout=30)
        shutil.rmtree(self.dir, ignore_errors=True)
