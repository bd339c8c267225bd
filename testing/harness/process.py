"""Stopping a process the tests or the benchmarks started."""
import subprocess


def stop(proc, timeout=10):
    """SIGTERM, then SIGKILL when `proc` has not exited within `timeout` seconds; nothing when it
    is None or has exited already."""
    if proc is not None and proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)
