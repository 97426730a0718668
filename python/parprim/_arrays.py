"""Arrays for parprim: NumPy arrays on the host, CUDA arrays of other
libraries (CuPy, Numba, PyTorch, JAX, ...) through the CUDA Array Interface
(v3) or DLPack, and parprim's own DeviceArray.

Everything here is private to the package; the public behaviour is described
in parprim/__init__.py and python/README.md.
"""

from __future__ import annotations

import operator

import numpy as np

from . import _parprim as _c
from ._parprim import InvalidArgument

from ._types import (BF16, BOOL, CODE, DTYPES, F16, I64, TYPE_NAMES, U8, U16, U64, bf16_dtype,  # noqa: F401
                     bits, is_bf16, is_float, register_bf16)

_SUPPORTED = ", ".join(TYPE_NAMES)

# DLPack device types and type codes (dlpack.h; kDLBfloat = 4)
DL_CPU, DL_CUDA, DL_CUDA_HOST, DL_OPENCL, DL_CUDA_MANAGED = 1, 2, 3, 4, 13
_DL_KIND = {0: "i", 1: "u", 2: "f", 4: "bf", 6: "b"}
_DL_CODE = {"i": 0, "u": 1, "f": 2, "b": 6}


def dl_code(dt):
    """The DLPack type code of a NumPy dtype."""
    return 4 if is_bf16(dt) else _DL_CODE[dt.kind]


def type_error(what, dtype):
    return InvalidArgument(f"parprim: {what} has dtype {dtype}; parprim takes {_SUPPORTED}")


def code_of(dtype, what="a"):
    """The pp_type of a dtype, or InvalidArgument."""
    try:
        return CODE[dtype]
    except (KeyError, TypeError):
        if isinstance(dtype, np.dtype) and is_bf16(dtype):
            register_bf16(dtype)
            return BF16
        raise type_error(what, dtype) from None


# --------------------------------------------------------------------------
# What an object is
# --------------------------------------------------------------------------


def library(obj):
    """The top-level module of obj's type ("numpy", "cupy", "torch", ...)."""
    return type(obj).__module__.partition(".")[0]


def _same(x):
    return x


def host_wrapper(primary):
    """How a host call returns a new array: as a PyTorch CPU tensor sharing
    the NumPy array's memory when the primary input is one, else as is
    (out= arrays are returned as given)."""
    if library(primary) != "torch":
        return _same
    import torch

    def wrap(x):
        if not isinstance(x, np.ndarray):
            return x
        if is_bf16(x.dtype):  # torch.from_numpy takes no bfloat16: its bits, viewed back
            return torch.from_numpy(x.view(np.int16)).view(torch.bfloat16)
        return torch.from_numpy(x)

    return wrap


def dlpack_device(obj):
    """__dlpack_device__() as (type, id), or None."""
    f = getattr(obj, "__dlpack_device__", None)
    if f is None:
        return None
    try:
        dt, di = f()
        return int(dt), int(di)
    except Exception:  # noqa: BLE001 - an object that cannot say is no DLPack array
        return None


def _has_cai(obj):
    """Whether obj has __cuda_array_interface__. Asked of the type for CuPy
    and Numba arrays, which are always in device memory and build the dict
    anew at each access (about a microsecond); asked of the object for
    others (a PyTorch CPU tensor's property raises AttributeError)."""
    if library(obj) in ("cupy", "numba"):
        return hasattr(type(obj), "__cuda_array_interface__")
    return hasattr(obj, "__cuda_array_interface__")


def is_device_array(obj):
    """Whether obj is an array in GPU memory (CUDA Array Interface, or a
    DLPack array whose device is not the CPU)."""
    if isinstance(obj, np.ndarray):
        return False
    if _has_cai(obj):
        return True
    dev = dlpack_device(obj)
    return dev is not None and dev[0] != DL_CPU


# --------------------------------------------------------------------------
# Host arrays
# --------------------------------------------------------------------------


def as_ndarray(a, what="a"):
    """a as a NumPy array without copying where it can be viewed: NumPy
    arrays (and subclasses) as they are, CPU DLPack arrays through
    np.from_dlpack, anything else through np.asarray. GPU arrays are an
    InvalidArgument (they need a cuda context)."""
    if isinstance(a, np.ndarray):
        return a if type(a) is np.ndarray else np.asarray(a)  # subclasses (matrix, masked) as plain arrays
    if is_device_array(a):
        raise InvalidArgument(
            f"parprim: {what} is a GPU array ({type(a).__module__}.{type(a).__name__}); it needs a context of "
            "backend 'cuda' on its device")
    dev = dlpack_device(a)
    if dev is not None and library(a) == "torch" and str(getattr(a, "dtype", "")) == "torch.bfloat16":
        import torch  # NumPy takes no bfloat16 tensor (DLPack or __array__): its bits, viewed as bfloat16

        return np.from_dlpack(a.detach().contiguous().view(torch.int16)).view(bf16_dtype(what))
    if dev is not None and dev[0] == DL_CPU and not hasattr(a, "__array_interface__"):
        try:
            return np.from_dlpack(a)
        except Exception:  # noqa: BLE001 - fall back to the array protocols
            pass
    try:
        return np.asarray(a)
    except Exception as e:  # noqa: BLE001
        raise InvalidArgument(f"parprim: {what} is not an array ({type(a).__name__}): {e}") from None


def host_input(a, what="a"):
    """(array, pp_type): a as a 1-D, C-contiguous, aligned NumPy array of
    native byte order and a parprim element type. a itself (a view of it)
    when it is one already; otherwise a copy, made once. Bool arrays and
    other dtypes are an InvalidArgument."""
    a = as_ndarray(a, what)
    dt = a.dtype
    code = CODE.get(dt)
    if code is None:
        if is_bf16(dt):
            code = code_of(dt, what)
        elif dt.kind in "iuf" and not dt.isnative:
            native = dt.newbyteorder("=")
            code = CODE.get(native)
            if code is not None:
                a = a.astype(native)
        if code is None:
            raise type_error(what, dt)
    if not (a.flags.c_contiguous and a.flags.aligned):
        a = np.array(a, order="C", copy=True)
    if a.ndim != 1:
        a = a.reshape(-1)
    return a, code


def host_flags(f, n, what="flags"):
    """flags as a 1-D contiguous bool or uint8 NumPy array of length n."""
    f = as_ndarray(f, what)
    if f.dtype != BOOL and f.dtype != U8:
        raise InvalidArgument(f"parprim: {what} has dtype {f.dtype}; it must be bool or uint8")
    if f.size != n:
        raise InvalidArgument(f"parprim: {what} has {f.size} elements, a has {n}")
    if not f.flags.c_contiguous:
        f = np.ascontiguousarray(f)
    return f.reshape(-1)


def check_values_dtype(dt, what="values"):
    """sort_pairs values are moved as bytes: objects (references) cannot be;
    the item size is the C call's to check (its value_size)."""
    if dt.hasobject:
        raise InvalidArgument(f"parprim: {what} has dtype {dt} (Python objects); values must be plain data")


def host_values(v, n, what="values"):
    """sort_pairs values: a 1-D contiguous aligned NumPy array of n plain
    items (any dtype without objects)."""
    v = as_ndarray(v, what)
    check_values_dtype(v.dtype, what)
    if v.size != n:
        raise InvalidArgument(f"parprim: {what} has {v.size} elements, keys have {n}")
    if not (v.flags.c_contiguous and v.flags.aligned):
        v = np.array(v, order="C", copy=True)
    return v.reshape(-1)


def host_offsets(o, what="offsets"):
    """Segment offsets as a 1-D contiguous uint64 NumPy array: uint64 as it
    is (a view of it), int64 viewed as uint64 (the same bits, once no offset
    is negative), other integer types converted. Empty, non-integer or
    negative offsets are an InvalidArgument; the C call checks the rest
    (non-decreasing, at most n)."""
    o = as_ndarray(o, what)
    if o.dtype.kind not in "iu":
        raise InvalidArgument(f"parprim: {what} has dtype {o.dtype}; offsets must be integers")
    o = np.ascontiguousarray(o.reshape(-1))
    if o.size == 0:
        raise InvalidArgument(f"parprim: {what} is empty; it holds nseg + 1 >= 1 entries")
    if o.dtype == U64:
        return o
    if o.dtype.kind == "i" and o.min() < 0:
        i = int(np.argmax(o < 0))
        raise InvalidArgument(f"parprim: {what}[{i}] = {o[i]} is negative")
    return o.view(U64) if o.dtype == I64 else o.astype(U64)


def check_offsets(o, n, what="offsets"):
    """What the C call checks on cpu (non-decreasing, at most n), for host
    offsets given to a GPU backend, where the C call does not check them
    (include/parprim.h): InvalidArgument naming the first bad one."""
    down = np.flatnonzero(o[1:] < o[:-1])
    if down.size:
        i = int(down[0]) + 1
        raise InvalidArgument(f"parprim: {what}[{i}] = {o[i]} is below {what}[{i - 1}] = {o[i - 1]} "
                              "(offsets must be non-decreasing)")
    if int(o[-1]) > n:
        i = int(np.argmax(o > n))
        raise InvalidArgument(f"parprim: {what}[{i}] = {o[i]} is past the end of the array (n = {n})")


def host_out(out, dtype, n, what="out"):
    """Checks a host out= array: a writable, C-contiguous, aligned NumPy
    array of dtype with n elements. Returns its 1-D view."""
    if not isinstance(out, np.ndarray):
        dev = None if is_device_array(out) else dlpack_device(out)
        if dev is None or dev[0] != DL_CPU:
            raise InvalidArgument(f"parprim: {what} must be a NumPy array or CPU tensor here, not "
                                  f"{type(out).__module__}.{type(out).__name__}")
        try:
            out = np.from_dlpack(out)  # the same memory (e.g. a PyTorch CPU tensor)
        except Exception as e:  # noqa: BLE001
            raise InvalidArgument(f"parprim: {what} cannot be viewed as a NumPy array: {e}") from None
    if out.dtype != dtype:
        raise InvalidArgument(f"parprim: {what} has dtype {out.dtype}, expected {dtype}")
    if out.size != n:
        raise InvalidArgument(f"parprim: {what} has {out.size} elements, expected {n}")
    if not out.flags.c_contiguous:
        raise InvalidArgument(f"parprim: {what} is not C-contiguous (out= arrays are written in place)")
    if not out.flags.writeable:
        raise InvalidArgument(f"parprim: {what} is read-only")
    if not out.flags.aligned:
        raise InvalidArgument(f"parprim: {what} is not aligned to its item size")
    return out.reshape(-1)


def same_memory(x, y):
    """Whether two 1-D contiguous NumPy arrays are exactly the same memory."""
    return (x.__array_interface__["data"][0] == y.__array_interface__["data"][0] and x.nbytes == y.nbytes)


def check_no_overlap(out, arrays, what="out", allow_same=()):
    """InvalidArgument if out (a host NumPy array) overlaps one of arrays;
    out may be exactly the memory of an array of allow_same (in place)."""
    for x in arrays:
        if x is None or x.size == 0 or out.size == 0:
            continue
        if np.may_share_memory(out, x):
            if same_memory(out, x) and any(x is y for y in allow_same):
                continue
            raise InvalidArgument(f"parprim: argument '{what}' overlaps an input")


# --------------------------------------------------------------------------
# Values of the element type
# --------------------------------------------------------------------------


def index(x, what):
    try:
        return operator.index(x)
    except TypeError:
        raise InvalidArgument(f"parprim: {what} must be an integer, not {type(x).__name__}") from None


# --------------------------------------------------------------------------
# GPU arrays: the CUDA Array Interface and DLPack
# --------------------------------------------------------------------------


class DeviceView:
    """What parprim needs of a GPU array: its address, element count, shape
    and dtype, device, the stream its producer orders it on, and the objects
    to keep alive while the address is used."""

    __slots__ = ("obj", "ptr", "n", "dtype", "device", "stream", "keep", "readonly", "contiguous", "shape")

    def __init__(self, obj, ptr, n, dtype, device, stream, keep, readonly, contiguous, shape):
        self.obj, self.ptr, self.n, self.dtype = obj, ptr, n, dtype
        self.device, self.stream, self.keep = device, stream, keep
        self.readonly, self.contiguous, self.shape = readonly, contiguous, shape


def _c_contiguous(shape, strides, itemsize):
    """Whether strides (in bytes; None = C order) describe a C-contiguous
    layout of shape."""
    if strides is None:
        return True
    expect = itemsize
    for dim, st in zip(reversed(shape), reversed(strides)):
        if dim != 1 and st != expect:
            return False
        expect *= dim
    return True


def cai_view(obj, what="a", cai=None):
    """A DeviceView from __cuda_array_interface__ (v2/v3: shape, typestr,
    data, strides, stream); cai: the interface's dict, if read already."""
    if cai is None:
        cai = obj.__cuda_array_interface__
    try:
        dtype = np.dtype(cai["typestr"])
    except TypeError:
        raise InvalidArgument(f"parprim: {what} has typestr {cai.get('typestr')!r}") from None
    descr = cai.get("descr")
    if descr and len(descr) > 1:
        raise InvalidArgument(f"parprim: {what} has a structured dtype")
    shape = tuple(int(s) for s in cai["shape"])
    n = 1
    for s in shape:
        n *= s
    ptr, readonly = cai["data"]
    ptr = int(ptr or 0)
    strides = cai.get("strides")
    contiguous = _c_contiguous(shape, None if strides is None else tuple(strides), dtype.itemsize)
    if cai.get("mask") is not None:
        raise InvalidArgument(f"parprim: {what} has a mask (__cuda_array_interface__['mask'])")
    dev = _c.pointer_device(ptr) if ptr else -1
    stream = cai.get("stream") if int(cai.get("version", 0)) >= 3 else None
    return DeviceView(obj, ptr, n, dtype, (DL_CUDA, dev), stream, (obj,), bool(readonly), contiguous, shape)


def torch_stream(obj):
    """The handle of PyTorch's current stream on obj's device, for
    __dlpack__(stream=...): 1 for the legacy default stream (handle 0)."""
    import torch  # the input is a torch tensor, so torch is imported already

    s = torch.cuda.current_stream(obj.device).cuda_stream
    return int(s) or 1


def dlpack_view(obj, stream, what="a"):
    """A DeviceView from __dlpack__(stream=stream): the capsule is read, not
    consumed, and kept alive with the view (its producer frees the tensor
    when the capsule is collected)."""
    try:
        cap = obj.__dlpack__(stream=stream) if stream is not None else obj.__dlpack__()
    except TypeError:
        cap = obj.__dlpack__()
    ptr, dtype_, did, code, bits, lanes, shape, strides, ro = _c.dlpack_info(cap)
    kind = _DL_KIND.get(code)
    if kind is None or lanes != 1 or bits % 8 or (kind == "bf" and bits != 16):
        raise InvalidArgument(f"parprim: {what} has a DLPack dtype (code {code}, {bits} bits, {lanes} lanes) "
                              "that parprim does not take")
    dtype = bf16_dtype(what) if kind == "bf" else np.dtype(f"{kind}{bits // 8}") if kind != "b" else BOOL
    n = 1
    for s in shape:
        n *= s
    contiguous = _c_contiguous(shape, None if strides is None else tuple(s * dtype.itemsize for s in strides),
                               dtype.itemsize)
    return DeviceView(obj, ptr, n, dtype, (dtype_, did), stream, (obj, cap), bool(ro), contiguous, tuple(shape))


def device_view(obj, what="a"):
    """The DeviceView of a GPU array: CUDA Array Interface v3 first (CuPy,
    Numba: it names the producer's stream), else DLPack (PyTorch, JAX, ...:
    parprim names the stream it will use), else CAI v2."""
    lib = library(obj)
    cai = None
    if lib not in ("torch", "jax", "jaxlib") and _has_cai(obj):
        cai = obj.__cuda_array_interface__  # read once: see _has_cai
        try:
            version = int(cai.get("version", 0))
        except Exception:  # noqa: BLE001
            version = 0
        if version >= 3 or not hasattr(obj, "__dlpack__"):
            return cai_view(obj, what, cai)
    if hasattr(obj, "__dlpack__"):
        stream = torch_stream(obj) if lib == "torch" else 1
        return dlpack_view(obj, stream, what)
    if cai is not None or _has_cai(obj):
        return cai_view(obj, what, cai)
    raise InvalidArgument(f"parprim: {what} ({type(obj).__name__}) has neither __cuda_array_interface__ nor "
                          "__dlpack__")


def make_contiguous(obj, what="a"):
    """A C-contiguous copy of a strided GPU array, made by its own library."""
    lib = library(obj)
    if lib == "cupy":
        import cupy

        return cupy.ascontiguousarray(obj)
    if lib == "torch":
        return obj.contiguous()
    if lib == "numba":
        try:
            return _numba_copy(obj)
        except Exception as e:  # noqa: BLE001
            raise InvalidArgument(f"parprim: cannot make a contiguous copy of the strided Numba array {what}: {e}") \
                from None
    if lib in ("jax", "jaxlib"):
        return obj  # JAX arrays are contiguous
    raise InvalidArgument(f"parprim: {what} is a strided GPU array of {lib}; parprim needs it C-contiguous")


def _numba_copy(obj):
    from numba import cuda

    out = cuda.device_array(obj.shape, dtype=obj.dtype)
    out[...] = obj
    return out


def torch_dtype(dtype):
    import torch

    name = "bool" if dtype == BOOL else dtype.name
    t = getattr(torch, name, None)
    if t is None:
        raise InvalidArgument(f"parprim: this PyTorch has no dtype {name}")
    return t


class DeviceBuffer:
    """n bytes of a context's memory (pp_malloc), freed (pp_free) when the
    last array over it goes."""

    __slots__ = ("ctx", "ptr", "nbytes", "__weakref__")

    def __init__(self, ctx, nbytes):
        self.ctx = ctx
        self.nbytes = nbytes
        self.ptr = ctx.malloc(nbytes)

    def __del__(self):
        ptr, self.ptr = self.ptr, 0
        if ptr:
            try:
                self.ctx.free(ptr)
            except Exception:  # noqa: BLE001 - nothing to tell at collection time
                pass


class DeviceArray:
    """A one-dimensional array in a cuda context's memory (pp_malloc),
    returned where a GPU input's own library cannot allocate the result
    (JAX and other DLPack producers whose arrays are read-only).

    It exports ``__cuda_array_interface__`` (v3) and ``__dlpack__`` /
    ``__dlpack_device__``, so CuPy (``cupy.asarray(x)``), Numba, PyTorch
    (``torch.from_dlpack(x)``) and JAX (``jax.numpy.from_dlpack(x)``) take it
    without a copy; ``get()`` or ``numpy.asarray(x)`` copies it to the host.
    Its data are complete when parprim returns it. The memory is freed when
    the last reference goes (close the context only after that).
    """

    __slots__ = ("_buf", "_offset", "_n", "_dtype", "_device", "__weakref__")

    def __init__(self, buf, n, dtype, device, offset=0):
        self._buf, self._n, self._dtype, self._device, self._offset = buf, n, np.dtype(dtype), device, offset

    @classmethod
    def empty(cls, ctx, n, dtype, device):
        """n uninitialized elements of dtype in the memory of ctx (the
        low-level context _parprim.Context)."""
        dtype = np.dtype(dtype)
        return cls(DeviceBuffer(ctx, n * dtype.itemsize), n, dtype, device)

    @property
    def ptr(self):
        """The device address of the first element."""
        return (self._buf.ptr + self._offset) if self._n else (self._buf.ptr or 0)

    @property
    def dtype(self):
        return self._dtype

    @property
    def shape(self):
        return (self._n,)

    @property
    def size(self):
        return self._n

    @property
    def nbytes(self):
        return self._n * self._dtype.itemsize

    @property
    def ndim(self):
        return 1

    def __len__(self):
        return self._n

    def __getitem__(self, key):
        """Contiguous slices only (x[a:b]): a view sharing the memory."""
        if not isinstance(key, slice):
            return self.get()[key]
        start, stop, step = key.indices(self._n)
        if step != 1:
            raise InvalidArgument("parprim: DeviceArray takes contiguous slices only")
        n = max(0, stop - start)
        return DeviceArray(self._buf, n, self._dtype, self._device, self._offset + start * self._dtype.itemsize)

    @property
    def __cuda_array_interface__(self):
        return {"shape": (self._n,), "typestr": self._dtype.str, "data": (self.ptr, False), "version": 3,
                "strides": None, "stream": None}

    def __dlpack_device__(self):
        return (DL_CUDA, self._device)

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        """A DLPack capsule over this memory (the data are complete, so any
        stream may use it at once)."""
        if copy:
            raise BufferError("parprim.DeviceArray.__dlpack__: copy=True is not supported")
        if dl_device is not None and tuple(dl_device) != self.__dlpack_device__():
            raise BufferError("parprim.DeviceArray.__dlpack__: cannot export to another device")
        code = dl_code(self._dtype)
        return _c.make_dlpack(self, self.ptr, self._n, code, self._dtype.itemsize * 8, DL_CUDA, self._device)

    def get(self):
        """A NumPy copy of the data (host memory)."""
        out = np.empty(self._n, self._dtype)
        if self._n:
            self._buf.ctx.download(bits(out), self.ptr, self.nbytes)
        return out

    def __array__(self, dtype=None, copy=None):
        a = self.get()
        return a if dtype is None else a.astype(dtype)

    def __repr__(self):
        return f"parprim.DeviceArray(n={self._n}, dtype={self._dtype}, device=cuda:{self._device})"
