"""Atomic file writes: a temporary file in the target's folder, flushed to disk and renamed
over the target, so readers never see a partial file and a failure or a kill at any moment
leaves the old file (or none) in place. And checked reads: regular files only."""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from batchsim.errors import FileIoError, InvalidArgumentError, MissingFileError

_SPECIAL_FILES = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def open_regular(path: str | os.PathLike, what: str = "file") -> BinaryIO:
    """`path` opened for binary reading. A named pipe would block open() until a writer
    came, for ever, and a device might never end, so anything but a regular file raises
    InvalidArgumentError (without blocking); MissingFileError when there is nothing there,
    FileIoError when it cannot be opened. `what` names the file in the messages."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise MissingFileError(f"{path}: no such file (the {what})") from None
    except OSError as exc:
        raise FileIoError(f"{path}: cannot open the {what}: {exc}") from exc
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            kind = next((name for test, name in _SPECIAL_FILES if test(mode)), "a special file")
            raise InvalidArgumentError(
                f"{path}: the {what} is {kind}; expected a regular file (batchsim reads no "
                "pipes or devices)"
            )
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_regular_bytes(path: str | os.PathLike, what: str = "file") -> bytes:
    """The bytes of the regular file `path` (open_regular's errors; FileIoError when a
    read fails)."""
    with open_regular(path, what) as f:
        try:
            return f.read()
        except OSError as exc:
            raise FileIoError(f"{path}: cannot read the {what}: {exc}") from exc


def _temporary_prefix(path: Path) -> str:
    return f".{path.name}."


def write_atomically(path: str | os.PathLike, write: Callable[[BinaryIO], None]) -> None:
    """write(f) on a temporary file beside `path` (creating its folder), fsync, then a rename
    over `path` and an fsync of the folder, so the new file also survives a power loss;
    raises FileIoError naming the path. A killed writer leaves only a temporary file, which
    remove_stale_temporaries() clears."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    prefix = _temporary_prefix(path)
    fd, temporary = tempfile.mkstemp(prefix=prefix, suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            os.fchmod(f.fileno(), 0o644)  # mkstemp's 0600 would make outputs owner-only
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temporary, path)
        _fsync_folder(path.parent)
    except BaseException as exc:
        Path(temporary).unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise FileIoError(
                f"{path}: cannot write: {exc} (the previous {path.name}, if any, is unchanged)"
            ) from exc
        raise


def _fsync_folder(folder: Path) -> None:
    """Makes a rename in `folder` durable (POSIX: the folder's entry is its own data)."""
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_bytes_atomically(path: str | os.PathLike, data: bytes) -> None:
    """Writes `data` to `path` (creating its folder); raises FileIoError naming the path."""
    write_atomically(path, lambda f: f.write(data))


def remove_stale_temporaries(path: str | os.PathLike) -> list[Path]:
    """Deletes the temporary files that killed writers of `path` left beside it; returns
    them. Only for a file that one process writes (a second writer's would go too)."""
    path = Path(path)
    stale = sorted(path.parent.glob(f"{_temporary_prefix(path)}*.tmp"))
    for temporary in stale:
        temporary.unlink(missing_ok=True)
    return stale
