"""The soak's members: one nginx each on 127.0.0.1, so that a member can be killed (SIGKILL to
its process group, workers included) and started again on the same port.

Each answers `/` with its name and a newline and `/slow` with 32 KiB of "x" at a limit_rate that
makes it last about 250 ms; both carry an `X-Member` header with the name."""

import os
import signal
from pathlib import Path

from bench import benchlib
from bench.soak import traffic
from testing.harness.wait import wait_until


class Backend:
    def __init__(self, name, port, directory):
        self.name, self.port, self.dir = name, port, directory
        self.proc = None


class Backends:
    def __init__(self, procs, tmp, names, nofile):
        self.procs = procs
        self.nofile = nofile
        self.members = {}
        for name in names:
            d = os.path.join(tmp, f"backend-{name}")
            os.makedirs(d)
            Path(d, "slow").write_bytes(b"x" * traffic.SLOW_BYTES)
            self.members[name] = Backend(name, benchlib.free_port(), d)
            self._write_conf(self.members[name])
            self.start(name)

    def __getitem__(self, name):
        return self.members[name]

    def _write_conf(self, b):
        Path(b.dir, "nginx.conf").write_text(f"""\
user root;
worker_processes 1;
daemon off;
pid {b.dir}/nginx.pid;
error_log {b.dir}/error.log warn;
worker_rlimit_nofile {self.nofile};
events {{ worker_connections {self.nofile - 100}; }}
http {{
    access_log off;
    client_body_temp_path {b.dir}/body;
    proxy_temp_path {b.dir}/proxy;
    fastcgi_temp_path {b.dir}/fastcgi;
    uwsgi_temp_path {b.dir}/uwsgi;
    scgi_temp_path {b.dir}/scgi;
    keepalive_requests 10000000;
    keepalive_timeout 75s;
    server {{
        listen {benchlib.HOST}:{b.port} backlog=4096;
        add_header X-Member {b.name} always;
        location = / {{ default_type text/plain; return 200 "{b.name}\\n"; }}
        location = /slow {{ default_type text/plain; limit_rate 128k; limit_rate_after 0;
                           alias {b.dir}/slow; }}
    }}
}}
""")

    def start(self, name):
        b = self.members[name]
        b.proc = self.procs.spawn(f"backend-{name}", ["nginx", "-p", b.dir, "-e",
                                                      f"{b.dir}/error.log", "-c", f"{b.dir}/nginx.conf"])
        if not wait_until(lambda: benchlib.listening(b.port) or b.proc.poll() is not None, 10):
            raise RuntimeError(f"backend {name} does not listen on {b.port}")
        if b.proc.poll() is not None:
            raise RuntimeError(f"backend {name} exited: {benchlib.tail(b.proc.logpath)}")

    def kill(self, name):
        """SIGKILL to the member's process group: the master and its worker die at once and the
        kernel closes every connection of theirs, as in a crash."""
        b = self.members[name]
        try:
            os.killpg(b.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.procs.stop(b.proc, grace=5)  # reaps it; the group is gone already
