"""json.gz files: checked reading and deterministic, atomic writing.

Reading caps the decompressed size (MAX_JSON_BYTES, BATCHSIM_MAX_JSON_MB overrides it): a
1 MB gzip bomb inflates to 1 GiB and more, and would take the machine's memory before the
JSON parser saw a byte. Each file is inflated in steps, and refused once past the cap."""

from __future__ import annotations

import gzip
import io
import json
import os
import sys
import zlib
from pathlib import Path
from typing import Any

from batchsim._files import read_regular_bytes
from batchsim._files import write_bytes_atomically as write_atomic  # noqa: F401 (re-export)
from batchsim.errors import FormatError, InvalidArgumentError

# Level 6 is zlib's default: within a few percent of 9 on episode JSON, several times faster.
GZIP_LEVEL = 6
# The largest decompressed json.gz read. Real splits keep one file per scene (Habitat's
# content/ layout): a few MB each; 256 MiB is ~700k episodes in one file.
MAX_JSON_BYTES = 256 << 20
MAX_JSON_ENV = "BATCHSIM_MAX_JSON_MB"
_STEP = 1 << 20  # bytes inflated at a time


def max_json_bytes() -> int:
    """MAX_JSON_BYTES, or BATCHSIM_MAX_JSON_MB MiB where that is set."""
    text = os.environ.get(MAX_JSON_ENV)
    if text is None:
        return MAX_JSON_BYTES
    try:
        megabytes = float(text)
    except ValueError:
        megabytes = -1.0
    if not 0 < megabytes < 2**40:
        raise InvalidArgumentError(f"{MAX_JSON_ENV}: expected MiB > 0, got {text!r}")
    return int(megabytes * (1 << 20))


def inflate(raw: bytes, path: Path, limit: int) -> bytes:
    """The gzip members of `raw`, decompressed; FormatError naming `path` past `limit`
    bytes (what gzip.decompress gives, without its unbounded memory)."""
    out, total = [], 0
    while raw:
        inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)  # one gzip member
        data = raw
        while not inflater.eof:
            chunk = inflater.decompress(data, _STEP)
            data = inflater.unconsumed_tail
            if not (chunk or data or inflater.eof):
                raise EOFError("compressed file ended before the end-of-stream marker")
            total += len(chunk)
            if total > limit:
                raise FormatError(
                    f"{path}: decompresses to more than {limit >> 20} MiB (a gzip bomb, or a "
                    f"bigger split than batchsim expects); set {MAX_JSON_ENV} to a larger cap "
                    "in MiB if the file is trusted"
                )
            out.append(chunk)
        raw = inflater.unused_data.lstrip(b"\0")  # gzip allows zero padding between members
    return b"".join(out)


def read_json_gz(path: Path) -> Any:
    """The decoded JSON document in the gzip file `path`."""
    raw = read_regular_bytes(path, "dataset file")  # a named pipe would block for ever
    return decode_json_gz(raw, path)


def decode_json_gz(raw: bytes, path: Path) -> Any:
    """The JSON document in the gzip bytes `raw` read from `path`; FormatError otherwise."""
    try:
        text = inflate(raw, path, max_json_bytes())
    except (OSError, EOFError, zlib.error) as exc:
        raise FormatError(f"{path}: expected a gzip file, got unreadable data ({exc})") from None
    try:
        return json.loads(text)
    except RecursionError:
        raise FormatError(
            f"{path}: expected PointNav JSON, got values nested deeper than the parser's "
            f"recursion limit ({sys.getrecursionlimit()})"
        ) from None
    except ValueError as exc:  # bad UTF-8, bad JSON, or an integer of over 4300 digits
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
