"""Deprecated: calling a subpackage as if it were its function (`rlvitals.diagnose(run)`,
`rlvitals.simulate(name)`).  It still works and warns; it stops working in rlvitals 0.3.

rlvitals 0.1 made the subpackages `rlvitals.diagnose` and `rlvitals.simulate` callable, so that one
name was both a function and a package.  One name can hold one object, and Python binds
`rlvitals.diagnose` to the subpackage whenever `rlvitals.diagnose.<anything>` is imported, so the
functions now have names of their own beside the subpackages: `rlvitals.diagnose_run` and
`rlvitals.simulate_run` (docs/architecture.md, "Public names").  When 0.3 comes, delete this module
and the two lines that call `warn_when_called` (diagnose/__init__.py, simulate/__init__.py)."""

from __future__ import annotations

import sys
import types
import warnings
from typing import Any

__all__ = ["warn_when_called"]

REMOVED_IN = "0.3"


class _WarnWhenCalled(types.ModuleType):
    """A subpackage that, called, warns and calls its function of the same name."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        short = self.__name__.rsplit(".", 1)[-1]
        warnings.warn(
            f"calling the module rlvitals.{short} is deprecated and stops working in rlvitals {REMOVED_IN}: "
            f"call rlvitals.{short}_run(...) (or rlvitals.{short}.{short}(...)) instead.",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(self, short)(*args, **kwargs)


def warn_when_called(module_name: str) -> None:
    """Let the (already imported) subpackage `module_name` be called, with a DeprecationWarning."""
    sys.modules[module_name].__class__ = _WarnWhenCalled
