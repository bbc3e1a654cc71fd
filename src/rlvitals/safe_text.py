"""The one rule for text that came from a file: control characters are shown, never emitted.

A log is data somebody else wrote.  A key such as ``"\\x1b]0;TITLE\\x07loss"`` printed raw would
retitle the user's terminal, ``"\\x1b[2J"`` would clear it, the C1 byte ``"\\x9b"`` starts a control
sequence on many terminals.  Every string a command prints passes through `escape_controls` (the
CLI's outputs, its one-line errors, watch's alerts, Monitor's lines), so such a character appears as
its escape ``\\u001b`` instead:

- C0 controls except TAB and LF (layout needs them), DEL, the C1 range U+0080–U+009F;
- the bidirectional overrides and isolates (U+202A–U+202E, U+2066–U+2069), which can make shown
  text read differently from what it is;
- the noncharacters U+FDD0–U+FDEF (the terminal renderer uses two of them to mark its own colours).

The escape is ``\\uXXXX``: readable in text and Markdown, and inside a JSON string the very escape
JSON itself uses, so a JSON document stays valid JSON and decodes to the same value.

The terminal renderer paints with `paint` (a colour written with two noncharacters around its
SGR parameters) and turns the marks into real escape sequences with `colours` only after the text
has been escaped, so a file can never smuggle an escape sequence in, not even a colour.
"""

from __future__ import annotations

import re
import secrets

__all__ = ["colours", "escape_controls", "has_controls", "mark_width_free", "paint"]

_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ufdd0-\ufdef]")
_UNSAFE_ALL = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ufdd0-\ufdef]")
# A mark carries a nonce drawn at start-up, so text from a file cannot forge one.
_NONCE = secrets.token_hex(6)
_OPEN, _CLOSE = "\ufdd0" + _NONCE, "\ufdd1"
_MARK = re.compile(f"{_OPEN}([0-9;]*){_CLOSE}")


def _esc(m: re.Match[str]) -> str:
    return f"\\u{ord(m.group()):04x}"


def escape_controls(text: str, *, keep_layout: bool = True) -> str:
    """`text` with every control character written as its ``\\uXXXX`` escape.  TAB and LF are kept
    unless `keep_layout` is False (a single-line field: a key, a file name in an error line)."""
    pattern = _UNSAFE if keep_layout else _UNSAFE_ALL
    if pattern.search(text) is None:  # the common case: nothing to do, no copy
        return text
    return pattern.sub(_esc, text)


def has_controls(text: str) -> bool:
    """True when `escape_controls` would change `text`."""
    return _UNSAFE.search(text) is not None


def paint(text: str, code: str, bold: bool = False) -> str:
    """`text` in colour `code` (an SGR parameter such as "31"), as marks `colours` turns into
    escape sequences once the whole text has been escaped."""
    return f"{_OPEN}{'1;' if bold else ''}{code}{_CLOSE}{text}{_OPEN}0{_CLOSE}"


def colours(text: str) -> str:
    """Escape `text`, then turn the marks `paint` left into real SGR sequences."""
    out: list[str] = []
    pos = 0
    for m in _MARK.finditer(text):
        out.append(escape_controls(text[pos : m.start()]))
        out.append(f"\x1b[{m.group(1)}m")
        pos = m.end()
    out.append(escape_controls(text[pos:]))
    return "".join(out)


def mark_width_free(text: str) -> str:
    """`text` without the colour marks (for measuring its width)."""
    return _MARK.sub("", text) if _OPEN in text else text
