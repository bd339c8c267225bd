"""The one bounded wait of the Python tests and benchmarks (the C++ one: testing/run_until.h)."""
import time


def wait_for(condition, timeout=10.0, interval=0.05, what="condition"):
    """Polls condition() until it returns a truthy value, and returns that value; raises
    AssertionError after `timeout` seconds, naming `what` and the last value condition() gave."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = condition()
        if last:
            return last
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout:g}s waiting for {what} (last: {last!r})")


def wait_until(predicate, timeout, interval=0.05):
    """Whether predicate() became true within `timeout` seconds (checked once more at the
    deadline): for a caller that acts on a timeout itself (kills, falls back, reports)."""
    deadline = time.monotonic() + timeout
    while True:
        if predicate():
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(interval)
