"""The source files of a scene dataset: which files under a folder are scene models, which
files each model pulls in (glTF buffers and images, OBJ materials and textures), one content
hash over all of them, so that an import is redone exactly when an input changed, and their
sizes and mtimes, so that a later run can tell that nothing changed without hashing.

>>> models = find_models("data/scene_datasets")          # [Path("gibson/Adrian.glb"), ...]
>>> source_hash(root / models[0], navmesh=None, settings_key="...")
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import os
import struct
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from urllib.parse import unquote

from batchsim._files import open_regular, read_regular_bytes
from batchsim.errors import InvalidArgumentError, MissingFileError

MODEL_SUFFIXES = (".glb", ".gltf", ".obj", ".ply", ".fbx", ".dae", ".stl", ".ifc")
"""Model files import-dataset picks up (Assimp reads more: `batchsim import` takes those)."""

DEFAULT_EXCLUDE = ("*.semantic.glb", "*_semantic.ply")
"""Semantic-annotation meshes shipped beside the scenes (HM3D `<id>.semantic.glb`, MP3D
`<scan>_semantic.ply`): models, but never a navigation scene."""

NAVMESH_SUFFIX = ".navmesh"
HASH_CHUNK = 1 << 20  # bytes per read while hashing: large reads, bounded memory
RECENT_NS = 3_000_000_000
"""Inputs changed less than 3 s before they were looked at are not trusted by size and mtime
on the next run (see input_stats); 3 s is past the coarsest common mtime resolution (FAT's
2 s)."""
GLB_MAGIC, GLB_JSON_CHUNK = 0x46546C67, 0x4E4F534A  # "glTF", "JSON" (glTF 2.0 binary spec)


def find_models(src: str | os.PathLike, exclude: Sequence[str] = DEFAULT_EXCLUDE) -> list[Path]:
    """Every model under `src` (suffix in MODEL_SUFFIXES, any case), as sorted paths relative
    to it; relative paths matching a glob in `exclude` are left out. Raises MissingFileError
    when src does not exist or holds no model, InvalidArgumentError when it is not a folder."""
    root = Path(src)
    if not root.exists():
        raise MissingFileError(f"SRC: no such folder: {root}")
    if not root.is_dir():
        raise InvalidArgumentError(f"SRC: {root} is a file; expected a folder of scene models")
    models = sorted(
        path.relative_to(root)
        for path in root.rglob("*")
        if path.suffix.lower() in MODEL_SUFFIXES and path.is_file()
    )
    models = [m for m in models if not _excluded(m, exclude)]
    if not models:
        suffixes = ", ".join(MODEL_SUFFIXES)
        raise MissingFileError(f"no scene models ({suffixes}) under {root}")
    return models


def _excluded(relative: Path, patterns: Iterable[str]) -> bool:
    text = relative.as_posix()
    return any(fnmatch.fnmatch(text, p) or fnmatch.fnmatch(relative.name, p) for p in patterns)


def sibling_navmesh(model: Path) -> Path | None:
    """Habitat's navmesh for `model`: same folder, same stem (Adrian.glb -> Adrian.navmesh,
    x.basis.glb -> x.basis.navmesh), or None."""
    navmesh = model.with_suffix(NAVMESH_SUFFIX)
    return navmesh if navmesh.is_file() else None


def referenced_files(model: Path) -> list[str]:
    """Files `model` names relative to its folder, as far as a cheap look finds them:
    glTF/GLB buffer and image URIs, OBJ material libraries and their texture maps. Other
    formats, and models too broken to read, give [] (the importer reports those)."""
    suffix = model.suffix.lower()
    try:
        if suffix == ".gltf":
            return _gltf_uris(json.loads(read_regular_bytes(model, "model")))
        if suffix == ".glb":
            return _gltf_uris(_glb_json(model))
        if suffix == ".obj":
            return _obj_references(model)
    except (OSError, ValueError, struct.error):
        pass
    return []


def _gltf_uris(document) -> list[str]:
    if not isinstance(document, dict):
        return []
    entries = [*document.get("buffers", []), *document.get("images", [])]
    uris = [e.get("uri") for e in entries if isinstance(e, dict)]
    return [unquote(u) for u in uris if isinstance(u, str) and not u.startswith("data:")]


def _glb_json(model: Path):
    """The JSON chunk of a GLB, read without the binary chunk that follows it."""
    with open_regular(model, "model") as f:
        magic, _version, _length = struct.unpack("<III", f.read(12))
        chunk_length, chunk_type = struct.unpack("<II", f.read(8))
        if magic != GLB_MAGIC or chunk_type != GLB_JSON_CHUNK:
            return None
        return json.loads(f.read(chunk_length))


def _obj_references(model: Path) -> list[str]:
    libraries = _directives(model, (b"mtllib",))
    textures = []
    for library in libraries:
        path = model.parent / library
        if path.is_file():
            textures += _directives(path, (b"map_", b"bump", b"disp", b"norm", b"refl"))
    return libraries + textures


def _directives(path: Path, keywords: tuple[bytes, ...]) -> list[str]:
    """The file name each line starting with one of `keywords` ends with (the last word:
    texture options such as `-s 1 1 1` come before it)."""
    names = []
    with open_regular(path, "material library") as f:
        for line in f:
            if line.startswith(keywords):
                words = line.split()
                if len(words) > 1:
                    names.append(words[-1].decode("utf-8", "replace"))
    return names


def file_digest(path: Path | None) -> str:
    """sha256 of the file's bytes, or "missing" when there is no such file."""
    if path is None or not path.is_file():
        return "missing"
    digest = hashlib.sha256()
    with open_regular(path) as f:
        while chunk := f.read(HASH_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def source_inputs(model: Path, navmesh: Path | None) -> list[tuple[str, str, Path | None]]:
    """(role, name, path) of every file source_hash covers, in its order: the model, each
    file it references (named relative to the model's folder), its navmesh ("" and None
    without one)."""
    inputs: list[tuple[str, str, Path | None]] = [("model", model.name, model)]
    inputs += [("reference", name, model.parent / name) for name in referenced_files(model)]
    inputs.append(("navmesh", navmesh.name if navmesh else "", navmesh))
    return inputs


def source_hash(
    model: Path,
    navmesh: Path | None,
    settings_key: str,
    inputs: list[tuple[str, str, Path | None]] | None = None,
) -> str:
    """One hash over the import settings, the model, every file it references and its
    navmesh (`inputs`: source_inputs(model, navmesh), if the caller has it already): equal
    hashes mean an import would write the same scene."""
    digest = hashlib.sha256(settings_key.encode())
    for role, name, path in source_inputs(model, navmesh) if inputs is None else inputs:
        digest.update(f"\0{role}\0{name}\0{file_digest(path)}".encode())
    return "sha256:" + digest.hexdigest()


def _file_stat(path: Path | None) -> tuple[int | None, int | None]:
    """(size, mtime_ns) of a file; (None, None) where file_digest says "missing"."""
    if path is None or not path.is_file():
        return None, None
    stat = path.stat()
    return stat.st_size, stat.st_mtime_ns


def _settings_digest(settings_key: str) -> str:
    return "sha256:" + hashlib.sha256(settings_key.encode()).hexdigest()


def input_stats(inputs: list[tuple[str, str, Path | None]], settings_key: str) -> dict | None:
    """What unchanged_inputs compares on a later run: the settings' digest and each input's
    [role, name, size, mtime_ns] (sizes None for a missing file). Taken before hashing, so
    that a file changed while it is hashed looks changed next time. None when a file changed
    in the last RECENT_NS: a change within the same tick of the file system's clock could
    keep its size and mtime (git's "racy" files), so such scenes are hashed next time."""
    now = time.time_ns()
    files = [[role, name, *_file_stat(path)] for role, name, path in inputs]
    if any(mtime is not None and now - mtime < RECENT_NS for *_, mtime in files):
        return None
    return {"settings": _settings_digest(settings_key), "files": files}


def unchanged_inputs(recorded, model: Path, navmesh: Path | None, settings_key: str) -> bool:
    """Whether input_stats' record (from the manifest: any JSON value) still holds: the same
    settings, the same navmesh beside the model, and every file it lists with the same size
    and mtime_ns (or still missing). The model's references are read from the record, not
    from the model: they can only have changed if the model or a material file did."""
    if not isinstance(recorded, dict) or recorded.get("settings") != _settings_digest(settings_key):
        return False
    files = recorded.get("files")
    if not isinstance(files, list):
        return False
    references = [
        f[1] for f in files if isinstance(f, list) and f[:1] == ["reference"] and len(f) > 1
    ]
    current: list[tuple[str, str, Path | None]] = [("model", model.name, model)]
    current += [("reference", n, model.parent / n) for n in references if isinstance(n, str)]
    current.append(("navmesh", navmesh.name if navmesh else "", navmesh))
    return files == [[role, name, *_file_stat(path)] for role, name, path in current]
