#!/usr/bin/env python3
"""Loads gridvec's dashboard in a real headless Chromium and checks its DOM.

Drives Chromium over the DevTools protocol on a pipe (--remote-debugging-pipe:
JSON messages separated by NUL bytes on file descriptors 3 and 4), so it needs
only Python's standard library. The token is typed into the page's login form
(Input.insertText), as a person would; it never goes into a URL.

Usage:
  dashboard_browser.py URL --expect-login [--screenshot PNG]
      without a token: the login form shows, and no data of the cluster
  dashboard_browser.py URL --token-file FILE --nodes N [--screenshot PNG] [--query WORD]
      with the token: progress advances, one row per config node, the loss
      chart has points, the nearest-neighbours box answers WORD (--query),
      the tables card lists a table (--table), a node shows a state
      (--node-state NODE=STATE), an event line says something (--event TEXT)
Exits 0 when every check passes; prints one line per check.
"""
import argparse
import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time


class Browser:
    def __init__(self, width, height):
        exe = shutil.which("chromium") or shutil.which("chromium-browser")
        if not exe:
            sys.exit("FAIL: no chromium on PATH (scripts/install-deps.sh installs Debian's chromium)")
        self.profile = tempfile.mkdtemp(prefix="gridvec-chromium-")
        to_browser_r, self.to_browser = os.pipe()
        self.from_browser, from_browser_w = os.pipe()
        # The browser's ends above 9, so that bash below can put them
        # at 3 and 4 whatever numbers the pipes got here.
        high_r = fcntl.fcntl(to_browser_r, fcntl.F_DUPFD, 10)
        high_w = fcntl.fcntl(from_browser_w, fcntl.F_DUPFD, 10)
        for fd in (to_browser_r, from_browser_w):
            os.close(fd)
        args = [exe, "--headless=new", "--remote-debugging-pipe", "--disable-gpu", "--no-first-run",
                "--no-default-browser-check", "--disable-extensions", "--disable-background-networking",
                "--disable-sync", "--mute-audio", "--hide-scrollbars", "--user-data-dir=" + self.profile,
                f"--window-size={width},{height}", "about:blank"]
        if os.geteuid() == 0:
            args.insert(1, "--no-sandbox")  # Chromium refuses to run as root with its sandbox
        # The protocol's descriptors: 3 the browser reads, 4 it writes.
        shell = f'exec 3<&{high_r} 4>&{high_w} {high_r}<&- {high_w}>&-; exec "$0" "$@"'
        self.proc = subprocess.Popen(["/bin/bash", "-c", shell] + args, pass_fds=(high_r, high_w),
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(high_r)
        os.close(high_w)
        self.buffer = b""
        self.next_id = 0
        self.session = None
        try:
            target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
            self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
            self.call("Page.enable")
            self.call("Runtime.enable")
        except Exception as e:
            self.close()
            fail(f"chromium did not start its DevTools session: {e}")

    def call(self, method, params=None, timeout=30):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if self.session and not method.startswith("Target."):
            message["sessionId"] = self.session
        os.write(self.to_browser, json.dumps(message).encode() + b"\0")
        deadline = time.time() + timeout
        while True:
            while b"\0" not in self.buffer:
                left = deadline - time.time()
                if left <= 0 or not select.select([self.from_browser], [], [], left)[0]:
                    raise TimeoutError(f"no answer to {method} in {timeout} s")
                chunk = os.read(self.from_browser, 1 << 20)
                if not chunk:
                    raise RuntimeError("chromium closed the DevTools pipe")
                self.buffer += chunk
            raw, self.buffer = self.buffer.split(b"\0", 1)
            reply = json.loads(raw)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})

    def js(self, expression):
        """The value of a JavaScript expression in the page (awaited if a promise)."""
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                                "awaitPromise": True})
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def define_helpers(self):
        # shown(id): whether the element is rendered (not only without `hidden`).
        self.js("window.shown = (id) => { const e = document.getElementById(id); "
                "return !!e && getComputedStyle(e).display !== 'none' && e.getClientRects().length > 0; }")

    def wait_for(self, expression, seconds, what):
        deadline = time.time() + seconds
        while time.time() < deadline:
            value = self.js(expression)
            if value:
                return value
            time.sleep(0.2)
        fail(f"{what} (waited {seconds} s for: {expression})")

    def screenshot(self, path):
        # The whole page, however long: the viewport grows to its height first.
        width = self.js("document.documentElement.clientWidth")
        height = self.js("Math.ceil(document.documentElement.scrollHeight)")
        self.call("Emulation.setDeviceMetricsOverride", {"width": width, "height": height, "deviceScaleFactor": 1,
                                                         "mobile": False})
        time.sleep(0.5)
        data = self.call("Page.captureScreenshot", {"format": "png"})["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))

    def close(self):
        try:
            self.call("Browser.close", timeout=5)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        shutil.rmtree(self.profile, ignore_errors=True)


def fail(line):
    print("FAIL: " + line, file=sys.stderr)
    raise SystemExit(1)


def ok(line):
    print("ok: " + line, flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("url")
    ap.add_argument("--expect-login", action="store_true")
    ap.add_argument("--token-file")
    ap.add_argument("--nodes", type=int, default=0)
    ap.add_argument("--query")
    ap.add_argument("--table", help="a parameter-server table the tables card must list")
    ap.add_argument("--node-state", action="append", default=[], help="NODE=STATE the nodes card must show")
    ap.add_argument("--event", help="text an event line must contain")
    ap.add_argument("--screenshot")
    ap.add_argument("--width", type=int, default=1280)
    ap.add_argument("--height", type=int, default=1500)
    a = ap.parse_args()

    b = Browser(a.width, a.height)
    try:
        b.call("Page.navigate", {"url": a.url})
        b.wait_for("document.readyState === 'complete' && !!document.getElementById('login')", 30,
                   "the page did not load")
        b.define_helpers()
        ok("the page loaded from " + a.url)
        if a.expect_login:
            b.wait_for("shown('login')", 15, "the login form did not show")
            time.sleep(3)  # what a refresh would have filled, had the page any data
            state = b.js("""({
                login: shown('login'),
                dashboard: shown('dashboard'),
                nodes: document.querySelectorAll('#nodes tbody tr').length,
                figures: document.querySelectorAll('#job-figures dd').length,
                events: document.querySelectorAll('#events li').length,
                points: Number(document.getElementById('loss-chart').dataset.points || 0),
                title: document.getElementById('job-title').textContent,
                stored: sessionStorage.length })""")
            if not state["login"] or state["dashboard"]:
                fail(f"without a token the page shows its data: {state}")
            if state["nodes"] or state["figures"] or state["events"] or state["points"] or state["title"]:
                fail(f"without a token the page holds data of the cluster: {state}")
            ok(f"without a token: the login form, and no data ({state})")
            if a.screenshot:
                b.screenshot(a.screenshot)
            return

        token = open(a.token_file).read().strip()
        b.wait_for("shown('login')", 15, "the login form did not show")
        b.js("document.getElementById('token').focus()")
        b.call("Input.insertText", {"text": token})
        b.js("document.querySelector('#login-form button[type=submit]').click()")
        b.wait_for("shown('dashboard')", 15, "the token did not open the dashboard")
        if token in b.js("location.href"):
            fail("the token is in the page's URL")
        if b.js(f"sessionStorage.getItem('gridvec.http-token') === {json.dumps(token)}") is not True:
            fail("the token is not kept in the session storage")
        ok("typed the token into the form: the dashboard opened; the token is in sessionStorage, not the URL")

        progress = "Number(document.getElementById('progress-bar').dataset.progress || 0)"
        first = b.wait_for(f"{progress} > 0 && {progress}", 30, "no progress shown")
        b.wait_for(f"{progress} > {first}", 30, f"progress did not advance past {first}")
        second = b.js(progress)
        ok(f"progress advanced: {first:.3f} -> {second:.3f}")
        rows = b.wait_for(f"document.querySelectorAll('#nodes tbody tr[data-node]').length === {a.nodes} && "
                          "[...document.querySelectorAll('#nodes tbody tr[data-node]')].map(r => r.dataset.node)",
                          30, f"the nodes table does not list {a.nodes} nodes")
        ok(f"one row per config node: {rows}")
        points = b.wait_for("Number(document.getElementById('loss-chart').dataset.points) > 1 && "
                            "[...document.querySelectorAll('#loss-chart polyline')]"
                            ".reduce((n, l) => n + l.getAttribute('points').split(' ').length, 0)",
                            30, "the loss chart has no points")
        ok(f"the loss chart has {points} points")
        b.wait_for("Number(document.getElementById('rate-chart').dataset.points) > 1", 10,
                   "the words/s chart has no points")
        b.wait_for("document.querySelectorAll('#shards tbody tr').length > 0 && "
                   "document.querySelectorAll('#learners tbody tr').length > 0", 20, "no shards or learners listed")
        events = b.wait_for("[...document.querySelectorAll('#events .text')].map(e => e.textContent)"
                            ".filter(t => /started/.test(t)).length > 0 && "
                            "document.querySelectorAll('#events li').length", 20, "no 'job started' event")
        ok(f"shards, learners and {events} event lines listed")
        for pair in a.node_state:
            node, state = pair.split("=", 1)
            b.wait_for(f"[...document.querySelectorAll('#nodes tbody tr[data-node]')].some(r => "
                       f"r.dataset.node === {json.dumps(node)} && r.querySelector('.badge').textContent === "
                       f"{json.dumps(state)})", 20, f"node {node} is not shown {state}")
            ok(f"node {node} is shown {state}")
        if a.event:
            b.wait_for(f"[...document.querySelectorAll('#events .text')].some(e => e.textContent.includes("
                       f"{json.dumps(a.event)}))", 20, f"no event line with '{a.event}'")
            ok(f"an event line says '{a.event}'")
        if a.table:
            b.wait_for(f"[...document.querySelectorAll('#tables tbody td:first-child')]"
                       f".some(td => td.textContent === {json.dumps(a.table)})", 20, f"table {a.table} not listed")
            ok(f"the tables card lists {a.table}")
        if a.query:
            b.js(f"document.getElementById('nearest-word').value = {json.dumps(a.query)}")
            b.js("document.querySelector('#nearest-form button').click()")
            words = b.wait_for("document.querySelectorAll('#query-results li').length > 0 && "
                               "[...document.querySelectorAll('#query-results li span:first-child')]"
                               ".map(e => e.textContent)", 60, f"no neighbours of {a.query}")
            ok(f"nearest to {a.query}: {words[:5]}")
        if a.screenshot:
            time.sleep(1)
            b.js("document.getElementById('events').scrollTop = 1e9")
            b.screenshot(a.screenshot)
            ok(f"screenshot: {a.screenshot} ({os.path.getsize(a.screenshot)} bytes)")
    finally:
        b.close()


if __name__ == "__main__":
    main()
