"""The admin credentials and the status page's sign-in on a running vigil: the read-only token
reads every GET and gets 403 for writes; the page signs in with a form and a session cookie
(HttpOnly, SameSite=Strict, not the token), signs out, and takes drain/ready only from a write
session's own forms (CSRF token and Origin checked). Every wait is bounded."""
import json
import os
import signal
import subprocess

from status_page_setup import READ_TOKEN, Browser, start
from testing.harness.paths import VIGIL
from testing.harness.vigil_process import TOKEN
from testing.harness.wait import wait_for


def test_read_token_reads_and_cannot_write(tmp_path, cleanup):
    vigil = start(tmp_path, cleanup)
    for path in ("/metrics", "/v1/status", "/v2.0/lbaas/loadbalancers", "/",
                 "/v1/pools/masters/members/master-01/admin"):
        assert vigil.get(path, token=READ_TOKEN)[0] == 200, path
    b = Browser(vigil)
    status, _, body = b.request("PUT", "/v1/pools/masters/members/master-01/admin",
                                headers={"X-Auth-Token": READ_TOKEN, "Content-Type": "application/json"})
    assert status == 403
    assert "read-only token" in json.loads(body)["faultstring"]
    status, _, _ = b.request("POST", "/v1/reload", headers={"X-Auth-Token": READ_TOKEN})
    assert status == 403
    # The CLI's read verbs take it too.
    env = dict(os.environ, VIGIL_ADMIN=f"http://{vigil.admin}", VIGIL_TOKEN=READ_TOKEN)
    done = subprocess.run([str(VIGIL), "members", "--json"], capture_output=True, text=True,
                          timeout=20, env=env)
    assert done.returncode == 0, done.stderr
    assert {m["name"] for m in json.loads(done.stdout)} == {"master-01", "master-02", "master-03"}
    # The read token's file is world-readable here (the write token's is 0600): said once, at start.
    log = vigil.log_text()
    assert log.count("admin.read_token_file: ") == 1, log
    assert "has mode 0644: group and others can read it" in log
    assert "admin.token_file: " not in log


def test_sign_in_cookie_and_sign_out(tmp_path, cleanup):
    vigil = start(tmp_path, cleanup)
    b = Browser(vigil)
    status, headers, _ = b.request("GET", "/")
    assert status == 303 and headers["Location"] == "/login"
    status, _, form = b.request("GET", "/login")
    assert status == 200 and 'action="/login"' in form
    assert b.sign_in("wrong")[0] == 401
    assert b.cookie is None
    status, headers, _ = b.sign_in(READ_TOKEN)
    assert status == 303 and headers["Location"] == "/"
    set_cookie = headers["Set-Cookie"]
    assert "HttpOnly" in set_cookie and "SameSite=Strict" in set_cookie and "Path=/" in set_cookie
    assert READ_TOKEN not in set_cookie and TOKEN not in set_cookie
    status, headers, page = b.request("GET", "/")
    assert status == 200
    assert "default-src 'none'" in headers["Content-Security-Policy"]
    assert "signed in with the read-only token" in page
    assert "/page/member" not in page
    csrf = b.csrf()
    status, _, _ = b.request("POST", "/logout", form={"csrf": csrf})
    assert status == 303 and b.cookie is None
    assert b.request("GET", "/")[0] == 303


def test_write_session_buttons_and_csrf(tmp_path, cleanup):
    vigil = start(tmp_path, cleanup)
    vigil.wait_member("master-01", "ONLINE")
    b = Browser(vigil)
    b.sign_in(TOKEN)
    csrf = b.csrf()
    status = vigil.status()
    pool = status["pools"][0]
    member = next(m for m in pool["members"] if m["name"] == "master-01")
    form = {"pool": pool["id"], "member": member["id"], "state": "drain"}
    # Another site's page posting the same form: refused, with or without our token.
    assert b.request("POST", "/page/member", form=dict(form, csrf=csrf),
                     headers={"Origin": "http://evil.example"})[0] == 403
    assert b.request("POST", "/page/member", form=dict(form, csrf=csrf),
                     headers={"Sec-Fetch-Site": "cross-site"})[0] == 403
    assert b.request("POST", "/page/member", form=dict(form, csrf="0" * 64))[0] == 403
    assert b.request("POST", "/page/member", form=form)[0] == 403
    assert vigil.members()["master-01"]["operating_status"] == "ONLINE"
    status, headers, _ = b.request("POST", "/page/member", form=dict(form, csrf=csrf))
    assert status == 303 and headers["Location"] == "/"
    vigil.wait_member("master-01", "DRAINING")
    page = b.request("GET", "/")[2]
    assert "drain, set" in page and "by status page" in page
    status, _, _ = b.request("POST", "/page/member", form=dict(form, csrf=csrf, state="ready"))
    assert status == 303
    vigil.wait_member("master-01", "ONLINE")
    wait_for(lambda: "page/member" in b.request("GET", "/")[2], what="the buttons still there")


def test_a_reload_rotates_the_read_token_and_signs_browsers_out(tmp_path, cleanup):
    vigil = start(tmp_path, cleanup)
    b = Browser(vigil)
    b.sign_in(READ_TOKEN)
    assert b.request("GET", "/")[0] == 200
    new = tmp_path / "read-token.new"
    new.write_text("rotated-read-token\n")
    new.chmod(0o600)
    new.replace(tmp_path / "read-token")
    vigil.proc.send_signal(signal.SIGHUP)
    wait_for(lambda: vigil.get("/v1/status", token="rotated-read-token")[0] == 200,
             what="the new read token")
    assert vigil.get("/v1/status", token=READ_TOKEN)[0] == 401
    assert vigil.get("/v1/status")[0] == 200, "the write token did not change"
    assert b.request("GET", "/")[0] == 303, "the old session is gone"
    # The same files named again: no second warning.
    assert vigil.log_text().count("admin.read_token_file: ") == 1


def test_wrong_tokens_at_login_are_throttled_per_source_and_a_short_token_is_warned(tmp_path, cleanup):
    vigil = start(tmp_path, cleanup, read_token="short")
    log = vigil.log_text()
    assert "admin.read_token_file: the token in" in log and "is 5 characters long" in log, log
    b = Browser(vigil)
    for i in range(5):
        status, headers, _ = b.sign_in(f"guess-{i}")
        assert status == 401, i
        assert headers["X-Content-Type-Options"] == "nosniff"
        assert headers["X-Frame-Options"] == "DENY"
    assert b.sign_in("guess-5")[0] == 401  # the sixth: from now on each attempt waits
    status, headers, page = b.sign_in("short")  # the right token, but not checked yet
    assert status == 429 and b.cookie is None
    assert 1 <= int(headers["Retry-After"]) <= 2
    assert "too many wrong tokens from your address" in page
    # One log line for the episode, none per guess.
    wait_for(lambda: "6 wrong tokens at /login from 127.0.0.1" in vigil.log_text(), 5,
             what="the throttle's log line")
    assert vigil.log_text().count("wrong tokens at /login") == 1
    # The API's own answers carry the headers too.
    status, headers, _ = b.request("GET", "/v1/status", headers={"X-Auth-Token": TOKEN})
    assert status == 200 and headers["X-Content-Type-Options"] == "nosniff"
    # Once the wait is over, the right token is checked and signs in.
    wait_for(lambda: b.sign_in("short")[0] == 303, 5, interval=0.5,
             what="a sign-in once the wait is over")
