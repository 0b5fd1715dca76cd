"""Load a page in headless Chromium and report what a user would see go wrong.

Speaks the DevTools protocol over ``--remote-debugging-pipe`` (NUL-separated JSON on
file descriptors 3 and 4), so no websocket library is needed.
"""
from __future__ import annotations

import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run", "--remote-debugging-pipe"]
PAGE_PROBE = """JSON.stringify({
  title: document.title,
  images: Array.from(document.images).map(i => ({src: i.getAttribute('src'), loaded: i.complete && i.naturalWidth > 0})),
  tables: document.querySelectorAll('table').length,
  text: document.body.innerText.length
})"""


def chromium_binary() -> Optional[str]:
    return next((path for name in ("chromium", "chromium-browser", "google-chrome")
                 if (path := shutil.which(name))), None)


@dataclass
class PageLoad:
    title: str
    images: list[dict[str, Any]]
    tables: int
    text_length: int
    errors: list[str] = field(default_factory=list)  # console errors, exceptions, failed loads


def load_page(url: str, timeout: float = 60.0) -> PageLoad:
    """Open ``url``, wait for its load event, and return what it rendered and every error."""
    binary = chromium_binary()
    if binary is None:
        raise FileNotFoundError("chromium is not installed")
    to_chrome_read, to_chrome_write = os.pipe()
    from_chrome_read, from_chrome_write = os.pipe()
    # The child's ends move to 10 or above, so that dup2 onto 3 and 4 never clobbers them.
    to_chrome_read, from_chrome_write = _above(to_chrome_read), _above(from_chrome_write)

    def wire_pipes() -> None:
        os.dup2(to_chrome_read, 3)
        os.dup2(from_chrome_write, 4)

    with tempfile.TemporaryDirectory(prefix="cclab-chromium-") as profile:
        process = subprocess.Popen([binary, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "about:blank"],
                                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                   preexec_fn=wire_pipes, close_fds=False)
        os.close(to_chrome_read)
        os.close(from_chrome_write)
        session = _DevTools(to_chrome_write, from_chrome_read, timeout)
        try:
            return session.load(url)
        finally:
            session.close()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _above(fd: int, minimum: int = 10) -> int:
    """A copy of ``fd`` numbered ``minimum`` or more (close-on-exec); ``fd`` is closed."""
    moved = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, minimum)
    os.close(fd)
    return moved


class _DevTools:
    def __init__(self, write_fd: int, read_fd: int, timeout: float):
        self._write, self._read, self._timeout = write_fd, read_fd, timeout
        self._buffer = b""
        self._next_id = 0
        self.errors: list[str] = []
        self._events: list[dict] = []

    def load(self, url: str) -> PageLoad:
        target = self._call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self._call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Runtime", "Log", "Page"):
            self._call(f"{domain}.enable", session=session)
        navigation = self._call("Page.navigate", {"url": url}, session=session)
        if "errorText" in navigation:  # e.g. net::ERR_FILE_NOT_FOUND: an error page loads instead
            self.errors.append(f"{url}: {navigation['errorText']}")
        self._wait_for("Page.loadEventFired")
        time.sleep(0.2)  # late console messages
        probe = self._call("Runtime.evaluate", {"expression": PAGE_PROBE, "returnByValue": True}, session=session)
        assert probe["result"].get("type") == "string", f"the page probe did not evaluate: {probe}"
        page = json.loads(probe["result"]["value"])
        return PageLoad(page["title"], page["images"], page["tables"], page["text"], list(self.errors))

    def close(self) -> None:
        try:
            self._send({"id": 10_000, "method": "Browser.close"})
        except OSError:
            pass
        os.close(self._write)
        os.close(self._read)

    def _call(self, method: str, params: Optional[dict] = None, session: Optional[str] = None) -> dict:
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        self._send(message)
        while True:
            reply = self._receive()
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply["result"]

    def _wait_for(self, event: str) -> None:
        while not any(seen.get("method") == event for seen in self._events):
            self._receive()

    def _send(self, message: dict) -> None:
        os.write(self._write, json.dumps(message).encode() + b"\0")

    def _receive(self) -> dict:
        deadline = time.monotonic() + self._timeout
        while b"\0" not in self._buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([self._read], [], [], remaining)[0]:
                raise TimeoutError("chromium did not answer")
            chunk = os.read(self._read, 1 << 16)
            if not chunk:
                raise EOFError("chromium closed the DevTools pipe")
            self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        message = json.loads(raw)
        assert isinstance(message, dict), f"DevTools sent {raw[:200]!r}, not a message"
        if "method" in message:
            self._events.append(message)
            self._record_error(message)
        return message

    def _record_error(self, event: dict) -> None:
        method, params = event["method"], event.get("params", {})
        if method == "Runtime.exceptionThrown":
            self.errors.append(params["exceptionDetails"].get("text", "exception"))
        elif method == "Runtime.consoleAPICalled" and params.get("type") == "error":
            self.errors.append(" ".join(str(arg.get("value", "")) for arg in params.get("args", [])))
        elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
            entry = params["entry"]
            self.errors.append(f"{entry.get('text')} {entry.get('url', '')}".strip())


def file_url(path: Path) -> str:
    return path.resolve().as_uri()
