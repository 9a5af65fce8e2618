"""Where an episode's scene file is: Habitat's scene_id resolution, batchsim's packed
.bsscene next to a .glb, and the file a simulator loads for a dataset's scene."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from batchsim.errors import MissingFileError

if TYPE_CHECKING:
    from batchsim.datasets.pointnav import PointNavDataset

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


def _candidate_models(dataset: PointNavDataset, scene_id: str) -> list[Path]:
    """Where scene_id's model may be: Habitat's resolution, then batchsim's dataset layout
    (<root>/pointnav/<split>/<split>.json.gz beside <root>/scene_datasets/)."""
    models = [dataset.scene_path(scene_id)]
    parents = Path(dataset.path).resolve().parents if dataset.path is not None else ()
    if dataset.scenes_dir is None and len(parents) > 2:  # a split near / has no such layout
        layout_dir = parents[2] / "scene_datasets"
        if layout_dir.is_dir():
            models.append(resolve_scene(scene_id, layout_dir))
    return models


def simulator_scene_file(dataset: PointNavDataset, scene_id: str) -> Path:
    """The packed scene of scene_id, or a bare .navmesh beside its model (navigation only);
    MissingFileError naming every place tried otherwise."""
    models = _candidate_models(dataset, scene_id)
    for model in models:
        packed = packed_scene_path(model)
        if packed is not None:
            return packed
        if model.with_suffix(".navmesh").is_file():
            return model.with_suffix(".navmesh")
    tried = ", ".join(str(m.with_suffix(PACKED_SCENE_SUFFIX)) for m in models)
    raise MissingFileError(
        f"scene {scene_id!r} of {dataset.path or 'the dataset'} has no packed scene: tried "
        f"{tried} (make one with `batchsim import MODEL OUT.bsscene`, or pass scenes_dir to "
        "load_pointnav); a bare .navmesh beside the model also works"
    )
