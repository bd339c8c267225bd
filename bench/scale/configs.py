"""The same N load balancers for vigil (YAML) and HAProxy (haproxy.cfg): load balancer i is one
listener on 127.2.X.Y:PORT (one address per listener, so that ten thousand listeners need one
free port, not ten thousand) with a pool of three members 127.0.X.Y (member 3i, 3i+1, 3i+2),
checked by TCP or HTTPS GET /readyz every `interval` seconds.
"""

from pathlib import Path

HOST = "127.0.0.1"
MEMBERS_PER_LB = 3
MAX_LBS = 250 * 254 // MEMBERS_PER_LB  # the member addresses 127.0.1.1 ... 127.0.254.250


def member_address(i):
    """127.0.1.1, 127.0.1.2, ...: .0 and .255 skipped; bench/healthcheck's sink.c listens on
    exactly these (its member_addr())."""
    return f"127.0.{1 + i // 250}.{1 + i % 250}"


def listener_address(i):
    """127.2.1.1, 127.2.1.2, ...: one address per listener."""
    return f"127.2.{1 + i // 250}.{1 + i % 250}"


def members_of(lb):
    return range(lb * MEMBERS_PER_LB, (lb + 1) * MEMBERS_PER_LB)


def vigil_config(path, lbs, check, interval, listen_port, member_port, tmp, workers):
    """vigil YAML: listener lbI -> pool lbI with members mJ."""
    if check == "tcp":
        monitor = f"{{type: TCP, interval: {interval}s, fast_interval: {interval}s, timeout: 2s}}"
    else:
        monitor = (f"{{type: HTTPS, path: /readyz, interval: {interval}s, fast_interval: {interval}s, "
                   "timeout: 2s, tls: {verify: false}}")
    out = [f'admin: {{listen: "{HOST}:0", token_file: {tmp}/token, state_file: {tmp}/vigil-state.json}}',
           f"workers: {workers}", "listeners:"]
    out += [f'  - {{name: lb{i}, bind: "{listener_address(i)}:{listen_port}", pool: lb{i}, max_connections: 100}}'
            for i in range(lbs)]
    out.append("pools:")
    for i in range(lbs):
        out += [f"  - name: lb{i}", f"    health_monitor: {monitor}", "    members:"]
        out += [f"      - {{name: m{j}, address: {member_address(j)}, port: {member_port}}}" for j in members_of(i)]
    Path(path).write_text("\n".join(out) + "\n")


def haproxy_config(path, lbs, check, interval, listen_port, member_port, stats_socket, threads, ulimit_n):
    """haproxy.cfg: `listen lbI` with the same bind and servers; HTTPS: option httpchk over
    check-ssl, verify none, as Octavia's amphora template writes it for an HTTPS monitor."""
    out = ["global",
           f"    nbthread {threads}",
           "    maxconn 2000",
           # HAProxy reserves a descriptor per checked server besides 2 x maxconn and the
           # listeners; at 30,000 servers more than a hard limit of 20,000 allows. Its checks
           # are short, so that many are never open at once: with strict limits off it runs
           # with a warning.
           f"    ulimit-n {ulimit_n}",
           "    no strict-limits",
           f"    stats socket {stats_socket} mode 600 level admin",
           "",
           "defaults",
           "    mode tcp",
           "    timeout connect 2s",
           "    timeout check 2s",
           "    timeout client 1m",
           "    timeout server 1m",
           "    maxconn 100"]
    server_check = f"check inter {interval}s" + (" check-ssl verify none" if check == "https" else "")
    for i in range(lbs):
        out += ["", f"listen lb{i}", f"    bind {listener_address(i)}:{listen_port}"]
        if check == "https":
            out += ["    option httpchk", "    http-check send meth GET uri /readyz"]
        out += [f"    server m{j} {member_address(j)}:{member_port} {server_check}" for j in members_of(i)]
    Path(path).write_text("\n".join(out) + "\n")
