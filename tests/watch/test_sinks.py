"""`--webhook` and `--exec` off the following loop: URL checked at start-up, a total deadline per
request, a bounded queue, the command's whole process group killed on timeout.  Servers are local
(127.0.0.1), few, and every wait is bounded."""

from __future__ import annotations

import socket
import threading
import time

import pytest

from rlvitals.cli import main as cli_main
from rlvitals.diagnose.model import Finding
from rlvitals.watch.alerts import Alert
from rlvitals.watch.sinks import BadWebhook, Dispatcher, post_webhook, run_exec, validate_webhook

ALERT = Alert(Finding("entropy_collapse", "warning", 40), "warning", 57)


@pytest.mark.parametrize(
    "url",
    [
        "http://[::1",
        "http://host:abc/",
        "http://a b/",
        "ftp://host/x",
        "file:///etc/passwd",
        "http://",
        "localhost:8080/hook",
    ],
)
def test_bad_webhook_urls_are_refused_at_start_up(url, tmp_path, capsys):
    with pytest.raises(BadWebhook):
        validate_webhook(url)
    log = tmp_path / "train.log"
    log.write_text("")
    assert cli_main(["watch", str(log), "--once", "--webhook", url]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("rlvitals: error: --webhook") and "\n" not in err


def test_good_webhook_urls_pass():
    assert validate_webhook("http://127.0.0.1:8080/hook?x=1") == ("http", "127.0.0.1", 8080, "/hook?x=1")
    assert validate_webhook("https://[::1]/")[1:3] == ("::1", 443)


class Trickle:
    """A local server that accepts one connection and answers one byte every `every` seconds."""

    def __init__(self, every: float, stall: bool = False):
        self.srv = socket.socket()
        self.srv.bind(("127.0.0.1", 0))
        self.srv.listen(4)
        self.srv.settimeout(10)
        self.every, self.stall = every, stall
        self.url = f"http://127.0.0.1:{self.srv.getsockname()[1]}/hook"
        self.done = threading.Event()
        self.th = threading.Thread(target=self._serve, daemon=True)
        self.th.start()

    def _serve(self):
        try:
            conn, _ = self.srv.accept()
        except OSError:
            return
        with conn:
            conn.settimeout(0.2)
            try:
                conn.recv(65536)
            except OSError:
                pass
            reply = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
            for i in range(len(reply)):
                if self.done.wait(self.every):
                    return
                if not self.stall:
                    try:
                        conn.sendall(reply[i : i + 1])
                    except OSError:
                        return

    def close(self):
        self.done.set()
        self.srv.close()
        self.th.join(5)


@pytest.mark.parametrize("stall", [False, True])
def test_webhook_has_a_total_deadline_not_a_per_read_one(stall):
    srv = Trickle(every=0.3, stall=stall)  # every read succeeds within any per-read timeout
    try:
        t0 = time.monotonic()
        err = post_webhook(srv.url, {"x": 1}, deadline=1.0)
        took = time.monotonic() - t0
    finally:
        srv.close()
    assert "within 1 s" in err
    assert took < 2.5  # the reply would take ~20 s to trickle in


def test_dispatcher_never_blocks_the_caller_and_counts_what_it_dropped():
    srv = Trickle(every=0.3, stall=True)
    said = []
    try:
        d = Dispatcher(None, srv.url, lambda key, fields: said.append(key), webhook_deadline=1.0, queue_size=2)
        t0 = time.monotonic()
        for _ in range(6):
            d.send(ALERT, {"finding": "x"})
        assert time.monotonic() - t0 < 0.5  # queued, not sent, by the caller
        lost = d.close(wait=0.2)
    finally:
        srv.close()
    # one in flight, two queued, three dropped on the full queue: none of them delivered
    assert lost == {"--webhook": 6}


def _gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"  # a zombie is dead, awaiting its reaper
    except FileNotFoundError:
        return True


def test_exec_timeout_kills_the_whole_process_group(tmp_path):
    pidfile = tmp_path / "child.pid"
    t0 = time.monotonic()
    # the shell starts a child and waits: killing only the shell would leave `sleep 100` running
    code, err = run_exec(f"sleep 100 & echo $! > {pidfile}; wait", ALERT, {}, timeout=0.5)
    assert time.monotonic() - t0 < 5
    assert code is None and "timed out" in err and "process group" in err
    child = int(pidfile.read_text())
    deadline = time.monotonic() + 5
    while not _gone(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _gone(child)


def test_exec_background_children_do_not_outlive_the_command(tmp_path):
    pidfile = tmp_path / "child.pid"
    code, err = run_exec(f"sleep 100 & echo $! > {pidfile}", ALERT, {}, timeout=5)
    assert (code, err) == (0, "")
    child = int(pidfile.read_text())
    deadline = time.monotonic() + 5
    while not _gone(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _gone(child)


def test_exec_runs_off_the_callers_thread(tmp_path):
    said = []
    d = Dispatcher("sleep 100", None, lambda key, fields: said.append((key, fields)), exec_timeout=0.5)
    t0 = time.monotonic()
    d.send(ALERT, {})
    assert time.monotonic() - t0 < 0.5
    assert d.close() == {}
    assert said and said[0][0] == "watch.exec_error" and "timed out" in said[0][1]["error"]


def test_a_bad_webhook_is_said_in_chinese_too():
    with pytest.raises(BadWebhook, match="主机名"):
        validate_webhook("http://", lang="zh")
    with pytest.raises(BadWebhook, match="空格"):
        validate_webhook("http://a b/", lang="zh")
