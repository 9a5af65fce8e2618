"""Shared by the benchmark scripts: print the JSON report and save it atomically."""

from __future__ import annotations

import json
import os
import tempfile


def emit(report: dict, out: str | None) -> None:
    """Prints `report` as JSON and, if `out` is given, writes it there (temp + rename)."""
    text = json.dumps(report, indent=2)
    print(text)
    if out:
        directory = os.path.dirname(os.path.abspath(out))
        with tempfile.NamedTemporaryFile("w", dir=directory, delete=False) as f:
            f.write(text + "\n")
        os.replace(f.name, out)
