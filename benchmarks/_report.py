"""Shared by the benchmark scripts: print the JSON report and save it atomically."""

from __future__ import annotations

import json

from batchsim._files import write_bytes_atomically


def emit(report: dict, out: str | None) -> None:
    """Prints `report` as JSON and, if `out` is given, writes it there (temp + rename)."""
    text = json.dumps(report, indent=2)
    print(text)
    if out:
        write_bytes_atomically(out, (text + "\n").encode())
