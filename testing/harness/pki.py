"""A CA and certificates made with the openssl command for the tests, valid for two days: EC P-256
keys, a certificate's CN and subjectAltName as given."""
import subprocess
from pathlib import Path


def openssl(*args):
    subprocess.run(["openssl", *map(str, args)], check=True, capture_output=True, timeout=30)


def make_ca(d, name):
    """A self-signed CA `name` in directory `d`: returns the path of its .crt (its key beside)."""
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2",
            "-subj", f"/CN={name}", "-keyout", d / f"{name}.key", "-out", d / f"{name}.crt")
    return d / f"{name}.crt"


def make_cert(d, ca, name, san, cn=None):
    """A certificate in files named `name`, for the CN `cn` (default: `name`) and subjectAltName
    `san`, signed by the CA `ca` (its .crt): returns (certificate path, key path) as strings."""
    openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj",
            f"/CN={cn or name}",
            "-keyout", d / f"{name}.key", "-out", d / f"{name}.csr")
    (d / f"{name}.ext").write_text(f"subjectAltName={san}\n")
    openssl("x509", "-req", "-in", d / f"{name}.csr", "-CA", ca, "-CAkey", ca.with_suffix(".key"),
            "-CAcreateserial", "-days", "2", "-extfile", d / f"{name}.ext", "-out", d / f"{name}.crt")
    return str(d / f"{name}.crt"), str(d / f"{name}.key")


def write_node_kubeconfig(d, ca):
    """d/kubeconfig and d/ca.crt (a copy of `ca`) as the node-local docs write /etc/vigil's: the
    API read through the node's own vigil, https://127.0.0.1:7445, its certificate verified as
    `kubernetes` (any token: the simulated API servers take every one)."""
    (d / "ca.crt").write_bytes(Path(ca).read_bytes())
    (d / "kubeconfig").write_text("""apiVersion: v1
kind: Config
current-context: node
contexts: [{name: node, context: {cluster: kubernetes, user: vigil}}]
clusters: [{name: kubernetes, cluster: {server: "https://127.0.0.1:7445", certificate-authority: ca.crt,
  tls-server-name: kubernetes}}]
users: [{name: vigil, user: {token: test}}]
""")
