"""`rlvitals.diagnose(run)` and `rlvitals.simulate(name)` are functions, and `rlvitals.diagnose`
and `rlvitals.simulate` are also subpackages (`import rlvitals.diagnose.model`,
`from rlvitals.diagnose import Finding`).  A package attribute can be only one object, so the
subpackage module itself is made callable: calling it calls its function of the same name."""

from __future__ import annotations

import sys
import types
from typing import Any

__all__ = ["make_callable"]


class _CallableModule(types.ModuleType):
    """A module that forwards calls to its function named like the module's last component."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return getattr(self, self.__name__.rsplit(".", 1)[-1])(*args, **kwargs)


def make_callable(module_name: str) -> None:
    """Make the (already imported) module `module_name` callable (see the module docstring)."""
    sys.modules[module_name].__class__ = _CallableModule
