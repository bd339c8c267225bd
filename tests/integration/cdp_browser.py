"""Headless Chromium driven over the DevTools protocol on a pipe (--remote-debugging-pipe: JSON
messages ending in NUL on fds 3 and 4), with the standard library only.

Chromium is kept off every network but loopback: a proxy that does not exist for anything else
and a resolver that resolves nothing, besides the switches that stop its background traffic.
Every wait is bounded."""
import base64
import json
import os
import select
import shutil
import subprocess
import time

SWITCHES = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
    "--no-default-browser-check", "--disable-extensions", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--disable-default-apps", "--no-pings",
    "--disable-domain-reliability", "--disable-client-side-phishing-detection",
    "--metrics-recording-only", "--mute-audio", "--hide-scrollbars",
    "--proxy-server=http://127.0.0.1:9", "--proxy-bypass-list=127.0.0.1",
    "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
    "--remote-debugging-pipe",
]


def find_chromium():
    return shutil.which("chromium") or shutil.which("chromium-browser")


class Chromium:
    def __init__(self, profile_dir, width=1600, height=900):
        self.to_browser_r, self.to_browser_w = os.pipe()
        self.from_browser_r, self.from_browser_w = os.pipe()
        args = [find_chromium(), *SWITCHES, f"--user-data-dir={profile_dir}",
                f"--window-size={width},{height}", "about:blank"]
        # bash (dash takes one-digit fds only) puts the pipe ends on the fds Chromium expects,
        # then becomes Chromium.
        r, w = self.to_browser_r, self.from_browser_w
        self.log = open(os.path.join(profile_dir, "chromium.log"), "w")
        self.proc = subprocess.Popen(
            ["/bin/bash", "-c", f'exec "$0" "$@" 3<&{r} 4>&{w} {r}<&- {w}>&-', *args],
            pass_fds=(r, w), stdout=self.log, stderr=subprocess.STDOUT)
        os.close(r)
        os.close(w)
        self.next_id = 0
        self.buffer = b""
        self.events = []
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.call("Target.attachToTarget",
                                 {"targetId": target, "flatten": True})["sessionId"]
        self.call("Page.enable", session=True)
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
                  session=True)

    def _read_message(self, deadline):
        while b"\0" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError("Chromium did not answer in time")
            ready, _, _ = select.select([self.from_browser_r], [], [], left)
            if ready:
                chunk = os.read(self.from_browser_r, 1 << 20)
                if not chunk:
                    raise AssertionError(f"Chromium closed its pipe (exit {self.proc.poll()})")
                self.buffer += chunk
        raw, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(raw)

    def call(self, method, params=None, session=False, timeout=15.0):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = self.session
        os.write(self.to_browser_w, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            m = self._read_message(deadline)
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise RuntimeError(f"{method}: {m['error']}")
                return m.get("result", {})
            self.events.append(m)

    def navigate(self, url):
        self.call("Page.navigate", {"url": url}, session=True)

    def evaluate(self, expression):
        """The value of a JavaScript expression in the page (DevTools is not bound by the page's
        Content-Security-Policy); None while the page is between documents."""
        try:
            r = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True},
                          session=True)
        except RuntimeError:
            return None
        if "exceptionDetails" in r:
            return None
        return r["result"].get("value")

    def wait_for(self, expression, timeout=15.0, what=None):
        deadline = time.monotonic() + timeout
        last = None
        while time.monotonic() < deadline:
            last = self.evaluate(expression)
            if last:
                return last
            time.sleep(0.05)
        raise AssertionError(f"timed out after {timeout}s waiting for {what or expression} (last: {last!r})")

    def screenshot(self, path):
        data = self.call("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True},
                         session=True)["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))

    def stop(self):
        try:
            if self.proc.poll() is None:
                self.call("Browser.close", timeout=5)
        except (AssertionError, RuntimeError, OSError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=5)
        for fd in (self.to_browser_w, self.from_browser_r):
            try:
                os.close(fd)
            except OSError:
                pass
        self.log.close()
