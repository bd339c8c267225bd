"""The members on loopback: for TCP checks bench/healthcheck's sink.c (one listener per member
address, every SYN noted, so the checks of HAProxy, which never complete a handshake, are seen
too); for HTTPS checks one nginx serving TLS on every member address (`200 ok` on /readyz), with
a self-signed certificate made by openssl at start and a stub_status on 127.0.0.1 whose
counters count the checks.
"""

import os
import re
import struct
import subprocess
import urllib.request
from pathlib import Path

from bench.benchlib import HOST, compile_c, free_port, listening, proc_children, process_cpu, tail
from bench.scale.configs import member_address
from testing.harness.wait import wait_until

HEALTHCHECK = Path(__file__).resolve().parents[1] / "healthcheck"
_opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))


# Listeners per sink or nginx: the hard descriptor limit here may be 20,000 (raising it needs
# CAP_SYS_RESOURCE), and nginx also holds vigil's kept check connections, with a sixteenth of its
# worker_connections free (see _spawn).
PER_PROCESS = 6000


def shards(members):
    """(first, count) ranges of at most PER_PROCESS members covering 0 .. members-1."""
    return [(f, min(PER_PROCESS, members - f)) for f in range(0, members, PER_PROCESS)]


class Sink:
    """sink.c for `members` members: one process per PER_PROCESS members, all on one port, for
    the whole run."""

    def __init__(self, procs, tmp, members, lifetime):
        binary = compile_c(HEALTHCHECK / "sink.c", tmp)  # cc finds its common.h beside it
        self.procs, self.paths, self.offsets = [], [], []
        self.port, self.syn = 0, True
        for k, (first, count) in enumerate(shards(members)):
            records = os.path.join(tmp, f"sink{k}.records")
            port_file = os.path.join(tmp, f"sink{k}.port")
            p = procs.spawn(f"sink{k}", [binary, str(count), records, port_file, str(lifetime),
                                         str(first), str(self.port)])
            if not wait_until(lambda: os.path.exists(port_file) or p.poll() is not None, 120):
                raise RuntimeError("the sink did not start within 120 s")
            if p.poll() is not None:
                raise RuntimeError(f"the sink exited: {tail(p.logpath)}")
            with open(port_file) as f:
                port, syn = f.read().split()
            self.port, self.syn = int(port), self.syn and syn == "1"
            self.procs.append(p)
            self.paths.append(records)
            self.offsets.append(0)

    def records(self):
        """New (monotonic ns, member) checks since the last call: SYNs when the sink sees them,
        else accepted connections."""
        want = 1 if self.syn else 0
        out = []
        for k, path in enumerate(self.paths):
            with open(path, "rb") as f:
                f.seek(self.offsets[k])
                data = f.read()
            usable = len(data) - len(data) % 16
            self.offsets[k] += usable
            out += [(ns, m) for ns, m, kind in struct.iter_unpack("<QII", data[:usable]) if kind == want]
        return out

    def cpu(self):
        return process_cpu([p.pid for p in self.procs])


class TlsServer:
    """nginx with TLS on member_address(0 .. members-1):port, one instance per PER_PROCESS
    members (all on the same port)."""

    def __init__(self, procs, tmp, members):
        d = os.path.join(tmp, "tls")
        os.makedirs(d)
        self.key, self.cert = os.path.join(d, "key.pem"), os.path.join(d, "cert.pem")
        r = subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                            "-nodes", "-keyout", self.key, "-out", self.cert, "-days", "2",
                            "-subj", "/CN=vigil-bench-scale"],
                           capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
        if r.returncode != 0:
            raise RuntimeError(f"openssl req failed: {r.stderr[-500:]}")
        self.port = free_port()
        self.instances = []  # (process, stub port, error log)
        for k, (first, count) in enumerate(shards(members)):
            self.instances.append(self._spawn(procs, os.path.join(d, str(k)), first, count))

    def _spawn(self, procs, d, first, count):
        os.makedirs(d)
        stub_port = free_port()
        listens = "\n".join(f"        listen {member_address(i)}:{self.port} ssl;" for i in range(first, first + count))
        # A slot per listener and per kept check connection (vigil), and a sixteenth more: once
        # fewer than a sixteenth of its connections are free, nginx closes idle keep-alive
        # connections ("worker_connections are not enough, reusing connections"), which would
        # turn vigil's kept connections into new TLS handshakes.
        conns = (2 * count * 16) // 15 + 512
        conf = os.path.join(d, "nginx.conf")
        Path(conf).write_text(f"""\
user root;
worker_processes 1;
worker_rlimit_nofile {conns + 1000};
daemon off;
pid {d}/nginx.pid;
error_log {d}/error.log warn;
events {{ worker_connections {conns}; }}
http {{
    access_log off;
    client_body_temp_path {d}/body;
    proxy_temp_path {d}/proxy;
    fastcgi_temp_path {d}/fastcgi;
    uwsgi_temp_path {d}/uwsgi;
    scgi_temp_path {d}/scgi;
    keepalive_requests 100000;
    keepalive_timeout 75s;
    server {{
{listens}
        ssl_certificate {self.cert};
        ssl_certificate_key {self.key};
        ssl_protocols TLSv1.2 TLSv1.3;
        location = /readyz {{ return 200 "ok"; }}
        location / {{ return 404; }}
    }}
    server {{
        listen {HOST}:{stub_port};
        location = /stub {{ stub_status; }}
    }}
}}
""")
        errlog = f"{d}/error.log"
        p = procs.spawn(f"nginx-tls-{first}", ["nginx", "-p", d, "-e", errlog, "-c", conf])
        for port, addr in ((stub_port, HOST), (self.port, member_address(first + count - 1))):
            if not wait_until(lambda: listening(port, addr) or p.poll() is not None, 120):
                raise RuntimeError(f"nginx does not listen on {addr}:{port}:\n{tail(p.logpath)}")
            if p.poll() is not None:
                raise RuntimeError(f"nginx exited:\n{tail(p.logpath)}\n{tail(errlog)}")
        return p, stub_port, errlog

    def counters(self):
        """(accepted connections, requests) so far over the instances, from stub_status, less
        the stub_status requests themselves."""
        accepts = requests = 0
        for _, stub_port, _ in self.instances:
            with _opener.open(f"http://{HOST}:{stub_port}/stub", timeout=10) as r:
                body = r.read().decode()
            m = re.search(r"\n\s*(\d+)\s+(\d+)\s+(\d+)\s*\n", body)
            if not m:
                raise RuntimeError(f"cannot parse stub_status: {body[:200]!r}")
            accepts, requests = accepts + int(m.group(1)), requests + int(m.group(3))
        self.stub_calls = getattr(self, "stub_calls", 0) + 1
        n = self.stub_calls * len(self.instances)
        return accepts - n, requests - n

    def errlogs(self):
        return [e for _, _, e in self.instances]

    def cpu(self):
        return process_cpu([q for p, _, _ in self.instances for q in [p.pid] + proc_children(p.pid)])
