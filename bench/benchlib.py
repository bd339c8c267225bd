"""Running and observing processes for a benchmark on loopback: what bench/dataplane/run.py and
bench/healthcheck/run.py share.

Processes starts every long-running process in a process group of its own, with its output in a
log file under the run's temporary directory, and stops each by its group; the helpers around it
wait (always bounded), pick ports on 127.0.0.1, read /proc (listening sockets, children, CPU
time) and describe the machine and the tools for the JSON result. Python 3 standard library only.

A script runs as a module from the repository root (`python3 -m bench.dataplane.run`; its run.sh
does that) and imports it as `from bench import benchlib`; the bounded waits are
testing/harness/wait.py's.
"""

import json
import os
import re
import resource
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from testing.harness.wait import wait_until

HOST = "127.0.0.1"  # the only address the benchmarks listen on or connect to
CLK_TCK = os.sysconf("SC_CLK_TCK")


def compile_c(source, tmp, libs=(), defines=(), name=None):
    """Compiles the C file `source` (a path) with cc -O2 into tmp/NAME (default: the source's
    stem), with -D`defines`, linked with `libs` (names as for -l); returns the binary's path."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        raise RuntimeError("no C compiler (cc): run.sh installs gcc")
    out = os.path.join(tmp, name or Path(source).stem)
    r = subprocess.run([cc, "-O2", "-std=c17", "-Wall", *(f"-D{d}" for d in defines), "-o", out, str(source)]
                       + [f"-l{lib}" for lib in libs],
                       capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        raise RuntimeError(f"cc {source} failed:\n{r.stderr[-2000:]}")
    return out


def log(msg):
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


class Stop(BaseException):  # not an Exception: a failed measurement must not swallow it
    """SIGTERM: unwind through the finally blocks that stop every process."""


def on_sigterm(signum, frame):
    raise Stop()


def raise_nofile(want):
    """Raises the descriptor limit to `want` (soft and hard), or to the hard limit where raising
    that needs CAP_SYS_RESOURCE we lack; returns the soft limit now in force."""
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, want))
    except (ValueError, OSError):
        hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


# ---------------------------------------------------------------------------------------------
# Bounded waits, ports, /proc


_direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # never an http_proxy


def admin_call(admin, token, method, path, body=None, timeout=30, no_answer_ok=False):
    """One JSON request to vigil's admin API at `admin` (host:port): (status, body bytes,
    seconds). With `no_answer_ok`, no answer within `timeout` is status 0 and the time waited."""
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(f"http://{admin}{path}", data=data, method=method,
                                 headers={"X-Auth-Token": token, "Content-Type": "application/json"})
    start = time.perf_counter()
    try:
        with _direct.open(req, timeout=timeout) as r:
            out = r.status, r.read()
    except urllib.error.HTTPError as e:
        out = e.code, e.read()
    except OSError:
        if not no_answer_ok:
            raise
        out = 0, b""
    return out[0], out[1], time.perf_counter() - start


def free_port():
    """A port the kernel picked for 127.0.0.1 and we released again (a race, acceptable here)."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        s.bind((HOST, 0))
        return s.getsockname()[1]
    finally:
        s.close()


def listening(port, address=HOST, wildcard=False):
    """True when a socket listens on address:port (from /proc/net/tcp; no connection made);
    with `wildcard`, one on 0.0.0.0:port counts too."""
    want = {f"{socket.inet_aton(address)[::-1].hex().upper()}:{port:04X}"}
    if wildcard:
        want.add(f"00000000:{port:04X}")
    try:
        with open("/proc/net/tcp") as f:
            next(f)
            for line in f:
                parts = line.split()
                if len(parts) > 3 and parts[3] == "0A" and parts[1] in want:
                    return True
    except OSError:
        pass
    return False


def process_tree(pid):
    """pid and every process below it."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo += proc_children(p)
    return out


def proc_children(pid, scan=False):
    """The children of pid, from /proc/PID/task/TID/children; with `scan`, where the kernel has
    no such file, from a scan of every /proc/N/stat for the parent."""
    kids = []
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/children") as f:
                kids += [int(x) for x in f.read().split()]
        return kids
    except OSError:
        if not scan:
            return kids
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                if int(fields[1]) == pid:
                    kids.append(int(entry))
            except (OSError, IndexError, ValueError):
                pass
    return kids


def stat_ticks(path):
    """utime + stime (fields 14 and 15 of stat(5)) of a /proc/PID/stat or /proc/PID/task/TID/stat,
    in clock ticks."""
    with open(path) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def process_cpu(pids, skip_gone=True):
    """utime+stime of the processes, every thread included, in seconds; a process that is gone
    counts 0 with `skip_gone`, else it raises OSError."""
    total = 0
    for pid in pids:
        try:
            total += stat_ticks(f"/proc/{pid}/stat")
        except OSError:
            if not skip_gone:
                raise
    return total / CLK_TCK


def machine_cpu():
    """Busy time of the whole machine, every CPU, in seconds: user + nice + system + irq + softirq
    + steal from the "cpu" line of /proc/stat (guest time is already in user). It counts every
    process and the kernel's own work (softirqs, kernel threads), so it is what a measurement
    cost the machine, but only on a machine that nothing else keeps busy."""
    with open("/proc/stat") as f:
        fields = f.readline().split()
    if fields[0] != "cpu":
        raise RuntimeError(f"unexpected /proc/stat: {' '.join(fields)[:80]}")
    user, nice, system, _idle, _iowait, irq, softirq, steal = (int(x) for x in fields[1:9])
    return (user + nice + system + irq + softirq + steal) / CLK_TCK


def tail(path, lines=15):
    try:
        with open(path, errors="replace") as f:
            return "".join(f.readlines()[-lines:])
    except OSError:
        return ""


def log_findings(path, problem, ignore=None):
    """Lines of a process log that match the regex `problem` and not the regex `ignore`."""
    hits = []
    try:
        with open(path, errors="replace") as f:
            for line in f:
                if problem.search(line) and not (ignore and ignore.search(line)):
                    hits.append(line.rstrip())
    except OSError:
        pass
    return hits


# ---------------------------------------------------------------------------------------------
# The machine and the tools, for the result


def loadavg():
    """1-minute load average: other work on the machine makes every number noisier."""
    try:
        with open("/proc/loadavg") as f:
            return float(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def machine_info(memory=False):
    """CPUs, CPU model and kernel; with `memory`, also the RAM in GiB."""
    model = ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    info = {"nproc": os.cpu_count(), "cpu": model, "kernel": os.uname().release}
    if memory:
        mem_kb = 0
        try:
            with open("/proc/meminfo") as f:
                mem_kb = int(f.readline().split()[1])
        except (OSError, ValueError, IndexError):
            pass
        info["mem_gib"] = round(mem_kb / 1024 / 1024, 1)
    return info


def tool_version(argv, pattern):
    try:
        r = subprocess.run(argv, capture_output=True, text=True, timeout=10, stdin=subprocess.DEVNULL)
        m = re.search(pattern, r.stdout + r.stderr)
        return m.group(1) if m else "?"
    except (OSError, subprocess.TimeoutExpired):
        return "missing"


def fmt(v, digits=None):
    """A number for a table: `digits` decimals, or about three significant digits."""
    if v is None:
        return "-"
    if digits is not None:
        return f"{v:.{digits}f}"
    a = abs(v)
    if a >= 1000:
        return f"{v:,.0f}"
    if a >= 100:
        return f"{v:.0f}"
    if a >= 10:
        return f"{v:.1f}"
    if a >= 1:
        return f"{v:.2f}"
    return f"{v:.3f}"


# ---------------------------------------------------------------------------------------------
# Processes


class Processes:
    """Every long-running process a script starts; stop_all() ends them, each by its own process
    group (and by nothing broader). `grace`: seconds stop() waits after SIGTERM, and after
    SIGKILL, unless it is given another."""

    def __init__(self, tmp, nofile, grace):
        self.tmp = tmp
        self.nofile = nofile
        self.grace = grace
        self.procs = []

    def _preexec(self):
        resource.setrlimit(resource.RLIMIT_NOFILE, (self.nofile, self.nofile))

    def spawn(self, name, argv, pipes=False, cwd=None):
        """Starts argv in `cwd` (default tmp), in a session (and process group) of its own, with the
        descriptor limit; its output goes to tmp/NAME.log (p.logpath). With `pipes`, its stdin and
        stdout are text pipes to this process and only stderr goes to the log."""
        logpath = os.path.join(self.tmp, f"{name}.log")
        with open(logpath, "ab") as logf:
            io = ({"stdin": subprocess.PIPE, "stdout": subprocess.PIPE, "stderr": logf, "text": True}
                  if pipes else {"stdin": subprocess.DEVNULL, "stdout": logf, "stderr": subprocess.STDOUT})
            p = subprocess.Popen(argv, cwd=cwd or self.tmp, start_new_session=True, preexec_fn=self._preexec, **io)
        p.logpath = logpath
        p.name = name
        self.procs.append(p)
        return p

    def stop(self, p, grace=None):
        """SIGTERM to p's group, SIGKILL if p has not exited within the grace period; then the
        group's stragglers (an nginx worker) get 2 s more before a SIGKILL. p leaves the list."""
        grace = self.grace if grace is None else grace
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(p.pid, sig)  # its own group (start_new_session): nginx's workers too
            except (ProcessLookupError, PermissionError):
                pass
            try:
                p.wait(timeout=grace)
                break
            except subprocess.TimeoutExpired:
                continue
        if not wait_until(lambda: not group_alive(p.pid), 2.0):
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        if p in self.procs:
            self.procs.remove(p)

    def stop_all(self):
        for p in reversed(list(self.procs)):
            self.stop(p)


def finish(procs, tmp, keep_tmp):
    """The end of a run, however it ends: every process stopped, then `tmp` removed, or kept (and
    said so) when asked."""
    procs.stop_all()
    if keep_tmp:
        log(f"kept {tmp}")
    else:
        shutil.rmtree(tmp, ignore_errors=True)


def group_alive(pgid):
    try:
        os.killpg(pgid, 0)
        return True
    except (ProcessLookupError, PermissionError):
        return False


def parse_variants(parser, values):
    """--variant NAME=PATH values as {"vigil-NAME": absolute PATH}; a malformed one is the
    parser's error."""
    variants = {}
    for v in values:
        name, sep, path = v.partition("=")
        if not sep or not re.fullmatch(r"[a-z0-9][a-z0-9.-]*", name) or not path:
            parser.error(f"--variant wants NAME=PATH with NAME of [a-z0-9.-]: {v!r}")
        variants[f"vigil-{name}"] = os.path.abspath(path)
    return variants


def emit_json(result, json_out=None):
    """The run's one JSON line: printed, and written to `json_out` too when given."""
    line = json.dumps(result, separators=(",", ":"), sort_keys=True)
    if json_out:
        with open(json_out, "w") as f:
            f.write(line + "\n")
    print(line)


def run_main(main, argv):
    """Exits with main(argv); an interrupt (Ctrl-C, SIGTERM) exits 130 once every process stopped."""
    try:
        sys.exit(main(argv))
    except (KeyboardInterrupt, Stop):
        print("interrupted; every process was stopped", file=sys.stderr)
        sys.exit(130)
