"""The status page in headless Chromium: a browser opens the page, is sent to the sign-in form,
signs in with the read-only token, and sees every member's row with its state, the sparklines
(inline SVG) and no buttons; the script of the page cannot read the session cookie (HttpOnly).
Signed out and in again with the write token it gets drain/maint/kill-sessions buttons, and a
click drains a member. Screenshots of both are left in the test's directory (and in $VIGIL_SCREENSHOTS when
set). Every wait is bounded."""
import json
import os
import shutil

import pytest

from cdp_browser import Chromium, find_chromium
from status_page_setup import READ_TOKEN, start
from testing.harness.vigil_process import TOKEN

pytestmark = pytest.mark.skipif(find_chromium() is None,
                                reason="chromium is not installed (scripts/setup.sh --tests)")

ROWS = """JSON.stringify([...document.querySelectorAll('tr.member')].map(r => ({
  name: r.dataset.member, status: r.dataset.status,
  duration: r.querySelectorAll('svg.spark.duration').length,
  state: r.querySelectorAll('svg.spark.state rect').length,
  lines: r.querySelectorAll('svg.spark.duration polyline').length,
  buttons: [...r.querySelectorAll('form button')].map(b => b.textContent)})))"""


def sign_in(browser, base, token):
    browser.navigate(base + "/")
    browser.wait_for("location.pathname === '/login' && !!document.getElementById('token')",
                     what="the sign-in form")
    browser.evaluate(f"document.getElementById('token').value = {json.dumps(token)};"
                     "document.querySelector('form button[type=submit]').click(); true")
    browser.wait_for("location.pathname === '/' && document.querySelectorAll('tr.member').length === 3",
                     what="the status page after signing in")


def rows(browser):
    return {r["name"]: r for r in json.loads(browser.evaluate(ROWS))}


def keep(path):
    where = os.environ.get("VIGIL_SCREENSHOTS")
    if where:
        os.makedirs(where, exist_ok=True)
        shutil.copy(path, where)


def test_status_page_in_chromium(tmp_path, cleanup):
    vigil = start(tmp_path, cleanup)
    vigil.wait_member("master-01", "ONLINE")
    vigil.wait_member("master-02", "ERROR")
    vigil.wait_member("master-03", "ONLINE")
    profile = tmp_path / "chromium"
    profile.mkdir()
    browser = Chromium(str(profile), width=1900, height=800)
    cleanup(browser)
    base = f"http://{vigil.admin}"

    sign_in(browser, base, READ_TOKEN)
    seen = rows(browser)
    assert {n: r["status"] for n, r in seen.items()} == {
        "master-01": "ONLINE", "master-02": "ERROR", "master-03": "ONLINE"}
    for name, r in seen.items():
        assert r["duration"] == 1 and r["state"] == 60, (name, r)
        assert r["lines"] >= 1, (name, r)  # checked within the minute: a line to draw
        assert r["buttons"] == [], (name, r)
    assert browser.evaluate("document.cookie") == "", "the session cookie is HttpOnly"
    assert "read-only" in browser.evaluate("document.getElementById('who').textContent")
    assert browser.evaluate("document.scripts.length") == 0
    read_shot = tmp_path / "status_page_read.png"
    browser.screenshot(str(read_shot))
    keep(read_shot)

    browser.evaluate("document.getElementById('logout').click(); true")
    browser.wait_for("location.pathname === '/login'", what="the sign-in form after signing out")
    sign_in(browser, base, TOKEN)
    seen = rows(browser)
    assert all(r["buttons"] == ["Drain", "Maint", "Kill sessions"] for r in seen.values()), seen
    browser.evaluate("document.querySelector('tr[data-member=\"master-01\"] button.drain').click(); true")
    browser.wait_for("document.querySelector('tr[data-member=\"master-01\"]')?.dataset.status === 'DRAINING'",
                     what="master-01 drained by its button")
    assert vigil.members()["master-01"]["operating_status"] == "DRAINING"
    assert rows(browser)["master-01"]["buttons"] == ["Maint", "Ready", "Kill sessions"]
    write_shot = tmp_path / "status_page_write.png"
    browser.screenshot(str(write_shot))
    keep(write_shot)
    assert read_shot.stat().st_size > 10_000 and write_shot.stat().st_size > 10_000


@pytest.mark.parametrize("width", [1366, 1920])
def test_the_page_fits_a_laptop_screen_with_the_buttons_in_view(tmp_path, cleanup, width):
    """What is watched during a drain (sessions, failed connects, the Drain/Maint/Ready and Kill
    sessions buttons, Sign out) is on screen at 1,366 pixels, the commonest laptop width, without
    scrolling sideways."""
    vigil = start(tmp_path, cleanup)
    vigil.wait_member("master-02", "ERROR")
    profile = tmp_path / "chromium"
    profile.mkdir()
    browser = Chromium(str(profile), width=width, height=800)
    cleanup(browser)
    sign_in(browser, f"http://{vigil.admin}", TOKEN)
    assert browser.evaluate("document.documentElement.scrollWidth") <= width
    right = json.loads(browser.evaluate(
        "JSON.stringify([...document.querySelectorAll('tr.member button, #logout')]"
        ".map(b => Math.ceil(b.getBoundingClientRect().right)))"))
    assert len(right) == 3 * 3 + 1 and max(right) <= width, right
    shot = tmp_path / f"status_page_{width}.png"
    browser.screenshot(str(shot))
    keep(shot)
    assert shot.stat().st_size > 10_000
