"""The element types of parprim: the NumPy dtype of each pp_type, and the
half types (float16 is NumPy's; bfloat16 is ml_dtypes', imported only when a
bfloat16 array or tensor is met, never a dependency).

Everything here is private to the package (_arrays.py re-exports it).
"""

from __future__ import annotations

import sys

import numpy as np

from . import _parprim as _c
from ._parprim import InvalidArgument

# The NumPy dtype of each pp_type, from the C library's type names ("i8",
# "u16", "f32", "f16", "bf16": kind and bits): the index of a dtype here is
# its pp_type. bfloat16 (PP_BF16) is ml_dtypes' dtype, which NumPy lacks: its
# entry is None until ml_dtypes is seen (bf16_dtype), never imported before.
_KINDS = {"i": "int", "u": "uint", "f": "float", "b": "bfloat"}
TYPE_NAMES = tuple(_KINDS[t[0]] + t.lstrip("biuf") for t in _c.TYPE_NAMES)
F16 = TYPE_NAMES.index("float16")
BF16 = TYPE_NAMES.index("bfloat16")
DTYPES = [None if i == BF16 else np.dtype(t) for i, t in enumerate(TYPE_NAMES)]
CODE = {dt: i for i, dt in enumerate(DTYPES) if dt is not None}
U64 = np.dtype(np.uint64)
I64 = np.dtype(np.int64)
U16 = np.dtype(np.uint16)
BOOL = np.dtype(np.bool_)
U8 = np.dtype(np.uint8)


def _set_scalars():
    """Gives the extension the one-element arrays it returns single results
    through (see ppy_make_scalar in python/src/values.c; bf16 as the pair
    (array, its bits)), and the dtypes its direct calls (python/src/direct.c)
    allocate new outputs with."""
    arrays = [np.zeros(1, dt) if dt is not None else None for dt in DTYPES]
    if DTYPES[BF16] is not None:
        arrays[BF16] = (arrays[BF16], arrays[BF16].view(U16))
    _c._set_scalar_arrays(arrays)
    _c._set_allocator(np.empty, tuple(DTYPES))


def is_bf16(dt):
    """Whether a NumPy dtype is bfloat16 (ml_dtypes' registers itself as a
    kind 'V' dtype of 2 bytes named 'bfloat16')."""
    return dt.kind == "V" and dt.itemsize == 2 and dt.name == "bfloat16"


def is_float(dt):
    """Whether a NumPy dtype is a float type of parprim: kind 'f' (float16,
    float32, float64) or bfloat16 (ml_dtypes' kind 'V')."""
    return dt.kind == "f" or is_bf16(dt)


def register_bf16(dt):
    """Makes dt (a bfloat16 dtype) the dtype of PP_BF16."""
    if DTYPES[BF16] is None:
        DTYPES[BF16] = dt
        CODE[dt] = BF16
        _set_scalars()


def bf16_dtype(what="a"):
    """The NumPy dtype of PP_BF16 (ml_dtypes.bfloat16), importing ml_dtypes
    on first need; InvalidArgument where it is not installed."""
    if DTYPES[BF16] is None:
        try:
            import ml_dtypes
        except ImportError:
            raise InvalidArgument(f"parprim: {what} is bfloat16, which parprim maps to NumPy through the package "
                                  "ml_dtypes (pip install ml_dtypes); it is not installed") from None
        register_bf16(np.dtype(ml_dtypes.bfloat16))
    return DTYPES[BF16]


if "ml_dtypes" in sys.modules:
    register_bf16(np.dtype(sys.modules["ml_dtypes"].bfloat16))
_set_scalars()


def bits(x):
    """What the extension takes of a host array: x, or for bfloat16 (which
    exports no buffer) its bits as a uint16 view, passed with the type
    PP_BF16 (python/src/binding.h, PPY_NTYPES)."""
    return x.view(U16) if x.dtype.kind == "V" and is_bf16(x.dtype) else x
