"""The soak's figures: requests (failed at a kill or beyond), fd and RSS over time, per-minute
counts, members marked down while healthy; printed as tables, then one JSON line."""

import json
import re
from datetime import datetime, timezone

DOWN_LINE = re.compile(r"^(\S+Z) \w+ pool (\S+) member (\S+) \S+ DOWN: (.*)$")


def slope_per_hour(samples):
    """Least-squares slope of (t seconds, v) pairs, per hour; None for fewer than 2 samples."""
    if len(samples) < 2:
        return None
    n = len(samples)
    mt = sum(t for t, _ in samples) / n
    mv = sum(v for _, v in samples) / n
    var = sum((t - mt) ** 2 for t, _ in samples)
    if var == 0:
        return None
    return sum((t - mt) * (v - mv) for t, v in samples) / var * 3600


def series(samples, key):
    """min/max/first/last of one sampled quantity, and its slope over the samples taken outside
    a flood (a flood raises the fd count on purpose for a few seconds)."""
    values = [s[key] for s in samples if s.get(key) is not None]
    quiet = [(s["t"], s[key]) for s in samples if s.get(key) is not None and not s["flood"]]
    if not values:
        return {"n": 0}
    slope = slope_per_hour(quiet)
    return {"n": len(values), "min": min(values), "max": max(values), "first": values[0],
            "last": values[-1], "quiet_first": quiet[0][1] if quiet else None,
            "quiet_last": quiet[-1][1] if quiet else None,
            "slope_per_hour": None if slope is None else round(slope, 2)}


def down_events(log_path, since):
    """(time, pool, member, reason) of each DOWN transition vigil logged after `since`."""
    out = []
    with open(log_path, errors="replace") as f:
        for line in f:
            m = DOWN_LINE.match(line.rstrip())
            if not m:
                continue
            t = datetime.strptime(m.group(1), "%Y-%m-%dT%H:%M:%S.%fZ").replace(
                tzinfo=timezone.utc).timestamp()
            if t >= since:
                out.append((t, m.group(2), m.group(3), m.group(4)))
    return out


def down_while_healthy(events, outages, slack=1.0):
    """The DOWN events that fall outside every outage [kill, back listening] of their member
    (with `slack` seconds either side for the clocks of two processes)."""
    bad = []
    for t, _, member, reason in events:
        if not any(m == member and k - slack <= t <= b + slack for m, k, b in outages):
            bad.append({"t": t, "member": member, "reason": reason})
    return bad


def requests(done, kills):
    """Totals, and the failures split into those of requests in flight at a kill instant and the
    rest."""
    at_kill = set()
    for k in kills:
        at_kill |= k["in_flight_ids"]
    failed = [d for d in done if not d[2]]
    failed_at_kill = [d for d in failed if d[5] in at_kill]
    beyond = [d for d in failed if d[5] not in at_kill]
    lat = sorted((d[1] - d[0]) * 1000 for d in done if d[2])
    pick = lambda p: round(lat[min(len(lat) - 1, int(p * len(lat)))], 2) if lat else None  # noqa: E731
    kill_times = sorted(k["t"] for k in kills)

    def since_kill(t):
        before = [k for k in kill_times if k <= t]
        return t - before[-1] if before else None
    soon = [d for d in beyond if (since_kill(d[0]) is not None and since_kill(d[0]) < 3.0)]
    errors = {}
    for d in beyond:
        key = re.sub(r"\d+", "N", d[4] or "")[:80]
        errors[key] = errors.get(key, 0) + 1
    return {"total": len(done), "ok": len(done) - len(failed), "failed": len(failed),
            "failed_in_flight_at_kill": len(failed_at_kill), "failed_beyond": len(beyond),
            "beyond_within_3s_of_a_kill": len(soon),
            "beyond_errors": errors, "p50_ms": pick(0.5), "p99_ms": pick(0.99),
            "max_ms": round(lat[-1], 2) if lat else None}


def per_minute(done, t0):
    rows = {}
    for start, end, ok, *_ in done:
        m = int((end - t0) // 60)
        r = rows.setdefault(m, [0, 0])
        r[0 if ok else 1] += 1
    return [{"minute": m, "ok": rows[m][0], "failed": rows[m][1]} for m in sorted(rows)]


def print_report(result):
    r = result["requests"]
    print(f"\nvigil soak: {result['minutes']} minutes, {result['machine']}, "
          f"load average {result['load_first']} at the start, {result['load_last']} at the end")
    print(f"requests {r['total']:,}: ok {r['ok']:,}, failed {r['failed']} "
          f"({r['failed_in_flight_at_kill']} in flight at a kill, {r['failed_beyond']} beyond); "
          f"kept-alive connections found closed after a kill and retried: {result['stale_retries']}")
    print(f"latency ok: p50 {r['p50_ms']} ms, p99 {r['p99_ms']} ms, max {r['max_ms']} ms")
    print(f"  beyond, started within 3 s after a kill: {r['beyond_within_3s_of_a_kill']}")
    for err, n in sorted(r["beyond_errors"].items(), key=lambda x: -x[1])[:8]:
        print(f"  beyond: {n} x {err}")
    print(f"\n{'kill':>4} {'member':8} {'sessions':>8} {'in flight':>9} {'on it':>6} "
          f"{'failed':>6} {'down after s':>12} {'back after s':>12}")
    for i, k in enumerate(result["kills"]):
        print(f"{i + 1:>4} {k['member']:8} {k['sessions_on_member']:>8} {k['in_flight']:>9} "
              f"{k['in_flight_on_member']:>6} {k['failed']:>6} "
              f"{k['marked_down_after_s'] if k['marked_down_after_s'] is not None else '-':>12} "
              f"{k['up_after_s'] if k['up_after_s'] is not None else '-':>12}")
    for name, unit in (("fds", ""), ("rss_mb", " MB")):
        s = result[name]
        if s.get("n"):
            print(f"{name:7} min {s['min']}{unit}, max {s['max']}{unit}, first {s['first']}{unit}, "
                  f"last {s['last']}{unit}; outside floods {s['quiet_first']} -> {s['quiet_last']}, "
                  f"slope {s['slope_per_hour']}{unit}/h ({s['n']} samples)")
    print(f"reloads {result['reloads']['sent']} (failed {result['reloads']['failed']}, "
          f"{result['reloads']['applied']} logged as applied), "
          f"API changes {result['api_changes']['sent']} (failed {result['api_changes']['failed']})")
    for f in result["floods"]:
        print(f"flood: {f['connected']}/{f['connections']} connected in {f['open_seconds']} s, "
              f"{f['closed_by_vigil']} closed by vigil (over the limit), {f['open_at_end']} held; "
              f"vigil fds at peak {f.get('fds_peak')}, members up during it {f.get('members_up_min')}")
    bad = result["down_while_healthy"]
    print(f"members marked down while healthy: {len(bad)}")
    for b in bad[:10]:
        print(f"  {datetime.fromtimestamp(b['t'], timezone.utc):%H:%M:%S} {b['member']}: {b['reason']}")
    print(f"\n{'minute':>6} {'ok':>8} {'failed':>6}")
    for row in result["per_minute"]:
        print(f"{row['minute']:>6} {row['ok']:>8} {row['failed']:>6}")
    print(json.dumps(result))
