# The course.site test's tools (grader/site/): headless Chromium driven over WebDriver, and a PNG reader.
"""Headless Chromium driven over WebDriver, and a PNG reader: the tools of site_test.py.

Browser starts Debian's chromedriver on a free local port and speaks its W3C WebDriver
protocol over plain HTTP (urllib), with no network for the pages (every host name resolves
to nothing); png_pixels and ink read Chromium's screenshots with zlib and struct only.
"""

import base64
import json
import socket
import struct
import subprocess
import time
import urllib.error
import urllib.request
import zlib

SCREEN = (1280, 900)  # the browser window; the page's viewport is what is left of it


def png_pixels(data):
    """(width, height, rows of RGB(A) bytes) of an 8-bit, non-interlaced RGB or RGBA PNG."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, header = 8, [], None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if zlib.crc32(kind + body) != struct.unpack(">I", data[pos + 8 + n:pos + 12 + n])[0]:
            raise ValueError(f"bad CRC in chunk {kind!r}")
        pos += 12 + n
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
    w, h, depth, colour, _, _, interlace = header
    if depth != 8 or colour not in (2, 6) or interlace:
        raise ValueError(f"unsupported PNG: depth {depth}, colour type {colour}, interlace {interlace}")
    bpp = 3 if colour == 2 else 4
    raw = zlib.decompress(b"".join(idat))
    stride = w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if f == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 255
        elif f == 2:
            line = bytearray((a + b) & 255 for a, b in zip(line, prev))
        elif f == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 255
        elif f == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b = prev[i]
                c = prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        elif f != 0:
            raise ValueError(f"bad filter {f} in row {y}")
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows


def ink(data, box=None):
    """Share of pixels that are not near-white, and how many distinct colours, in box."""
    w, h, bpp, rows = png_pixels(data)
    x0, y0, x1, y1 = box or (0, 0, w, h)
    x1, y1 = min(x1, w), min(y1, h)
    inked, colours, total = 0, set(), 0
    for y in range(y0, y1, 2):
        row = rows[y]
        for x in range(x0, x1, 2):
            r, g, b = row[x * bpp], row[x * bpp + 1], row[x * bpp + 2]
            total += 1
            if r < 235 or g < 235 or b < 235:
                inked += 1
            if len(colours) < 64:
                colours.add((r >> 3, g >> 3, b >> 3))
    return (w, h), inked / max(total, 1), len(colours)



class Browser:
    """Headless Chromium through chromedriver (WebDriver over HTTP, urllib only)."""

    def __init__(self, chromium, chromedriver, work):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        self.port = s.getsockname()[1]
        s.close()
        self.log = open(work / "chromedriver.log", "w")
        self.proc = subprocess.Popen([chromedriver, f"--port={self.port}"], stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 30
        while True:
            try:
                if self.call("GET", "/status").get("ready"):
                    break
            except OSError:
                pass
            if time.monotonic() > deadline or self.proc.poll() is not None:
                raise RuntimeError("chromedriver did not start")
            time.sleep(0.1)
        args = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                f"--window-size={SCREEN[0]},{SCREEN[1]}", "--hide-scrollbars", "--force-device-scale-factor=1",
                "--host-resolver-rules=MAP * ~NOTFOUND", "--no-first-run", "--disable-extensions",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--lang=en-US", f"--user-data-dir={work / 'profile'}"]
        caps = {"capabilities": {"alwaysMatch": {
            "browserName": "chrome", "goog:loggingPrefs": {"browser": "ALL"},
            "timeouts": {"pageLoad": 120000, "script": 60000},
            "goog:chromeOptions": {"binary": chromium, "args": args}}}}
        self.session = None
        for attempt in range(3):  # a loaded 2-core machine may miss chromedriver's start deadline
            value = self.call("POST", "/session", caps, timeout=180)
            if "sessionId" in value:
                self.session = f"/session/{value['sessionId']}"
                break
            time.sleep(2)
        if not self.session:
            raise RuntimeError(f"no browser session: {value}")

    def call(self, method, path, body=None, timeout=180):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}", data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                return json.load(r)["value"]
        except urllib.error.HTTPError as e:
            value = json.load(e).get("value", {})
            raise RuntimeError(f"WebDriver {method} {path}: {value.get('error')}: {value.get('message', '')[:300]}")

    def s(self, method, path, body=None):
        return self.call(method, self.session + path, body)

    def open(self, url):
        self.s("POST", "/url", {"url": url})

    def script(self, js, *args):
        return self.s("POST", "/execute/sync", {"script": js, "args": list(args)})

    def async_script(self, js, *args):
        return self.s("POST", "/execute/async", {"script": js, "args": list(args)})

    def console(self):
        return self.s("POST", "/se/log", {"type": "browser"})

    def screenshot(self, selector=None):
        if selector is None:
            return base64.b64decode(self.s("GET", "/screenshot"))
        el = self.s("POST", "/element", {"using": "css selector", "value": selector})
        eid = next(iter(el.values()))
        return base64.b64decode(self.s("GET", f"/element/{eid}/screenshot"))

    def close(self):
        try:
            if self.session:
                self.call("DELETE", self.session, timeout=30)
        finally:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            self.log.close()
