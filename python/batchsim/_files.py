"""Atomic file writes: a temporary file in the target's folder, flushed to disk and renamed
over the target, so readers never see a partial file and a failure or a kill at any moment
leaves the old file (or none) in place."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from batchsim.errors import FileIoError


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
