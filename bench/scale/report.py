"""The tables of bench/scale: per check kind and size, vigil beside HAProxy, medians over the
rounds, the ratio vigil/HAProxy and its target."""

import statistics

from bench.benchlib import fmt

# key, title, digits, target (text) for the ratio or the figure
ROWS = [
    ("rss_mb", "RSS after the window, MB", 1, "ratio <= 0.5"),
    ("thread_cpu_pct", "checking CPU, % of a core (vigil: control thread)", 2, "ratio <= 0.8"),
    ("cpu_pct", "whole process CPU, % of a core", 2, ""),
    ("checks_per_s", "checks/s the members saw", 0, ""),
    ("members_up_end", "members up after the window", 0, "all"),
    ("new_tls_connections_per_s", "new TLS connections/s at the members", 1, ""),
    ("members_cpu_pct", "the members' CPU (sink or nginx), % of a core", 2, ""),
    ("ready_s", "start -> ready (listeners bound, API up), s", 2, ""),
    ("first_round_upper_s", "start -> first round done (polled, upper bound), s", 2, "<= 5 s"),
    ("first_round_lower_s", "  lower bound (last poll with a member unchecked), s", 2, ""),
    ("first_round_sink_s", "start -> last member's first SYN (sink, exact), s", 2, "<= 5 s"),
    ("startup_thread_cpu_s", "checking thread CPU until the first round, s", 2, ""),
    ("rss_at_ready_mb", "RSS when ready, before any status poll, MB", 1, ""),
    ("rss_at_first_round_mb", "RSS at the first round, MB", 1, ""),
    ("api_change_ms.p50", "one API change (weight), p50 ms", 2, "<= 10 ms"),
    ("api_change_ms.max", "  max ms", 2, ""),
    ("api_create_ms.p50", "one member create, p50 ms", 2, "<= 10 ms"),
    ("api_create_ms.max", "  max ms", 2, ""),
]


def value(sample, key):
    v = sample
    for part in key.split("."):
        if not isinstance(v, dict) or part not in v or v[part] is None:
            return None
        v = v[part]
    return v


def summarize(samples):
    """{key: {median, min, max, n}} over a list of measure() results."""
    out = {}
    for key, _, _, _ in ROWS:
        vals = [value(s, key) for s in samples if value(s, key) is not None]
        if vals:
            out[key] = {"median": statistics.median(vals), "min": min(vals), "max": max(vals), "n": len(vals)}
    return out


def print_table(check, lbs, summary, targets, rounds):
    print(f"\n{check.upper()} checks, {lbs:,} load balancers ({lbs:,} listeners, {3 * lbs:,} members):"
          + (" medians (min - max)" if rounds > 1 else ""))
    head = f"  {'':<56}" + "".join(f" {t:>22}" for t in targets) + f" {'vigil/haproxy':>14} {'target':>14}"
    print(head)
    for key, title, d, target in ROWS:
        cells = []
        for t in targets:
            s = summary.get(t, {}).get(key)
            if s is None:
                cells.append("-")
            elif rounds > 1 and s["n"] > 1:
                cells.append(f"{fmt(s['median'], d)} ({fmt(s['min'], d)}-{fmt(s['max'], d)})")
            else:
                cells.append(fmt(s["median"], d))
        if all(c == "-" for c in cells):
            continue
        v, h = summary.get("vigil", {}).get(key), summary.get("haproxy", {}).get(key)
        ratio = fmt(v["median"] / h["median"], 2) if v and h and h["median"] else ""
        print(f"  {title:<56}" + "".join(f" {c:>22}" for c in cells) + f" {ratio:>14} {target:>14}")


def ratios(summary):
    out = {}
    for key, _, _, _ in ROWS:
        v, h = summary.get("vigil", {}).get(key), summary.get("haproxy", {}).get(key)
        if v and h and h["median"]:
            out[key] = v["median"] / h["median"]
    return out
