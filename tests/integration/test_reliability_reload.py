"""A reload cannot move the admin API or switch state files (both are taken at start-up): it says
so, in its answer and in the log, and keeps using the running ones instead of ignoring the
change in silence.
"""
import json
import signal
import urllib.request

from testing.harness.vigil_process import TOKEN, EchoServer, Vigil, pool_config
from testing.harness.wait import wait_for

_opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def post_reload(vigil):
    req = urllib.request.Request(f"http://{vigil.admin}/v1/reload", method="POST", data=b"",
                                 headers={"X-Auth-Token": TOKEN})
    with _opener.open(req, timeout=10) as r:
        return r.status, json.loads(r.read())


def with_state_file(text, state_file):
    return text.replace("  token_file: @TOKEN_FILE@\n",
                        f"  token_file: @TOKEN_FILE@\n  state_file: {state_file}\n")


def test_changing_admin_listen_or_state_file_warns_that_it_takes_a_restart(tmp_path, cleanup):
    backend = EchoServer()
    cleanup(backend)
    first_state = tmp_path / "first.json"
    text = with_state_file(pool_config("", [("m1", backend.port)]), first_state)
    vigil = Vigil(tmp_path, text)
    cleanup(vigil)
    assert post_reload(vigil) == (200, {"reloaded": True, "warnings": []})

    second_state = tmp_path / "second.json"
    moved = text.replace("listen: 127.0.0.1:0", "listen: 127.0.0.1:1").replace(
        str(first_state), str(second_state))
    vigil.config.write_text(moved.replace("@TOKEN_FILE@", str(vigil.dir / "token")))
    code, body = post_reload(vigil)
    assert code == 200
    assert body["reloaded"] is True
    assert body["warnings"] == [
        'admin.listen changed from "127.0.0.1:0" to "127.0.0.1:1": it takes a restart; '
        'still using "127.0.0.1:0"',
        f'admin.state_file changed from "{first_state}" to "{second_state}": it takes a restart; '
        f'still using "{first_state}"',
    ]
    # Still where it was, and still writing the first state file.
    assert vigil.get("/healthz", token=None) == (200, "ok\n")
    code, _ = vigil.get("/v1/status")
    assert code == 200
    vigil.proc.send_signal(signal.SIGHUP)
    wait_for(lambda: vigil.log_text().count("reload: admin.listen changed") >= 2, timeout=10,
             what="the warning logged for SIGHUP too")
    assert "reload: admin.state_file changed" in vigil.log_text()
    assert not second_state.exists()
