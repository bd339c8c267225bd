"""One measurement: a target with N load balancers, from its start to its stop.

  start-up     spawn -> ready (listeners bound, API answering), then the first completed round of
               checks: the target's own view (vigil GET /v1/status, HAProxy `show stat`) polled
               until every member has a check result, as bounds (the last poll that found one
               missing, the answer that found none); for TCP checks also the sink's view, exact:
               when the last member's first SYN arrived.
  steady       after --warmup more seconds, CPU over --duration seconds (whole process and the
               checking thread), the checks the members saw per second, RSS at the end.
  API changes  --api-changes runtime changes one after another, each timed from request to answer
               (vigil: PUT /v1/pools/P/members/M/admin, and Octavia member creates into a pool
               created through the API; HAProxy: `set server ... weight`, `add server`).
"""

import statistics
import time

from bench.benchlib import log, tail
from bench.scale.targets import start_and_wait_ready


def poll_first_round(target, timeout):
    """Polls target.checked() until every member has a result: (lower, upper) bounds in
    monotonic seconds, and the polls made. The pause between polls is twice the last poll's
    duration (at least 0.2 s), so that polling takes at most a third of the target's time."""
    deadline = time.monotonic() + timeout
    lower, polls, done, total = None, 0, 0, 0
    while time.monotonic() < deadline:
        if target.proc.poll() is not None:
            raise RuntimeError(f"{target.name} exited:\n{tail(target.proc.logpath)}")
        asked = time.monotonic()
        done, total, _ = target.checked()
        answered = time.monotonic()
        polls += 1
        if total and done == total:
            return lower if lower is not None else asked, answered, polls, done, total
        lower = asked
        time.sleep(max(0.2, 2 * (answered - asked)))
    raise RuntimeError(f"{target.name}: {done} of {total} members checked after {timeout} s")


def first_seen(records, t0_ns, members):
    """When the last of `members` members had its first check at the sink, in seconds after
    t0_ns; None when some member was not seen."""
    first = {}
    for ns, m in records:
        if ns >= t0_ns and m < members and m not in first:
            first[m] = ns
    if len(first) < members:
        return None
    return (max(first.values()) - t0_ns) / 1e9


def timed_calls(fn, count):
    """fn(i) for i < count, each returning seconds: [ms]."""
    return [1000 * fn(i) for i in range(count)]


def ms_summary(values):
    if not values:
        return None
    v = sorted(values)
    return {"p50": statistics.median(v), "p90": v[min(len(v) - 1, int(0.9 * len(v)))], "max": v[-1], "n": len(v)}


def measure(target, lbs, check, backends, args):
    """Returns a dict of figures; stops the target whatever happens."""
    members = 3 * lbs
    sink = backends.get("sink") if check == "tcp" else None
    tls = backends.get("tls") if check == "https" else None
    res = {}
    try:
        if sink:
            sink.records()  # drop what came before
        t0_ns = time.monotonic_ns()
        ready_s, t0 = start_and_wait_ready(target, args.start_timeout)
        res["ready_s"] = ready_s
        res["rss_at_ready_mb"] = target.rss_kb() / 1024  # before any status poll
        lower, upper, polls, done, total = poll_first_round(target, args.first_round_timeout)
        whole, thread = target.cpu()
        res.update(first_round_lower_s=lower - t0, first_round_upper_s=upper - t0, first_round_polls=polls,
                   members_checked=done, members_total=total, startup_cpu_s=whole, startup_thread_cpu_s=thread,
                   rss_at_first_round_mb=target.rss_kb() / 1024)
        if total != members:
            raise RuntimeError(f"{target.name} reports {total} members, the config has {members}")
        if sink:
            time.sleep(0.3)  # the sink flushes every 100 ms
            res["first_round_sink_s"] = first_seen(sink.records(), t0_ns, members)
        time.sleep(args.warmup)
        if sink:
            sink.records()
        c0 = target.cpu()
        s0 = sink.cpu() if sink else tls.cpu()
        n0 = tls.counters() if tls else None
        w0 = time.monotonic_ns()
        time.sleep(args.duration)
        w1 = time.monotonic_ns()
        c1 = target.cpu()
        s1 = sink.cpu() if sink else tls.cpu()
        secs = (w1 - w0) / 1e9
        res.update(cpu_pct=100 * (c1[0] - c0[0]) / secs, thread_cpu_pct=100 * (c1[1] - c0[1]) / secs,
                   members_cpu_pct=100 * (s1 - s0) / secs, rss_mb=target.rss_kb() / 1024, window_s=secs)
        if sink:
            time.sleep(0.3)  # the sink flushes every 100 ms
            res["checks_per_s"] = sum(1 for ns, _ in sink.records() if w0 <= ns < w1) / secs
        else:
            n1 = tls.counters()
            res["checks_per_s"] = (n1[1] - n0[1]) / secs
            res["new_tls_connections_per_s"] = (n1[0] - n0[0]) / secs
        if not target.alive():
            raise RuntimeError(f"{target.name} exited during the window:\n{tail(target.proc.logpath)}")
        res["members_up_end"] = target.checked()[2]
        res["api_change_ms"] = ms_summary(timed_calls(target.api_change, args.api_changes))
        try:
            if target.name == "vigil":
                target.octavia_setup()
            res["api_create_ms"] = ms_summary(timed_calls(lambda i: target.api_create(i, 9), args.api_changes))
        except (RuntimeError, OSError) as e:  # a reference figure: its failure is noted, not fatal
            res["api_create_error"] = str(e)[:300]
            log(f"  {target.name}: member create: {e}")
        res["rss_end_mb"] = target.rss_kb() / 1024
    finally:
        target.stop()
    return res
