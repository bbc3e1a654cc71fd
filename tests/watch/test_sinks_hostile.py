"""--exec commands end as a whole, `setsid` children included (on timeout, at the command's end
and at watch's exit); webhooks go through urllib, so HTTP(S)_PROXY and NO_PROXY are honoured."""

from __future__ import annotations

import socket
import threading
import time

import pytest

from rlvitals.diagnose.model import Finding
from rlvitals.watch.alerts import Alert
from rlvitals.watch.sinks import Dispatcher, post_webhook, run_exec

ALERT = Alert(Finding("entropy_collapse", "warning", 40), "warning", 57)


def _gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def _wait_gone(pid: int, seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while not _gone(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    return _gone(pid)


def _pid(path, seconds: float = 5.0) -> int:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        text = path.read_text().strip() if path.exists() else ""
        if text:
            return int(text)
        time.sleep(0.02)
    raise AssertionError("the command never wrote its child's pid")


def test_a_setsid_child_is_killed_on_timeout(tmp_path):
    pidfile = tmp_path / "child.pid"
    code, err = run_exec(f"setsid sleep 300 & echo $! > {pidfile}; sleep 300", ALERT, {}, timeout=0.5)
    assert code is None and "timed out" in err
    assert _wait_gone(_pid(pidfile))


def test_a_double_forked_setsid_daemon_does_not_outlive_the_command(tmp_path):
    pidfile = tmp_path / "child.pid"
    # the daemon's parent exits at once: it is nobody's child and in no group of ours
    code, err = run_exec(f"sh -c 'setsid sleep 300 & echo $! > {pidfile}'", ALERT, {}, timeout=5)
    assert (code, err) == (0, "")
    assert _wait_gone(_pid(pidfile))


def test_watch_exit_kills_a_running_command_and_its_setsid_children(tmp_path):
    pidfile = tmp_path / "child.pid"
    d = Dispatcher(f"setsid sleep 300 & echo $! > {pidfile}; sleep 300", None, lambda k, f: None, exec_timeout=60)
    d.send(ALERT, {})
    child = _pid(pidfile)
    lost = d.close(wait=0.2)
    assert lost == {"--exec": 1}
    assert _wait_gone(child)


class Recorder:
    """A local HTTP server (or proxy) that records the request line it receives and answers 200."""

    def __init__(self):
        self.srv = socket.socket()
        self.srv.bind(("127.0.0.1", 0))
        self.srv.listen(4)
        self.srv.settimeout(10)
        self.port = self.srv.getsockname()[1]
        self.lines: list[str] = []
        self.th = threading.Thread(target=self._serve, daemon=True)
        self.th.start()

    def _serve(self):
        try:
            conn, _ = self.srv.accept()
        except OSError:
            return
        with conn:
            conn.settimeout(5)
            data = b""
            while b"\r\n\r\n" not in data:
                chunk = conn.recv(65536)
                if not chunk:
                    break
                data += chunk
            self.lines.append(data.split(b"\r\n", 1)[0].decode())
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")

    def close(self):
        self.srv.close()
        self.th.join(5)


def test_webhook_goes_through_the_proxy_of_the_environment(monkeypatch):
    proxy = Recorder()
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{proxy.port}")
    monkeypatch.setenv("http_proxy", f"http://127.0.0.1:{proxy.port}")
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    try:
        err = post_webhook("http://alerts.example.invalid/hook", {"x": 1}, deadline=5)
    finally:
        proxy.close()
    assert err == ""
    assert proxy.lines == ["POST http://alerts.example.invalid/hook HTTP/1.1"]


def test_no_proxy_sends_it_directly(monkeypatch):
    direct = Recorder()
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")  # would refuse the connection
    monkeypatch.setenv("http_proxy", "http://127.0.0.1:9")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    monkeypatch.setenv("no_proxy", "127.0.0.1")
    try:
        err = post_webhook(f"http://127.0.0.1:{direct.port}/hook", {"x": 1}, deadline=5)
    finally:
        direct.close()
    assert err == "" and direct.lines == ["POST /hook HTTP/1.1"]


@pytest.mark.parametrize("status", [404, 500])
def test_http_errors_are_one_line(status):
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    port = srv.getsockname()[1]

    def serve():
        conn, _ = srv.accept()
        with conn:
            conn.recv(65536)
            conn.sendall(f"HTTP/1.1 {status} X\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".encode())

    th = threading.Thread(target=serve, daemon=True)
    th.start()
    try:
        assert post_webhook(f"http://127.0.0.1:{port}/h", {}, deadline=5) == f"HTTP {status}"
    finally:
        srv.close()
        th.join(5)
