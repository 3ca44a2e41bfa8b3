"""How warpdex meets the caller's arrays: which library made them, where to allocate results, which stream.

Inputs are taken as they are (no copy) when they are arrays of NumPy, CuPy, PyTorch, JAX or any other
DLPack or buffer-protocol producer (JAX arrays only as inputs: they are immutable); objects with only ``__cuda_array_interface__`` (Numba) are viewed
through CuPy (no copy either). Python lists and tuples are converted to NumPy arrays (a copy). Results
are allocated with the library of the first array argument, on its device.
"""

from __future__ import annotations

from typing import Any

import numpy as np

# DLPack device types (dlpack.h): the two warpdex serves.
_DLPACK_CPU = 1
_DLPACK_CUDA = 2
_DLPACK_CUDA_MANAGED = 13


def library_of(array: Any) -> str:
    """The top-level module of the array's type: 'numpy', 'cupy', 'torch', 'jax', 'jaxlib', ..."""
    return type(array).__module__.partition(".")[0]


def as_array(value: Any, dtype: Any, name: str) -> Any:
    """`value` itself when it is an array, a CuPy view of a ``__cuda_array_interface__`` object, or a NumPy
    copy of a list, tuple or range (converted to `dtype`)."""
    if type(value) is np.ndarray:
        return value
    if hasattr(value, "__dlpack__"):
        if library_of(value) in ("jax", "jaxlib") and is_cuda(value):
            # JAX computes on streams of its own, which warpdex cannot name: wait for the array's producer.
            value.block_until_ready()
        return value
    if hasattr(value, "__cuda_array_interface__"):
        import cupy

        return cupy.asarray(value)
    if isinstance(value, (list, tuple, range)):
        return _from_sequence(value, np.dtype(dtype), name)
    try:
        memoryview(value)
    except TypeError:
        raise TypeError(
            f"{name} must be an array (NumPy, CuPy, PyTorch, JAX or any DLPack producer) or a list, "
            f"got {type(value).__name__}"
        ) from None
    return np.asarray(value)


def _from_sequence(value: Any, dtype: np.dtype, name: str) -> np.ndarray:
    """A NumPy copy of a list, tuple or range as `dtype`, refusing what would change a value (floats into
    integers, integers out of the dtype's range)."""
    array = np.asarray(value)
    if array.size == 0:
        return array.astype(dtype)
    if array.dtype.kind in "iu" and dtype.kind in "iu":
        limits = np.iinfo(dtype)
        if int(array.min()) < limits.min or int(array.max()) > limits.max:
            raise ValueError(f"{name}: values outside the range of {dtype}")
        return array.astype(dtype)
    if array.dtype.kind == dtype.kind or (array.dtype.kind in "iub" and dtype.kind == "f"):
        return array.astype(dtype)
    raise ValueError(f"{name}: a list of {array.dtype} values cannot become {dtype} without changing them; "
                     f"pass an array of the dtype the operation takes")


def is_cuda(array: Any) -> bool:
    """Whether the array lives in CUDA device memory."""
    if type(array) is np.ndarray:
        return False
    device_type, _ = array.__dlpack_device__()
    return device_type in (_DLPACK_CUDA, _DLPACK_CUDA_MANAGED)


def dtype_of(array: Any) -> np.dtype:
    """The array's element type as a NumPy dtype (for NumPy, CuPy, PyTorch and JAX arrays alike)."""
    dtype = array.dtype
    if isinstance(dtype, np.dtype):
        return dtype
    return np.dtype(str(dtype).rpartition(".")[2])


def _torch_dtype(dtype: Any) -> Any:
    import torch

    return {
        np.dtype(np.uint8): torch.uint8,
        np.dtype(np.int32): torch.int32,
        np.dtype(np.uint32): torch.uint32,
        np.dtype(np.uint64): torch.uint64,
        np.dtype(np.float32): torch.float32,
    }[np.dtype(dtype)]


def cuda_library() -> str:
    """The library that allocates CUDA results for callers whose own cannot: CuPy, else PyTorch."""
    for name in ("cupy", "torch"):
        try:
            __import__(name)
            return name
        except ImportError:
            continue
    raise ValueError("CUDA results need CuPy or PyTorch to hold them; install one of them")


def empty(like: Any, size: int, dtype: Any, library: str | None = None) -> Any:
    """An uninitialized one-dimensional array of `size` elements of `dtype`, made by the library of `like`
    on its device (NumPy for host arrays of libraries that cannot allocate here, CuPy or PyTorch for CUDA
    ones)."""
    if library is None:
        if type(like) is np.ndarray:
            return np.empty(size, dtype)
        library = library_of(like)
    if library == "torch":
        import torch

        return torch.empty(size, dtype=_torch_dtype(dtype), device=like.device if like is not None else "cuda")
    if library == "cupy":
        import cupy

        # On the device of `like` (a CuPy array of another GPU than the current one: DistributedSlabMap's).
        with cupy.cuda.Device(like.device.id if library_of(like) == "cupy" else None):
            return cupy.empty(size, dtype)
    if library == "numpy" or (like is not None and not is_cuda(like)):
        return np.empty(size, dtype)
    return empty(like, size, dtype, cuda_library())


def full(like: Any, size: int, value: int, dtype: Any) -> Any:
    """As `empty`, every element `value` (an integer that fits `dtype`)."""
    if type(like) is not np.ndarray and library_of(like) == "torch" and np.dtype(dtype) == np.uint32:
        # PyTorch implements few operations for uint32: fill the same bits as int32 and view them.
        import torch

        signed = int(np.array(value, np.uint32).view(np.int32))
        return torch.full((size,), signed, dtype=torch.int32, device=like.device).view(torch.uint32)
    array = empty(like, size, dtype)
    if library_of(array) == "cupy":
        import cupy

        with cupy.cuda.Device(array.device.id):  # filled on its own device
            array[...] = value
        return array
    array[...] = value
    return array


def as_bool(array: Any) -> Any:
    """A uint8 array of 0 and 1 viewed as booleans (no copy)."""
    if library_of(array) == "torch":
        import torch

        return array.view(torch.bool)
    return array.view(np.bool_)


def stream_of(like: Any, stream: Any) -> int:
    """The CUDA stream a call on `like` runs on, as an integer handle: `stream` when given (an integer, a
    CuPy stream or a PyTorch stream), else the current stream of the array's library (CuPy's
    ``get_current_stream()``, PyTorch's ``current_stream(device)``), else 0 (the legacy default stream).
    Host arrays ignore it."""
    if stream is not None:
        if isinstance(stream, int):
            return stream
        for attribute in ("ptr", "cuda_stream"):
            handle = getattr(stream, attribute, None)
            if handle is not None:
                return int(handle)
        raise TypeError(f"stream must be an int, a CuPy stream or a PyTorch stream, got {type(stream).__name__}")
    if type(like) is np.ndarray:
        return 0
    library = library_of(like)
    if library == "cupy":
        import cupy

        return cupy.cuda.get_current_stream().ptr
    if library == "torch" and like.is_cuda:
        import torch

        return torch.cuda.current_stream(like.device).cuda_stream
    return 0


def writable(array: Any, name: str) -> Any:
    """`array`, an output the call writes into; JAX arrays are refused (ValueError): they are immutable, and
    DLPack does not say so."""
    if library_of(array) in ("jax", "jaxlib"):
        raise ValueError(f"{name}: JAX arrays are immutable and cannot be written into; pass a NumPy, CuPy or "
                         f"PyTorch array, or leave {name} out to get a new array")
    return array


def to_numpy(array: Any) -> np.ndarray:
    """A NumPy array of `array`'s elements: itself for host arrays NumPy can view, else a copy to the host
    (CuPy's ``get``, PyTorch's ``cpu``)."""
    if type(array) is np.ndarray:
        return array
    if hasattr(array, "get") and library_of(array) == "cupy":
        return array.get()
    if library_of(array) == "torch":
        import torch

        host = array.detach().cpu()
        unsigned = {getattr(torch, f"uint{bits}", None): getattr(torch, f"int{bits}") for bits in (16, 32, 64)}
        if host.dtype in unsigned:  # PyTorch converts few unsigned types to NumPy: move the bits as signed
            return host.view(unsigned[host.dtype]).numpy().view(np.dtype(str(host.dtype).rpartition(".")[2]))
        return host.numpy()
    return np.asarray(array)


def owned_library(cuda: bool, library: str | None) -> str:
    """The library that receives arrays the extension allocated: NumPy on the host; on a CUDA device
    `library` when given ('cupy' or 'torch'), else CuPy when installed, else PyTorch, else '' (DLPack
    capsules)."""
    if not cuda:
        return "numpy"
    if library is not None:
        if library not in ("cupy", "torch"):
            raise ValueError(f"library must be 'cupy' or 'torch', got {library!r}")
        return library
    try:
        return cuda_library()
    except ValueError:
        return ""
