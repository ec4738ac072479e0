"""Exceptions raised for the library's statuses.

Every exception carries the library's message (what failed and where: the
file and line of a bad Matrix Market entry, the row of an invalid matrix, the
singular column) and its status code in the attribute ``status``. Each class
also derives from the built-in exception a Python user would expect, so that
``except ValueError`` or ``except numpy.linalg.LinAlgError`` catch them.
"""

import numpy as np

from . import _core

__all__ = [
    "TesseraError",
    "InvalidArgumentError",
    "InvalidMatrixError",
    "OutOfMemoryError",
    "SizeOverflowError",
    "FileError",
    "ParseError",
    "UnsupportedError",
    "NoDeviceError",
    "CudaError",
    "InternalError",
    "SingularMatrixError",
    "NotFactoredError",
    "CancelledError",
]


class TesseraError(Exception):
    """Base class of the errors the tessera library reports.

    Attributes:
        status: the library's status code (``ts_status``), or None.
    """

    status = None

    @property
    def status_name(self):
        """The library's short text for the status ("invalid argument")."""
        return None if self.status is None else _core.status_string(self.status)


class InvalidArgumentError(TesseraError, ValueError):
    """An argument the library refused (a size, an option, an overlap)."""


class InvalidMatrixError(TesseraError, ValueError):
    """A matrix that failed the library's validation (the message names the row)."""


class OutOfMemoryError(TesseraError, MemoryError):
    """A host or device allocation failed."""


class SizeOverflowError(TesseraError, OverflowError):
    """A size past the library's limits (32-bit indices, 64-bit counts)."""


class FileError(TesseraError, OSError):
    """A file could not be opened, read or written."""

    def __str__(self):
        return str(self.args[0]) if self.args else ""


class ParseError(TesseraError, ValueError):
    """Malformed Matrix Market text (the message gives the line)."""


class UnsupportedError(TesseraError, NotImplementedError):
    """Valid input the library does not handle (complex values, for now)."""


class NoDeviceError(TesseraError, RuntimeError):
    """CUDA was asked for where no usable GPU or driver is present."""


class CudaError(TesseraError, RuntimeError):
    """A CUDA call or kernel failed."""


class InternalError(TesseraError, RuntimeError):
    """A bug in tessera; please report it."""


class SingularMatrixError(TesseraError, np.linalg.LinAlgError):
    """The matrix is singular: structurally (no perfect matching; the message
    gives the structural rank) or numerically (a zero pivot; the message gives
    the column). A ``numpy.linalg.LinAlgError``, as SciPy and NumPy raise."""


class NotFactoredError(TesseraError, RuntimeError):
    """A factorization or a solve was asked for before its preceding step."""


class CancelledError(TesseraError, RuntimeError):
    """The call was cancelled through the progress callback."""


_BY_STATUS = {
    1: InvalidArgumentError,
    2: InvalidMatrixError,
    3: OutOfMemoryError,
    4: SizeOverflowError,
    5: FileError,
    6: ParseError,
    7: UnsupportedError,
    8: NoDeviceError,
    9: CudaError,
    10: InternalError,
    11: SingularMatrixError,
    12: SingularMatrixError,
    13: NotFactoredError,
    14: NotFactoredError,
    15: CancelledError,
}

_core._set_errors(_BY_STATUS)
