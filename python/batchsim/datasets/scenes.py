"""Where an episode's scene file is: Habitat's scene_id resolution, and batchsim's packed
.bsscene next to a .glb."""

from __future__ import annotations

import os
from pathlib import Path

# habitat-lab pointnav_dataset.py: scene_ids start with this; a scenes_dir replaces it.
DEFAULT_SCENE_PATH_PREFIX = "data/scene_datasets/"
PACKED_SCENE_SUFFIX = ".bsscene"


def resolve_scene(scene_id: str, scenes_dir: str | os.PathLike | None = None) -> Path:
    """The scene file of `scene_id`, as PointNavDatasetV1.from_json computes it.

    With scenes_dir, a leading "data/scene_datasets/" is stripped and the rest joined onto
    scenes_dir (an absolute scene_id stays absolute, as os.path.join does); without, the
    scene_id is used as it is, relative to the current folder.
    """
    if scenes_dir is None:
        return Path(scene_id)
    if scene_id.startswith(DEFAULT_SCENE_PATH_PREFIX):
        scene_id = scene_id[len(DEFAULT_SCENE_PATH_PREFIX) :]
    return Path(os.path.join(os.fspath(scenes_dir), scene_id))


def packed_scene_path(path: str | os.PathLike) -> Path | None:
    """The batchsim packed scene beside `path` (Adrian.glb -> Adrian.bsscene), or None if there
    is none. A path that already is a .bsscene is returned when it exists."""
    path = Path(path)
    packed = path if path.suffix == PACKED_SCENE_SUFFIX else path.with_suffix(PACKED_SCENE_SUFFIX)
    return packed if packed.is_file() else None
