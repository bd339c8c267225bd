"""The real `kubectl get nodes --watch`, as a person or a script runs it, for the system tests: the
client of a cluster whose dead connection only the load balancer can end.

It has client-go's defaults: HTTP/2 (it offers h2, vigil-apisim accepts it) and its health check
of the connection (a PING after 30 s without a frame, given up 15 s later; the variables that
change them are taken out of its environment). It keeps the time of every line it prints. kubectl
exits when its watch ends or fails; it is started again at once, and each exit is kept.

`-v=8` makes kubectl log each answer's headers, X-Served-By among them (the list and the watch
share one HTTP/2 connection, so one master answers both); GODEBUG=http2debug=1 makes Go's HTTP/2
transport log its connections ("http2: Transport creating client conn") and health checks, as
kubectl's own log does not say which protocol it speaks.

Python 3 standard library only: bench/failover imports the harness too.
"""
from __future__ import annotations

import random
import re
import subprocess
import threading
import time
from pathlib import Path

from testing.harness.netns import Stream, kubectl_setup


class KubectlWatch:
    """One `kubectl get nodes --watch` after another against `server`. With `pin`, runs are
    stopped and started again until a master of that name answers (at most PIN_ATTEMPTS), so
    that the scenario really cuts the watch's own master; the runs given up that way are not kept.

    The same shape as testing.harness.netns.WatchClient for Result: `streams` (one Stream per run
    that printed something), `connect_errors` (runs that printed nothing), `pinned`."""

    PIN_ATTEMPTS = 30
    SERVED_BY = re.compile(r"X-Served-By: (\S+)")

    def __init__(self, ns, kubectl, workdir, server, pin=None, stop=None, name="kubectl-watch"):
        self.ns, self.kubectl, self.pin = ns, kubectl, pin
        self.dir = Path(workdir) / name
        self.kubeconfig, self.env = kubectl_setup(self.dir, server)
        for var in ("HTTP2_READ_IDLE_TIMEOUT_SECONDS", "HTTP2_PING_TIMEOUT_SECONDS", "DISABLE_HTTP2"):
            self.env.pop(var, None)
        self.env["GODEBUG"] = "http2debug=1"
        self.lines = []           # (monotonic time, line) of everything the kept runs printed
        self.exits = []           # (monotonic time, exit code) of the kept runs
        self.streams = []
        self.connect_errors = []  # (time, error)
        self.pinned = pin is None
        self.stop = stop or threading.Event()
        self.thread = threading.Thread(target=self.run, name=name, daemon=True)
        self._proc = None
        self._runs = 0

    @property
    def log_path(self):
        """The log of the latest run."""
        return self.dir / f"kubectl.{max(self._runs - 1, 0)}.log"

    def start(self):
        self.thread.start()

    def join(self, timeout):
        self.thread.join(timeout)
        return not self.thread.is_alive()

    def served_by(self, log_path):
        try:
            found = self.SERVED_BY.findall(log_path.read_text(errors="replace"))
        except FileNotFoundError:
            return None
        return found[-1] if found else None

    def run(self):
        attempts = 0
        while not self.stop.is_set():
            log_path = self.dir / f"kubectl.{self._runs}.log"
            self._runs += 1
            opened = time.monotonic()
            with open(log_path, "wb") as log:
                argv = self.ns.argv([self.kubectl, "--kubeconfig", self.kubeconfig, "get", "nodes", "--watch",
                                     "-v=8"])
                proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=log, env=self.env, text=True)
            self.ns.procs.append(proc)
            self._proc = proc
            stream, kept = None, []
            for line in iter(proc.stdout.readline, ""):
                now = time.monotonic()
                if stream is None:
                    stream = Stream(opened=opened, served_by=self.served_by(log_path))
                    if not self.pinned and stream.served_by != self.pin and attempts < self.PIN_ATTEMPTS:
                        attempts += 1
                        proc.terminate()
                        break
                    self.pinned = self.pinned or stream.served_by == self.pin
                    self.streams.append(stream)
                stream.first_event = stream.first_event or now
                stream.last_event = now
                stream.events += 1
                kept.append((now, line.rstrip("\n")))
                self.lines.append(kept[-1])
            try:
                code = proc.wait(timeout=10)   # its output ended: it is exiting
            except subprocess.TimeoutExpired:
                proc.kill()
                code = proc.wait(timeout=5)
            ended = time.monotonic()
            if stream is not None and stream in self.streams:
                stream.ended = ended
                stream.end_reason = ("client stopped" if self.stop.is_set()
                                     else f"kubectl exited {code}: {self.last_error(log_path)}")
                self.exits.append((ended, code))
            elif stream is None and not self.stop.is_set():
                self.connect_errors.append((opened, f"kubectl exited {code} having printed nothing: "
                                                    f"{self.last_error(log_path)}"))
            # A pause of its own length each time: vigil's round robin is a strict rotation, and
            # runs at a fixed pace beside the other clients' fixed paces could land on the same
            # turn of it every time (31 runs on master-02 and master-03 only, 2026-12-06).
            self.stop.wait(random.uniform(0.05, 0.4))

    @staticmethod
    def last_error(log_path):
        """The last line of kubectl's log that is an error (E...) or not klog's at all."""
        try:
            lines = log_path.read_text(errors="replace").splitlines()
        except FileNotFoundError:
            return "no log"
        picked = [ln.strip() for ln in lines if ln.strip() and not re.match(r"^[IW]\d{4} ", ln)
                  and not ln.startswith("http2:") and not ln.startswith(" ")]
        return (picked[-1] if picked else "no message")[:200]

    def interrupt(self):
        self.stop.set()
        if self._proc is not None and self._proc.poll() is None:
            self._proc.terminate()

    def events(self):
        return [t for t, _ in self.lines]

    def back_after(self, start, end):
        """When it printed again after its longest silence that began within [start, end] (a line
        already on its way at `start` does not end it); None while that silence lasts."""
        times = [start] + [t for t in self.events() if t > start]
        now = time.monotonic()
        silences = [(b - a, b) for a, b in zip(times, times[1:]) if a < end]
        if times[-1] < end:
            silences.append((now - times[-1], None))   # still silent
        return max(silences, key=lambda s: s[0])[1]

    def transport_lines(self):
        """What Go's HTTP/2 transport logged of its connections and health checks, in every run."""
        out = []
        for i in range(self._runs):
            try:
                text = (self.dir / f"kubectl.{i}.log").read_text(errors="replace")
            except FileNotFoundError:
                continue
            out += [ln for ln in text.splitlines() if "http2: Transport creating client conn" in ln
                    or "health check" in ln]
        return out
