"""Atomic file writes: a temporary file in the target's folder, renamed over the target, so
readers never see a partial file and a failure leaves the old file (or none) in place."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from batchsim.errors import FileIoError


def write_bytes_atomically(path: str | os.PathLike, data: bytes) -> None:
    """Writes `data` to `path` (creating its folder); raises FileIoError naming the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            os.fchmod(f.fileno(), 0o644)  # mkstemp's 0600 would make outputs owner-only
            f.write(data)
        os.replace(temporary, path)
    except BaseException as exc:
        Path(temporary).unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise FileIoError(f"{path}: cannot write: {exc}") from exc
        raise
