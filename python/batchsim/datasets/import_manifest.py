"""OUT/batchsim-import.json: what `batchsim import-dataset` wrote into OUT, one entry per
scene (keyed by the model's path relative to SRC) with the hash of its inputs, so that a
second run reuses every scene whose inputs did not change, and the sizes and mtimes of its
input files, so that it can tell most of them without hashing.

    {"format": "batchsim import-dataset manifest", "version": 1,
     "scenes": {"gibson/Adrian.glb": {"hash": "sha256:...", "output": "gibson/Adrian.bsscene",
                                      "navmesh": "habitat", "triangles": 1, "textures": 1,
                                      "file_bytes": 1, "seconds": 1.0,
                                      "inputs": {"settings": "sha256:...", "files": [
                                          ["model", "Adrian.glb", 1, 1700000000000000000],
                                          ["navmesh", "Adrian.navmesh", 1, 1700000000000000000]]}}}}

"inputs" (scene_sources.input_stats) is optional: entries without it, as earlier versions
wrote them, are hashed on the next run and get it then.
"""

from __future__ import annotations

import json
from pathlib import Path

from batchsim._files import read_regular_bytes, write_bytes_atomically
from batchsim.errors import FormatError

MANIFEST_NAME = "batchsim-import.json"
MANIFEST_FORMAT = "batchsim import-dataset manifest"
MANIFEST_VERSION = 1
ENTRY_FIELDS = ("hash", "output", "navmesh", "triangles", "textures", "file_bytes", "seconds")


def manifest_path(out: Path) -> Path:
    return out / MANIFEST_NAME


def load_manifest(out: Path) -> dict[str, dict]:
    """scene -> entry from OUT's manifest ({} when there is none). FormatError when the file
    is not a manifest of this version: deleting it makes the next run import every scene."""
    path = manifest_path(out)
    if not path.is_file():
        return {}
    try:
        document = json.loads(read_regular_bytes(path, "import manifest"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise FormatError(
            f"{path}: not JSON ({exc}); delete it or pass --force to re-import every scene"
        ) from None
    ok = (
        isinstance(document, dict)
        and document.get("format") == MANIFEST_FORMAT
        and document.get("version") == MANIFEST_VERSION
        and isinstance(document.get("scenes"), dict)
    )
    if not ok:
        raise FormatError(
            f"{path}: not a version {MANIFEST_VERSION} import-dataset manifest; delete it or pass "
            "--force to re-import every scene"
        )
    return {k: v for k, v in document["scenes"].items() if _valid_entry(v)}


def _valid_entry(entry) -> bool:
    return isinstance(entry, dict) and all(name in entry for name in ENTRY_FIELDS)


def save_manifest(out: Path, scenes: dict[str, dict]) -> None:
    """Writes the manifest atomically: an interrupted run leaves the previous one whole."""
    document = {"format": MANIFEST_FORMAT, "version": MANIFEST_VERSION, "scenes": scenes}
    text = json.dumps(document, indent=1, sort_keys=True, allow_nan=False) + "\n"
    write_bytes_atomically(manifest_path(out), text.encode())
