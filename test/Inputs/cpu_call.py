"""Calls a CPU reference (agent-cpu-reference, compiled by clang into a shared
library) through ctypes: one bare pointer per input, then per output."""

import ctypes


def call(library, name, *arrays):
    """Calls `name` of the loaded `library` on the NumPy `arrays` (inputs, then
    the outputs it writes)."""
    function = getattr(library, name)
    function.restype = None
    function(*[ctypes.c_void_p(a.ctypes.data) for a in arrays])
