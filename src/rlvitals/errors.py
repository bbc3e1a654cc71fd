"""Errors the library raises.  The CLI turns each into one line on stderr and exit status 2.

RlvitalsError
 ├── InputError           the input cannot be read at all
 │    ├── NotAFile        a directory, a missing path, a device
 │    ├── EmptyInput      nothing in it
 │    ├── BinaryInput     not text (and not a TensorBoard event file)
 │    └── UnknownFormat   text, but no supported format recognised (names the formats tried)
 ├── NoMetrics            a format was recognised but no metric could be read
 │    └── NoVitals        metrics were read, but none of them is a vital (lists the keys seen)
 ├── OutputError          an output path cannot be written (a directory, a missing folder, a full disk)
 └── MissingExtra         an optional dependency is needed ("pip install 'rlvitals[plot]'")
"""

from __future__ import annotations

__all__ = [
    "BinaryInput",
    "EmptyInput",
    "InputError",
    "MissingExtra",
    "NoMetrics",
    "NoVitals",
    "NotAFile",
    "OutputError",
    "RlvitalsError",
    "UnknownFormat",
]


class RlvitalsError(Exception):
    """Base class: the message is one complete sentence for the user.

    An error made with `of(key, **fields)` also carries its i18n key: `localized(lang)` gives the
    sentence in the user's language (the CLI prints that); `str()` is the English one.
    """

    key: str | None = None
    fields: dict[str, object] = {}  # noqa: RUF012 - replaced per instance by `of`

    @classmethod
    def of(cls, key: str, /, **fields: object) -> RlvitalsError:
        from .i18n import t

        err = cls.__new__(cls)  # subclasses may take other constructor arguments
        Exception.__init__(err, t(key, "en", **fields))
        err.key, err.fields = key, dict(fields)
        return err

    def __str__(self) -> str:
        # The sentence often quotes the input (a key, a line): its control characters are shown
        # escaped, never emitted (safe_text.py), and it stays one line.
        from .safe_text import escape_controls

        return escape_controls(super().__str__(), keep_layout=False)

    def localized(self, lang: str = "en") -> str:
        if self.key is None:
            return str(self)
        from .i18n import t
        from .safe_text import escape_controls

        return escape_controls(t(self.key, lang, **self.fields), keep_layout=False)


class InputError(RlvitalsError):
    """The input cannot be read."""


class NotAFile(InputError):
    """The path is missing, a directory, or not a regular file."""


class EmptyInput(InputError):
    """The file is empty (or holds only blank lines)."""


class BinaryInput(InputError):
    """The file is binary and not a format we read."""


class UnknownFormat(InputError):
    """The text matched none of the supported formats."""


class NoMetrics(RlvitalsError):
    """A format was recognised but not one metric value could be read."""


class NoVitals(NoMetrics):
    """Numbers were read, but none maps to a vital: the message lists the keys seen and `--map`."""


class OutputError(RlvitalsError):
    """An output (a file, standard output) cannot be written."""


class MissingExtra(RlvitalsError):
    """An optional dependency is missing; the message names the extra to install."""

    def __init__(self, package: str, extra: str, purpose: str):
        super().__init__(f"{purpose} needs {package}: install it with  pip install 'rlvitals[{extra}]'")
        self.package, self.extra = package, extra
