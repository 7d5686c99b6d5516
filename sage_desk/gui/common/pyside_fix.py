"""A stop-gap for a PySide6 6.12 bug on Python 3.11: void Qt methods return None without a reference.

Every call of a Qt method returning `void` (setPen, lineTo, setBrush ...) takes one reference
from `None` and gives none back. On Python 3.12+ `None` is immortal (PEP 683) and nothing
happens; on 3.11 its count reaches zero after some thousands of paints and the interpreter aborts
with "none_dealloc: deallocating None". Measured with PySide6 6.12.0 on CPython 3.11:
`sys.getrefcount(None)` drops by exactly one per `QPainter.setPen(pen)` call.

The cure is a PySide6 release without the bug, or Python 3.12+. Until then we do what 3.12 does:
give `None` a reference count so large that no run of the app can spend it.
"""

from __future__ import annotations

import ctypes
import sys

_HUGE = 1 << 60


def make_none_immortal() -> bool:
    """On CPython before 3.12, raise None's reference count out of reach; True when it did."""
    if sys.version_info >= (3, 12) or sys.implementation.name != "cpython":
        return False
    # ob_refcnt is the first field of every PyObject in a release build of CPython 3.11
    refcount = ctypes.c_ssize_t.from_address(id(None))
    if refcount.value < _HUGE:
        refcount.value += _HUGE
    return True
