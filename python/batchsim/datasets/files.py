"""json.gz files: checked reading and deterministic, atomic writing."""

from __future__ import annotations

import gzip
import io
import json
import zlib
from pathlib import Path
from typing import Any

from batchsim._files import read_regular_bytes
from batchsim._files import write_bytes_atomically as write_atomic  # noqa: F401 (re-export)
from batchsim.errors import FormatError

# Level 6 is zlib's default: within a few percent of 9 on episode JSON, several times faster.
GZIP_LEVEL = 6


def read_json_gz(path: Path) -> Any:
    """The decoded JSON document in the gzip file `path`."""
    raw = read_regular_bytes(path, "dataset file")  # a named pipe would block for ever
    try:
        text = gzip.decompress(raw)
    except (OSError, EOFError, zlib.error) as exc:
        raise FormatError(f"{path}: expected a gzip file, got unreadable data ({exc})") from None
    try:
        return json.loads(text)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise FormatError(f"{path}: expected JSON inside the gzip stream: {exc}") from None


def encode_json_gz(document: Any) -> bytes:
    """Deterministic bytes: fixed key order (the caller's), mtime 0 and no file name in the
    gzip header, so equal datasets give equal files."""
    text = json.dumps(document, separators=(",", ":"), allow_nan=False)
    buffer = io.BytesIO()
    with gzip.GzipFile(
        filename="", mode="wb", fileobj=buffer, mtime=0, compresslevel=GZIP_LEVEL
    ) as f:
        f.write(text.encode())
    return buffer.getvalue()
