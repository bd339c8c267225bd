"""The status page's Maint and Kill sessions buttons on a running vigil, through the page's own
POST path (a write session's forms, CSRF token and Origin checked): Maint puts a member in
maintenance as `vigil member maint` does; Kill sessions first answers with a confirmation form
and closes nothing, then, confirmed, closes the member's sessions as `vigil sessions kill
--member` does. Every wait is bounded."""
from status_page_setup import READ_TOKEN, Browser, start
from testing.harness.vigil_process import TOKEN, closed_by_peer, hold
from testing.harness.wait import wait_for


class Closing:
    def __init__(self, sock):
        self.sock = sock

    def stop(self):
        self.sock.close()


def test_maint_and_kill_sessions_buttons(tmp_path, cleanup):
    vigil = start(tmp_path, cleanup)
    vigil.wait_member("master-01", "ONLINE")
    vigil.wait_member("master-02", "ERROR")
    vigil.wait_member("master-03", "ONLINE")
    b = Browser(vigil)
    assert b.sign_in(TOKEN)[0] == 303
    csrf = b.csrf()
    _, _, page = b.request("GET", "/")
    assert page.count('class="maint"') == 3 and page.count('action="/page/sessions"') == 3, page

    # Maint: the member is out, as `vigil member maint` would have it.
    status, headers, body = b.request("POST", "/page/member", form={
        "csrf": csrf, "pool": "masters", "member": "master-01", "state": "maint"})
    assert status == 303 and headers["Location"] == "/", body
    m = vigil.wait_member("master-01", "OFFLINE")
    assert m["admin_override"]["state"] == "maint", m
    assert m["admin_override"]["by"] == "status page", m

    # Only master-03 takes new connections now: the session goes there.
    session = hold(vigil)
    cleanup(Closing(session))
    wait_for(lambda: vigil.members()["master-03"]["active_connections"] == 1,
             what="master-03's session counted")

    # Kill sessions asks first: a form, and nothing closed.
    form = {"csrf": csrf, "pool": "masters", "member": "master-03"}
    status, headers, confirm = b.request("POST", "/page/sessions", form=form)
    assert status == 200, confirm
    assert "default-src 'none'" in headers["Content-Security-Policy"]
    assert "Close the 1 established sessions of member <b>master-03</b>" in confirm, confirm
    assert 'name="confirm" value="yes"' in confirm
    assert vigil.members()["master-03"]["active_connections"] == 1, "asked, not yet killed"
    session.sendall(b"still here")
    assert session.recv(64) == b"still here"

    # Not from another site, nor from a read-only session.
    status, _, _ = b.request("POST", "/page/sessions", form=dict(form, confirm="yes"),
                             headers={"Origin": "http://evil.example"})
    assert status == 403
    reader = Browser(vigil)
    assert reader.sign_in(READ_TOKEN)[0] == 303
    status, _, _ = reader.request("POST", "/page/sessions",
                                  form=dict(form, csrf=reader.csrf(), confirm="yes"))
    assert status == 403
    assert vigil.members()["master-03"]["active_connections"] == 1

    # Confirmed: closed, and the browser goes back to the page.
    status, headers, body = b.request("POST", "/page/sessions", form=dict(form, confirm="yes"))
    assert status == 303 and headers["Location"] == "/", body
    session.settimeout(5)
    assert closed_by_peer(session)
    wait_for(lambda: vigil.members()["master-03"]["active_connections"] == 0,
             what="master-03's session gone")
    wait_for(lambda: "admin API: closed 1 sessions of member" in vigil.log_text(),
             what="the log line of the kill")
