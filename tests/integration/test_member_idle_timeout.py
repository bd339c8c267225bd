"""A listener's `member_idle_timeout` (Octavia's timeout_member_data) closes a session whose
member side is idle, well before `idle_timeout`; a reload applies it to new sessions."""
import time

from testing.harness.octavia_api import raw
from testing.harness.vigil_process import closed_by_peer, hold, pool_config, start_with_two_echo_members


def config(b1, b2):
    return pool_config("    health_monitor: {type: TCP, interval: 200ms, fast_interval: 100ms}",
                       [("master-01", b1.port), ("master-02", b2.port)])


def idle_lifetime(vigil):
    """How long a session that stops moving bytes stays open (at most about 5 s: the recv's
    timeout, which raises instead)."""
    s = hold(vigil)
    started = time.monotonic()
    try:
        assert closed_by_peer(s)  # blocks until vigil closes it
        return time.monotonic() - started
    finally:
        s.close()


def test_member_idle_timeout_closes_idle_sessions_and_reloads(tmp_path, cleanup):
    vigil, _, _ = start_with_two_echo_members(tmp_path, cleanup, config)
    text = vigil.config.read_text()
    vigil.config.write_text(text.replace("pool: masters}", "pool: masters, member_idle_timeout: 300ms}"))
    code, body = raw(vigil, "POST", "/v1/reload")
    assert code == 200, body
    assert idle_lifetime(vigil) < 3  # idle_timeout is 1h

    vigil.config.write_text(text.replace("pool: masters}", "pool: masters, member_idle_timeout: 50}"))
    code, body = raw(vigil, "POST", "/v1/reload")
    assert code == 409, body
    assert "member_idle_timeout: invalid duration \"50\"" in str(body), body
