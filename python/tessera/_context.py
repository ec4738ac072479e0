"""Execution contexts: which backend runs the work, and the lock that gives a
context to one thread at a time."""

import operator
import os
import threading

from . import _core

__all__ = ["Context", "default_context", "set_default_context"]

_BACKENDS = {"auto": 0, "cpu": 1, "cuda": 2}


class Context(_core.Context):
    """Where tessera runs: the CPU backend (OpenMP threads) or a GPU.

    Args:
        backend: ``"auto"`` (the GPU when tessera was built with CUDA and a GPU
            and driver are usable, else the CPU), ``"cpu"`` or ``"cuda"``
            (:class:`NoDeviceError` where no GPU is usable).
        device: CUDA device ordinal.
        threads: CPU threads (0: OpenMP's default).
        stream: a CUDA stream to run on, as an int or an object with a ``ptr``
            attribute (a ``cupy.cuda.Stream``); 0 (CuPy's null stream) is
            CUDA's legacy default stream; None gives the context a stream of
            its own. A context on CuPy's current stream needs no ordering with
            CuPy's work; on another stream, calls with CuPy arrays order the
            two streams on the GPU (events; the host does not wait).

    A context serves one thread at a time: each call takes its lock (with the
    GIL released while it waits and while the library works), so objects that
    share a context may be used from several threads, one call at a time.
    Objects made on a context keep it alive.

    Attributes:
        backend: ``"cpu"`` or ``"cuda"``, what ``"auto"`` resolved to.
        stream: the CUDA stream as an int (0 on the CPU).
    """

    def __new__(cls, backend="auto", device=0, threads=0, stream=None):
        if backend not in _BACKENDS:
            raise ValueError(f"backend must be one of {sorted(_BACKENDS)}, got {backend!r}")
        pointer = 0 if stream is None else stream_pointer(stream)
        # The C object keeps the stream's owner (a CuPy stream) alive until the
        # context is destroyed, which synchronises the stream.
        self = super().__new__(cls, _BACKENDS[backend], int(device), int(threads), pointer, stream)
        self._device = int(device)
        return self

    @property
    def device(self):
        """The CUDA device ordinal the context was made for."""
        return self._device

    def wait_for_stream(self, stream):
        """Order the context's later work after the work queued so far on
        ``stream`` (an int or an object with a ``ptr`` attribute, such as a
        ``cupy.cuda.Stream`` or ``torch.cuda.Stream``), on the GPU: the host
        does not wait. Nothing to do on the CPU or for the context's own
        stream. Calls with CuPy arrays do this with CuPy's current stream."""
        self._wait_for_stream(stream_pointer(stream))

    def stream_wait(self, stream):
        """The reverse of :meth:`wait_for_stream`: ``stream``'s later work
        waits on the GPU for the context's work queued so far."""
        self._stream_wait(stream_pointer(stream))

    def __repr__(self):
        return f"tessera.Context(backend={self.backend!r}, device={self._device})"


LEGACY_STREAM = 1
"""cudaStreamLegacy: what stream 0 means to CUDA's calls (and CuPy's null stream)."""


def stream_pointer(stream):
    """A stream given as an int or by its ``ptr`` attribute, as the int the
    library takes (0, the default stream, as cudaStreamLegacy)."""
    pointer = getattr(stream, "ptr", stream)
    try:
        pointer = operator.index(pointer)
    except TypeError:
        raise TypeError(f"stream: expected an int or an object with an int 'ptr', got {type(stream).__name__}") from None
    if pointer < 0:
        raise ValueError(f"stream: a CUDA stream is an address, not {pointer}")
    return pointer or LEGACY_STREAM


_default = None
_default_lock = threading.Lock()


def default_context():
    """The context used when a call names none.

    Made on first use with ``backend="auto"``, or with the backend named by the
    environment variable ``TESSERA_BACKEND`` (``auto``, ``cpu`` or ``cuda``).
    """
    global _default
    context = _default
    if context is None:
        with _default_lock:
            if _default is None:
                _default = Context(os.environ.get("TESSERA_BACKEND", "auto") or "auto")
            context = _default
    return context


def set_default_context(context):
    """Make ``context`` (a :class:`Context`) the one used when a call names none."""
    global _default
    if not isinstance(context, Context):
        raise TypeError(f"expected a tessera.Context, got {type(context).__name__}")
    with _default_lock:
        _default = context


def resolve(context):
    """The context to use: ``context``, or the default one when it is None."""
    if context is None:
        return _default if _default is not None else default_context()
    if not isinstance(context, Context):
        raise TypeError(f"context must be a tessera.Context, got {type(context).__name__}")
    return context
