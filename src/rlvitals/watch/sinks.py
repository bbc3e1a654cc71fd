"""Where an alert goes besides the terminal: `--exec CMD` and `--webhook URL`, off the following loop.

Both sinks are slow and outside our control (a command that hangs, a server that trickles one byte
every two seconds), so neither ever runs on the loop that follows the file:

- `Dispatcher` hands each alert to a background thread through a bounded queue; a full queue
  drops the alert and counts it (said at exit), it never blocks following.
- `post_webhook` goes through the standard library's `urllib.request` (so HTTPS_PROXY / HTTP_PROXY /
  NO_PROXY are honoured, as every other tool on the machine does) with a TOTAL deadline per request:
  a watchdog timer shuts the socket down when it expires, so no sequence of slow reads can stretch
  a request past it.
- `run_exec` starts the command in its own session (process group) and, on timeout, at its end and
  at watch's exit, kills all it started: its process group, and every process carrying the run's
  token in its environment — what it started under `setsid` or as a daemon too — then reaps it.
- `validate_webhook` checks the URL once, at start-up: a bad one is a one-line error (exit 2), not a
  crash at the first alert.
"""

from __future__ import annotations

import http.client
import json
import os
import queue
import secrets
import signal
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from ..errors import RlvitalsError
from ..i18n import t as tr
from .alerts import Alert

__all__ = ["BadWebhook", "Dispatcher", "post_webhook", "run_exec", "validate_webhook"]

WEBHOOK_DEADLINE = 5.0  # seconds, the whole request: connect, send, status, body
EXEC_TIMEOUT = 60.0  # seconds before the command's process group is killed
QUEUE_SIZE = 32  # alerts waiting per sink; beyond this they are dropped and counted


class BadWebhook(RlvitalsError):
    """The --webhook URL cannot be used (said at start-up, exit status 2)."""


def validate_webhook(url: str, lang: str = "en") -> tuple[str, str, int, str]:
    """(scheme, host, port, path?query) of an http(s) URL, or BadWebhook saying what is wrong."""

    def bad(why: str, **kw: object) -> BadWebhook:
        return BadWebhook(tr("watch.webhook_bad", lang, url=repr(url), why=tr(f"watch.webhook_bad.{why}", lang, **kw)))

    if any(c.isspace() or ord(c) < 32 for c in url):
        raise bad("space")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as e:
        raise bad("invalid", error=e) from None
    if parts.scheme not in ("http", "https"):
        raise bad("scheme")
    if not parts.hostname:
        raise bad("host")
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return parts.scheme, parts.hostname, port or (443 if parts.scheme == "https" else 80), path


class _Watched(urllib.request.HTTPHandler):
    """HTTP(S) handlers that remember each connection's socket, for the watchdog to shut down."""

    def __init__(self, socks: list[socket.socket]) -> None:
        super().__init__()
        self.socks = socks

    def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        socks = self.socks

        class Conn(http.client.HTTPConnection):
            def connect(self) -> None:
                super().connect()
                socks.append(self.sock)

        return self.do_open(Conn, req)


class _WatchedTLS(urllib.request.HTTPSHandler):
    def __init__(self, socks: list[socket.socket]) -> None:
        super().__init__()
        self.socks = socks

    def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        socks = self.socks

        class Conn(http.client.HTTPSConnection):
            def connect(self) -> None:
                super().connect()
                socks.append(self.sock)

        return self.do_open(Conn, req, context=self._context)  # type: ignore[attr-defined]


def post_webhook(url: str, payload: dict[str, Any], deadline: float = WEBHOOK_DEADLINE) -> str:
    """POST the payload as JSON within `deadline` seconds in total; "" on success, else one line.
    Proxies from the environment (HTTPS_PROXY, HTTP_PROXY, NO_PROXY) are honoured."""
    try:
        validate_webhook(url)
    except BadWebhook as e:
        return str(e)
    body = json.dumps(payload, ensure_ascii=False).encode("utf-8")
    socks: list[socket.socket] = []
    opener = urllib.request.build_opener(urllib.request.ProxyHandler(), _Watched(socks), _WatchedTLS(socks))
    req = urllib.request.Request(
        url,
        data=body,
        method="POST",
        headers={"Content-Type": "application/json; charset=utf-8", "User-Agent": "rlvitals-watch"},
    )
    expired = threading.Event()

    def expire() -> None:  # the watchdog: whatever the request is waiting for, it ends now
        expired.set()
        for sock in list(socks):
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    dog = threading.Timer(deadline, expire)
    dog.daemon = True
    dog.start()
    try:
        with opener.open(req, timeout=deadline) as resp:
            resp.read(1 << 16)
            if expired.is_set():
                raise TimeoutError
    except urllib.error.HTTPError as e:
        e.close()
        return f"HTTP {e.code}"
    except (OSError, http.client.HTTPException, ValueError) as e:
        if expired.is_set() or isinstance(e, TimeoutError) or isinstance(getattr(e, "reason", None), TimeoutError):
            return f"no complete answer within {deadline:g} s"
        reason = getattr(e, "reason", None) or e
        return (str(reason) or type(e).__name__).splitlines()[0]
    finally:
        dog.cancel()
    return ""


_TOKEN_VAR = "RLVITALS_EXEC_TOKEN"


def _carriers(token: str) -> list[int]:
    """Processes (of this user) whose environment holds `token`: everything a command started,
    even under `setsid` or double-forked away from its process group.  Linux /proc; [] elsewhere."""
    needle = f"{_TOKEN_VAR}={token}\0".encode()
    me = os.getpid()
    found: list[int] = []
    try:
        names = os.listdir("/proc")
    except OSError:
        return found
    for name in names:
        if not name.isdigit() or int(name) == me:
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as f:
                env = f.read()
        except OSError:
            continue
        if needle in env:
            found.append(int(name))
    return found


def _signal_all(proc: subprocess.Popen[bytes], token: str | None, sig: int) -> None:
    try:
        os.killpg(proc.pid, sig)
    except (ProcessLookupError, PermissionError):
        pass
    for pid in _carriers(token) if token else ():
        try:
            os.kill(pid, sig)
        except (ProcessLookupError, PermissionError):
            pass


def _kill_group(proc: subprocess.Popen[bytes], grace: float = 2.0) -> None:
    """SIGTERM the command's whole process group and every process it started (its token), SIGKILL
    what is left after `grace`, reap."""
    token = getattr(proc, "rlvitals_token", None)
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 5.0)):
        _signal_all(proc, token, sig)
        try:
            proc.wait(wait)
            # the shell is gone; children it started may linger: end them too
            _signal_all(proc, token, signal.SIGKILL)
        except subprocess.TimeoutExpired:
            continue
        return


def run_exec(
    cmd: str,
    alert: Alert,
    payload: dict[str, Any],
    timeout: float = EXEC_TIMEOUT,
    started: Callable[[subprocess.Popen[bytes] | None], None] | None = None,
) -> tuple[int | None, str]:
    """Run `cmd` through the shell with the finding in the environment; (exit status, error text).

    The command gets its own session; after `timeout` seconds all it started is killed (its process
    group and every process carrying its token, `setsid` children included), and at its end what it
    left running in the background too.
    started(proc) / started(None): told when the command starts and ends (to kill it at exit).
    """
    token = secrets.token_hex(8)
    env = dict(os.environ)
    env.update(
        {
            "RLVITALS_FINDING": alert.id,
            "RLVITALS_SEVERITY": alert.severity,
            "RLVITALS_STEP": str(alert.step),
            "RLVITALS_ONSET_STEP": "" if alert.onset_step is None else str(alert.onset_step),
            "RLVITALS_JSON": json.dumps(payload, ensure_ascii=False),
            _TOKEN_VAR: token,
        }
    )
    try:
        proc = subprocess.Popen(cmd, shell=True, env=env, stdin=subprocess.DEVNULL, start_new_session=True)
    except OSError as e:
        return None, str(e)
    proc.rlvitals_token = token  # type: ignore[attr-defined]
    if started is not None:
        started(proc)
    try:
        code = proc.wait(timeout)
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        return None, f"timed out after {timeout:g} s; its process group was killed"
    finally:
        if started is not None:
            started(None)
    # children the command left running in the background belong to it: none outlive it
    _signal_all(proc, token, signal.SIGKILL)
    return code, ""


class _Worker:
    """One background thread draining a bounded queue with `fn`."""

    def __init__(self, name: str, fn: Callable[[Any], None], size: int) -> None:
        self.fn = fn
        self.q: queue.Queue[Any] = queue.Queue(maxsize=size)
        self.dropped = 0
        self.done = 0
        self.th = threading.Thread(target=self._loop, name=f"rlvitals-{name}", daemon=True)
        self.th.start()

    def submit(self, item: Any) -> bool:
        try:
            self.q.put_nowait(item)
            return True
        except queue.Full:
            self.dropped += 1
            return False

    def _loop(self) -> None:
        while True:
            item = self.q.get()
            if item is None:
                return
            try:
                self.fn(item)
            except Exception:  # a sink's bug must not end the thread
                pass
            self.done += 1

    def close(self, wait: float) -> int:
        """Let the queue drain for at most `wait` seconds; the count of alerts never handled."""
        end = time.monotonic() + max(wait, 0.0)
        while True:
            try:
                self.q.put(None, timeout=0.05)
                break
            except queue.Full:
                if time.monotonic() >= end:
                    break
        self.th.join(max(0.0, end - time.monotonic()))
        pending = 0
        if self.th.is_alive():
            pending = 1 + sum(1 for x in list(self.q.queue) if x is not None)  # + the one in flight
        return self.dropped + pending


class Dispatcher:
    """Sends each alert to `--exec` and `--webhook` from background threads.

    say(text): where failures are reported (called from the worker threads; make it thread-safe).
    """

    def __init__(
        self,
        exec_cmd: str | None,
        webhook: str | None,
        say: Callable[[str, dict[str, Any]], None],
        *,
        exec_timeout: float = EXEC_TIMEOUT,
        webhook_deadline: float = WEBHOOK_DEADLINE,
        queue_size: int = QUEUE_SIZE,
    ) -> None:
        self.exec_cmd, self.webhook = exec_cmd, webhook
        self.exec_timeout, self.webhook_deadline = exec_timeout, webhook_deadline
        self.say = say
        self._exec = _Worker("exec", self._do_exec, queue_size) if exec_cmd else None
        self._hook = _Worker("webhook", self._do_hook, queue_size) if webhook else None
        self._running: subprocess.Popen[bytes] | None = None

    @property
    def active(self) -> bool:
        return self._exec is not None or self._hook is not None

    def send(self, alert: Alert, payload: dict[str, Any]) -> None:
        for w in (self._exec, self._hook):
            if w is not None:
                w.submit((alert, payload))

    def _do_exec(self, item: tuple[Alert, dict[str, Any]]) -> None:
        alert, payload = item
        code, err = run_exec(self.exec_cmd or "", alert, payload, timeout=self.exec_timeout, started=self._track)
        if err:
            self.say("watch.exec_error", {"error": err})
        elif code:
            self.say("watch.exec_failed", {"code": code})

    def _track(self, proc: subprocess.Popen[bytes] | None) -> None:
        self._running = proc

    def _do_hook(self, item: tuple[Alert, dict[str, Any]]) -> None:
        err = post_webhook(self.webhook or "", item[1], deadline=self.webhook_deadline)
        if err:
            self.say("watch.webhook_failed", {"url": self.webhook, "error": err})

    def close(self, wait: float | None = None) -> dict[str, int]:
        """Finish what is queued (each sink at most `wait` s, default: its own timeout + 1 s);
        sink name → alerts not delivered (dropped on a full queue or still pending)."""
        out: dict[str, int] = {}
        t0 = time.monotonic()
        for name, w, limit in (
            ("--exec", self._exec, self.exec_timeout),
            ("--webhook", self._hook, self.webhook_deadline),
        ):
            if w is None:
                continue
            budget = (limit + 1.0) if wait is None else max(0.0, wait - (time.monotonic() - t0))
            lost = w.close(budget)
            if lost:
                out[name] = lost
        proc = self._running
        if proc is not None:  # a command still running when watch exits does not outlive it
            _kill_group(proc, grace=0.5)
        return out
