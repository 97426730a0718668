"""The ``parprim`` command's arrays and option values: .npy files in and out
(memory-mapped reads, atomic writes), option values as scalars of the
input's type, results printed. See cli.py.
"""

from __future__ import annotations

import os
import tempfile

import numpy as np

from ._arrays import TYPE_NAMES

# Above this many elements the printed result is abbreviated by NumPy.
PRINT_THRESHOLD = 1000


class CliError(Exception):
    """A failure that ends the command with exit status 1 and a message."""


class UsageError(Exception):
    """An option value that does not fit the input: exit status 2."""


def describe(a):
    return f"{a.size} {a.dtype} element{'s' if a.size != 1 else ''}"


def load_array(path, what="input", flat=False, allow_bool=False, shaped=False):
    """Opens a .npy file memory-mapped and checks that parprim can take it.

    Returns a native-byte-order ndarray (a read-only memmap where the file
    allows it). flat: any shape is taken as its elements in C order;
    shaped: any shape is kept (commands with --axis); otherwise the array
    must be one-dimensional.
    """
    try:
        try:
            a = np.load(path, mmap_mode="r", allow_pickle=False)
        except ValueError:
            # files that cannot be mapped (e.g. empty arrays on some
            # platforms) are read instead; anything else fails the same way
            a = np.load(path, allow_pickle=False)
    except OSError as e:
        raise CliError(f"cannot read {what} '{path}': {e.strerror or e}") from None
    except ValueError as e:
        msg = str(e)
        if "pickle" in msg:
            msg = "not a .npy file"
        raise CliError(f"cannot read {what} '{path}': {msg}") from None
    if not isinstance(a, np.ndarray):  # an .npz archive
        if hasattr(a, "close"):
            a.close()
        raise CliError(f"{what} '{path}' is an .npz archive; give one array as a .npy file")
    if a.dtype.name not in TYPE_NAMES and not (allow_bool and a.dtype == np.bool_):
        raise CliError(f"{what} '{path}' holds {a.dtype} elements; parprim takes "
                       f"{', '.join(TYPE_NAMES)}")
    if a.ndim != 1 and not shaped:
        if not flat:
            raise CliError(f"{what} '{path}' has shape {a.shape}; this command takes a "
                           f"one-dimensional array")
        a = a.reshape(-1)  # a copy only where the file is in Fortran order
    if not a.dtype.isnative:
        a = a.astype(a.dtype.newbyteorder("="))
    return a


def save_array(path, a):
    """Writes a as .npy to exactly path, replacing it atomically."""
    directory = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(prefix=".parprim-", suffix=".npy", dir=directory)
    except OSError as e:
        raise CliError(f"cannot write '{path}': {e.strerror or e}") from None
    try:
        with os.fdopen(fd, "wb") as f:
            np.save(f, np.asarray(a), allow_pickle=False)
        mode = 0o666 & ~_umask()
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except OSError as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise CliError(f"cannot write '{path}': {e.strerror or e}") from None


def _umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


def parse_scalar(text, dtype, option):
    """The value of an option as a scalar of the array's dtype; a usage
    error (exit 2) where it is no number or does not fit the type."""
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        try:
            v = int(text, 0)
        except ValueError:
            try:
                f = float(text)
            except ValueError:
                raise UsageError(f"{option}: '{text}' is not a number") from None
            if not f.is_integer():
                raise UsageError(f"{option}: '{text}' is not an integer, and the input holds "
                                  f"{dtype} elements") from None
            v = int(f)
        info = np.iinfo(dtype)
        if not info.min <= v <= info.max:
            hint = ""
            if option == "--range UPPER" and v == info.max + 1:
                hint = f"; to count up to {info.max}, use UPPER {info.max} with --right-closed"
            raise UsageError(f"{option}: {text} does not fit {dtype} "
                              f"([{info.min}, {info.max}]){hint}")
        return dtype.type(v)
    try:
        return dtype.type(float(text))
    except ValueError:
        raise UsageError(f"{option}: '{text}' is not a number") from None


def show(result, dtype=None):
    """Prints an array or a scalar to stdout."""
    a = np.asarray(result)
    if a.ndim == 0:
        if dtype is not None:
            a = a.astype(dtype)
        print(a[()])
        return
    with np.printoptions(threshold=PRINT_THRESHOLD):
        print(a)
