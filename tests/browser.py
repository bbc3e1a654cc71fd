"""A real headless Chromium (Debian's `chromium`) driven by Playwright, for the HTML pages' tests.

Never downloads a browser: the system's chromium is used, or the tests that need it are skipped
with the reason (scripts/test installs it with apt-get when run as root, as CI does).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
# screenshots are kept here as artefacts of the run (never committed)
ARTEFACTS = Path(os.environ.get("RLVITALS_ARTEFACTS", Path(tempfile.gettempdir()) / "rlvitals-artefacts"))


def chromium_path() -> str | None:
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    return None


def why_no_browser() -> str | None:
    """None when a browser can be driven, else why not."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed (pip install playwright; it drives the system's chromium)"
    if chromium_path() is None:
        return "no chromium on this machine (apt-get install chromium, as root; scripts/test does it on CI)"
    return None


class Browser:
    """One Chromium for a test module; `open(path)` gives a page and the console errors it raised."""

    def __init__(self) -> None:
        from playwright.sync_api import sync_playwright

        self._profile = tempfile.mkdtemp(prefix="rlvitals-chromium-")
        self._pw = sync_playwright().start()
        self._ctx = self._pw.chromium.launch_persistent_context(
            self._profile,
            executable_path=chromium_path(),
            headless=True,
            args=FLAGS,
            viewport={"width": 1280, "height": 900},
            offline=True,
        )

    def open(self, path: Path):
        page = self._ctx.new_page()
        errors: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on(
            "request",
            lambda r: errors.append(f"request {r.url}") if not r.url.startswith(("file:", "data:", "about:")) else None,
        )
        page.goto(Path(path).resolve().as_uri())
        page.wait_for_selector("html[data-rlv-ready]", timeout=10_000)
        return page, errors

    def close(self) -> None:
        self._ctx.close()
        self._pw.stop()
        shutil.rmtree(self._profile, ignore_errors=True)
