"""Fixtures for the watch tests: the kvtest format registered with ingest, a local HTTP sink."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest
from watch_helpers import KV_FORMAT

from rlvitals import ingest


@pytest.fixture
def kv_format(monkeypatch):
    """Register the kvtest format with ingest for the duration of a test."""
    monkeypatch.setitem(ingest.FORMATS, "kvtest", KV_FORMAT)
    return "kvtest"


class _Sink(BaseHTTPRequestHandler):
    received: list = []

    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        type(self).received.append((self.headers["Content-Type"], json.loads(body)))
        self.send_response(204 if self.path == "/ok" else 500)
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture
def local_server():
    """An HTTP server on 127.0.0.1 in a thread: (base URL, list of (content type, JSON body))."""
    _Sink.received = []
    srv = HTTPServer(("127.0.0.1", 0), _Sink)
    th = threading.Thread(target=srv.serve_forever, daemon=True)
    th.start()
    yield f"http://127.0.0.1:{srv.server_address[1]}", _Sink.received
    srv.shutdown()
    srv.server_close()
    th.join()
