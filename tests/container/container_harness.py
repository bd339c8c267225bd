"""What the container tests share besides fixtures: the masters' addresses, the image's user, an
/etc/vigil and a /var/lib/vigil for a container, and what vigil says and does seen from inside the
test's network namespace."""
import json
import os
import urllib.request

from testing.harness.netns import http_get
from testing.harness.podman import Podman

DEB = os.environ.get("VIGIL_DEB", "")
MASTERS = {"master-01": "127.0.0.11", "master-02": "127.0.0.12", "master-03": "127.0.0.13"}
UID = 65532  # the image's user (scripts/image.sh)


def config_dir(tmp_path, vigil_yaml):
    """/etc/vigil for a container: the config and a token, readable by the image's user."""
    etc = tmp_path / "etc-vigil"
    etc.mkdir()
    (etc / "vigil.yaml").write_text(vigil_yaml)
    for name in ("token", "read-token"):
        token = etc / name
        token.write_text(os.urandom(32).hex() + "\n")
        os.chown(token, UID, UID)
        token.chmod(0o600)
    etc.chmod(0o755)
    tmp_path.chmod(0o755)  # pytest's own directory is root's alone
    return etc


def state_dir(tmp_path):
    """/var/lib/vigil for a container: the user's, as the manifests' docs ask."""
    state = tmp_path / "state"
    state.mkdir(mode=0o750)
    os.chown(state, UID, UID)
    return state


def status(netns, admin, etc):
    """GET /v1/status with the read token (from inside the namespace)."""
    token = (etc / "read-token").read_text().strip()

    def get():
        req = urllib.request.Request(f"http://{admin}/v1/status", headers={"X-Auth-Token": token})
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        with opener.open(req, timeout=2) as r:
            return json.loads(r.read())
    return netns.call(get)


def members_online(netns, admin, etc):
    """Whether every member of every pool is ONLINE (False while vigil does not answer)."""
    try:
        members = [m for p in status(netns, admin, etc)["pools"] for m in p["members"]]
    except OSError:
        return False
    return len(members) == len(MASTERS) and all(m["operating_status"] == "ONLINE" for m in members)


def served_by(netns, host, port, requests=30):
    """The masters that answered `requests` new TLS connections through host:port."""
    seen = set()
    for _ in range(requests):
        code, headers, _ = netns.call(http_get, host, port, "/version")
        assert code == 200, (code, headers)
        seen.add(headers.get("x-served-by"))
        if seen == set(MASTERS):
            break
    return seen
